import { RESEND_API_BASE_URL, TWILIO_API_BASE_URL } from './endpoints';
import type { Environment } from './environment';
import { ConfigError } from './errors';
import { present } from './values';

/** The Worker variables and secrets the production senders read (docs/messaging.md). */
export interface MessagingEnv {
  /** Resend API key (re_...): email. */
  RESEND_API_KEY?: string;
  /** The sender of every email: "Brand Admin <no-reply@mail.example.com>" or a bare address, on a domain verified at Resend. */
  EMAIL_FROM?: string;
  /** Twilio account SID (AC + 32 hex): SMS. */
  TWILIO_ACCOUNT_SID?: string;
  TWILIO_AUTH_TOKEN?: string;
  /** The Twilio number SMS are sent from, E.164 (+15550100000). */
  TWILIO_FROM_NUMBER?: string;
}

export interface ResendConfig {
  apiKey: string;
  from: string;
  /** https://api.resend.com; tests point it at a local stand-in. */
  baseUrl: string;
}

export interface TwilioConfig {
  accountSid: string;
  authToken: string;
  fromNumber: string;
  /** https://api.twilio.com; tests point it at a local stand-in. */
  baseUrl: string;
}

/** Which providers deliver each channel; null: that channel has no provider. */
export interface MessagingConfig {
  email: ResendConfig | null;
  sms: TwilioConfig | null;
}

const RESEND_KEY = /^re_[A-Za-z0-9_-]+$/;
const ADDRESS = /^[^\s<>@",;]+@[^\s<>@",;]+\.[^\s<>@",;]+$/;
// A display name holds no control character (U+0000-U+001F, CR and LF among them).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused here
const NAMED_ADDRESS = /^([^<>\r\n\u0000-\u001f]*)<([^<>]+)>$/;
const TWILIO_SID = /^AC[0-9a-fA-F]{32}$/;
const E164 = /^\+[1-9][0-9]{6,14}$/;

/** A bare address or "Display Name <address>". */
export function isValidEmailFrom(value: string): boolean {
  const named = NAMED_ADDRESS.exec(value);
  return named ? ADDRESS.test(named[2]!.trim()) : ADDRESS.test(value);
}

/**
 * Reads the messaging variables. Each provider's variables come all together or not at all (a
 * ConfigError otherwise, as for the other secrets). Production needs email (RESEND_API_KEY and
 * EMAIL_FROM): welcome emails and sequence emails must really leave. SMS is optional everywhere;
 * without Twilio, SMS rows are recorded as failed in production (docs/messaging.md).
 */
export function messagingConfigFrom(env: MessagingEnv, environment: Environment): MessagingConfig {
  const apiKey = present(env.RESEND_API_KEY);
  const from = present(env.EMAIL_FROM);
  let email: ResendConfig | null = null;
  if (apiKey || from) {
    if (!apiKey || !from) throw new ConfigError('Set both RESEND_API_KEY and EMAIL_FROM, or neither');
    if (!RESEND_KEY.test(apiKey)) throw new ConfigError('RESEND_API_KEY must be a Resend API key (re_...)');
    if (!isValidEmailFrom(from))
      throw new ConfigError('EMAIL_FROM must be an address (no-reply@mail.example.com) or "Name <no-reply@mail.example.com>"');
    email = { apiKey, from, baseUrl: RESEND_API_BASE_URL };
  } else if (environment === 'production') {
    throw new ConfigError('RESEND_API_KEY and EMAIL_FROM are required in production (welcome and sequence emails; docs/messaging.md)');
  }

  const accountSid = present(env.TWILIO_ACCOUNT_SID);
  const authToken = present(env.TWILIO_AUTH_TOKEN);
  const fromNumber = present(env.TWILIO_FROM_NUMBER);
  let sms: TwilioConfig | null = null;
  if (accountSid || authToken || fromNumber) {
    if (!accountSid || !authToken || !fromNumber) {
      throw new ConfigError('Set all of TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER, or none');
    }
    if (!TWILIO_SID.test(accountSid))
      throw new ConfigError('TWILIO_ACCOUNT_SID must be a Twilio account SID (AC followed by 32 hex digits)');
    if (!E164.test(fromNumber)) throw new ConfigError('TWILIO_FROM_NUMBER must be an E.164 number such as +15550100000');
    sms = { accountSid, authToken, fromNumber, baseUrl: TWILIO_API_BASE_URL };
  }
  return { email, sms };
}
