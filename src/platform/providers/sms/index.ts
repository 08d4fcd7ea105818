import type { AppConfig } from '../../../config/index';
import { DevelopmentSmsNumbers } from './development';
import { TWILIO_API_BASE_URL, TwilioSmsNumbers } from './twilio';
import type { SmsNumberProvider } from './types';

export * from './types';
export { DevelopmentSmsNumbers, developmentNumberSid, developmentTollFreeNumber } from './development';
export { TWILIO_API_BASE_URL, TWILIO_CANDIDATES, TwilioSmsNumbers } from './twilio';

/**
 * The Worker variables the number provider reads (docs/organization.md, "Configuration"). The
 * credentials themselves are each clinic's own (PUT /organization/sms/twilio), not the deployment's.
 */
export interface SmsEnv {
  /** "twilio": buy and release numbers at Twilio outside production too (production always does). */
  SMS_PROVISIONING?: string;
  /** Default https://api.twilio.com; tests point it at a local stand-in. */
  TWILIO_API_BASE_URL?: string;
}

/**
 * The number provider for a call: Twilio in production, or with SMS_PROVISIONING=twilio; the development
 * provider otherwise, and always for sandbox clinics (nothing billable is bought for a demo brand).
 */
export function smsNumbersFor(env: SmsEnv | undefined, choice: { config: Pick<AppConfig, 'environment'>; sandbox: boolean }): SmsNumberProvider {
  if (choice.sandbox) return new DevelopmentSmsNumbers();
  const twilio = choice.config.environment === 'production' || env?.SMS_PROVISIONING?.trim().toLowerCase() === 'twilio';
  if (!twilio) return new DevelopmentSmsNumbers();
  return new TwilioSmsNumbers(env?.TWILIO_API_BASE_URL?.trim() || TWILIO_API_BASE_URL);
}
