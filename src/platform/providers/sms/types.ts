// Number provisioning at the clinic's SMS provider (docs/organization.md, "SMS provider"): a billable
// toll-free number bought on the clinic's own provider account, and released again. Implementations:
// DevelopmentSmsNumbers (its state is the sms_configs rows) and TwilioSmsNumbers (Twilio's REST API).
import type { Queryable } from '../../db/client';

/** The provider names the {provider-path} segment of /organization/sms/{provider-path} accepts. */
export const SMS_PROVIDERS = ['twilio'] as const;
export type SmsProviderName = (typeof SMS_PROVIDERS)[number];

/** The clinic's account at the provider (the auth token decrypted for the call only). */
export interface SmsAccount {
  accountSid: string;
  authToken: string;
}

export interface ProvisionedNumber {
  /** E.164. */
  phoneNumber: string;
  /** The provider's id of the number (Twilio: PN...). */
  providerNumberId: string;
}

export interface SmsProviderContext {
  db: Queryable;
}

export interface SmsNumberProvider {
  /** development | twilio */
  readonly name: string;
  /** Buys a toll-free, SMS-capable number on the account. */
  provisionTollFreeNumber(input: { clinicId: string; account: SmsAccount }, context: SmsProviderContext): Promise<ProvisionedNumber>;
  /** Releases the number; a number the provider no longer has counts as released. */
  releaseNumber(input: { clinicId: string; account: SmsAccount; providerNumberId: string }, context: SmsProviderContext): Promise<void>;
}
