// messagingConfigFrom (the messaging variables: all of a provider's or none, formats, email required in
// production) and which sender a configuration gives (the providers' messaging).
import { describe, expect, it } from 'vitest';
import {
  type AppConfig,
  ConfigError,
  isValidEmailFrom,
  messagingConfigFrom,
  RESEND_API_BASE_URL,
  TWILIO_API_BASE_URL,
} from '../../src/config';
import type { Database } from '../../src/platform/db/client';
import { providersFor } from '../../src/platform/providers';
import { DevelopmentMessageSender, QueueingMessageSender } from '../../src/platform/providers/messaging';

/** The sender providersFor gives a configuration (no database is touched to choose it). */
const messagingFor = (config: Pick<AppConfig, 'environment' | 'messaging'>) =>
  providersFor(config as AppConfig, {}, {} as Database).messaging;

const RESEND = { RESEND_API_KEY: 're_123abc_DEF', EMAIL_FROM: 'Brand Admin <no-reply@mail.example.com>' };
const TWILIO = { TWILIO_ACCOUNT_SID: `AC${'a1'.repeat(16)}`, TWILIO_AUTH_TOKEN: 'token123', TWILIO_FROM_NUMBER: '+15550100000' };

describe('messagingConfigFrom', () => {
  it('reads nothing as no providers outside production', () => {
    expect(messagingConfigFrom({}, 'development')).toEqual({ email: null, sms: null });
    expect(messagingConfigFrom({ RESEND_API_KEY: '  ', EMAIL_FROM: '' }, 'test')).toEqual({ email: null, sms: null });
  });

  it('reads Resend and Twilio, with their real API hosts', () => {
    expect(messagingConfigFrom({ ...RESEND, ...TWILIO }, 'production')).toEqual({
      email: { apiKey: 're_123abc_DEF', from: 'Brand Admin <no-reply@mail.example.com>', baseUrl: RESEND_API_BASE_URL },
      sms: { accountSid: TWILIO.TWILIO_ACCOUNT_SID, authToken: 'token123', fromNumber: '+15550100000', baseUrl: TWILIO_API_BASE_URL },
    });
    expect(RESEND_API_BASE_URL).toBe('https://api.resend.com');
    expect(TWILIO_API_BASE_URL).toBe('https://api.twilio.com');
    expect(messagingConfigFrom({ ...RESEND, EMAIL_FROM: 'no-reply@mail.example.com' }, 'production').sms).toBeNull();
  });

  it('requires email in production', () => {
    expect(() => messagingConfigFrom({}, 'production')).toThrow(ConfigError);
    expect(() => messagingConfigFrom(TWILIO, 'production')).toThrow(/RESEND_API_KEY and EMAIL_FROM are required in production/);
  });

  it("refuses half of a provider's variables", () => {
    expect(() => messagingConfigFrom({ RESEND_API_KEY: RESEND.RESEND_API_KEY }, 'development')).toThrow(
      /both RESEND_API_KEY and EMAIL_FROM/,
    );
    expect(() => messagingConfigFrom({ EMAIL_FROM: RESEND.EMAIL_FROM }, 'development')).toThrow(ConfigError);
    expect(() => messagingConfigFrom({ TWILIO_ACCOUNT_SID: TWILIO.TWILIO_ACCOUNT_SID }, 'development')).toThrow(
      /all of TWILIO_ACCOUNT_SID/,
    );
    expect(() => messagingConfigFrom({ ...TWILIO, TWILIO_FROM_NUMBER: '' }, 'development')).toThrow(ConfigError);
  });

  it('refuses malformed values', () => {
    expect(() => messagingConfigFrom({ ...RESEND, RESEND_API_KEY: 'sk_live_123' }, 'development')).toThrow(/re_/);
    for (const from of ['no-reply', 'Name <no-reply>', 'a@b.com, c@d.com', 'Name <a@b.com', '<a@b.com>>']) {
      expect(() => messagingConfigFrom({ ...RESEND, EMAIL_FROM: from }, 'development'), from).toThrow(/EMAIL_FROM/);
    }
    expect(() => messagingConfigFrom({ ...TWILIO, TWILIO_ACCOUNT_SID: 'AC123' }, 'development')).toThrow(/TWILIO_ACCOUNT_SID/);
    expect(() => messagingConfigFrom({ ...TWILIO, TWILIO_FROM_NUMBER: '555-0100' }, 'development')).toThrow(/TWILIO_FROM_NUMBER/);
  });

  it('accepts the usual From forms', () => {
    for (const from of ['no-reply@mail.example.com', 'Brand <no-reply@mail.example.com>', '"Brand, Inc." <a@b.co>', '<a@b.co>']) {
      expect(isValidEmailFrom(from), from).toBe(true);
    }
  });
});

describe("the providers' message sender", () => {
  it('gives the development sender when messaging has no provider', () => {
    expect(messagingFor({ environment: 'test', messaging: { email: null, sms: null } })).toBeInstanceOf(DevelopmentMessageSender);
  });

  it('gives the queueing sender with a provider, falling back to the development sender outside production only', () => {
    const messaging = messagingConfigFrom(RESEND, 'production');
    const production = messagingFor({ environment: 'production', messaging });
    expect(production).toBeInstanceOf(QueueingMessageSender);
    expect(production.provider).toBe('resend');
    expect((production as QueueingMessageSender).transport.sms).toBeNull();
    const both = messagingFor({ environment: 'development', messaging: messagingConfigFrom({ ...RESEND, ...TWILIO }, 'development') });
    expect(both.provider).toBe('resend,twilio');
  });
});
