import { TWILIO_API_BASE_URL } from './endpoints';
import type { Environment } from './environment';

/**
 * The Worker variables the SMS number provider reads (docs/organization.md, "Configuration"). The
 * credentials themselves are each clinic's own (PUT /organization/sms/twilio), not the deployment's.
 */
export interface SmsEnv {
  /** "twilio": buy and release numbers at Twilio outside production too (production always does). */
  SMS_PROVISIONING?: string;
  /** Default https://api.twilio.com; tests point it at a local stand-in. */
  TWILIO_API_BASE_URL?: string;
}

/** Where toll-free numbers are bought: Twilio (production, or SMS_PROVISIONING=twilio), else the development provider. */
export interface SmsNumbersConfig {
  twilio: boolean;
  twilioBaseUrl: string;
}

export function smsNumbersConfigFrom(env: SmsEnv, environment: Environment): SmsNumbersConfig {
  return {
    twilio: environment === 'production' || env.SMS_PROVISIONING?.trim().toLowerCase() === 'twilio',
    twilioBaseUrl: env.TWILIO_API_BASE_URL?.trim() || TWILIO_API_BASE_URL,
  };
}
