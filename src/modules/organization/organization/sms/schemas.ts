import { z } from '@hono/zod-openapi';
import { SMS_CONFIG_STATUSES } from '../../../../../drizzle/schema';
import { SMS_PROVIDERS } from '../../../../platform/providers/sms';
import { timestamp } from '../../../../platform/values/fields';
import { safeString } from '../../../../platform/values/strings';

// ---------------------------------------------------------------------------------------------------
// SMS

export const SMS_VIEW_STATUSES = ['not_configured', ...SMS_CONFIG_STATUSES] as const;

export const smsProviderParam = z.object({
  provider: z.string().openapi({
    param: { name: 'provider', in: 'path' },
    // Declared as the enumeration (typed clients get the names); the route answers any other name 404, as an unknown path.
    enum: [...SMS_PROVIDERS],
    description: `The SMS provider's name: ${SMS_PROVIDERS.join(', ')}. Any other name answers 404.`,
    example: 'twilio',
  }),
});

export const smsConfig = z
  .object({
    provider: z.enum(SMS_PROVIDERS),
    configured: z.boolean().openapi({ description: 'Whether credentials are stored.' }),
    accountSid: z.string().nullable().openapi({ example: 'AC0123456789abcdef0123456789abcdef' }),
    phoneNumber: z.string().nullable().openapi({
      description: 'E.164: the number given with the credentials, or the provisioned toll-free number while active; null after release.',
      example: '+18885550142',
    }),
    status: z.enum(SMS_VIEW_STATUSES).openapi({
      description:
        'not_configured -> configured (PUT) -> active (activate) -> released (release) -> active ...; DELETE clears the config (not while active).',
    }),
    activatedAt: timestamp().nullable(),
    releasedAt: timestamp().nullable(),
    updatedAt: timestamp().nullable(),
  })
  .openapi('SmsProviderConfig', { description: 'The stored SMS provider account. The auth token is stored encrypted and never returned.' });

export type SmsConfigView = z.infer<typeof smsConfig>;

export const updateSmsConfigBody = z
  .object({
    accountSid: safeString()
      .max(100)
      .trim()
      .regex(/^AC[0-9a-fA-F]{32}$/, 'must be a Twilio account SID (AC followed by 32 hex digits)')
      .openapi({ example: 'AC0123456789abcdef0123456789abcdef' }),
    authToken: safeString()
      .min(16)
      .max(128)
      .regex(/^\S+$/, 'must not contain spaces')
      .openapi({ description: 'Stored encrypted (AES-GCM); never returned.', example: '0123456789abcdef0123456789abcdef' }),
    phoneNumber: safeString()
      .max(100)
      .trim()
      .regex(/^\+[1-9]\d{7,14}$/, 'must be an E.164 number such as +14155550123')
      .openapi({
        description: 'E.164 number of the account the clinic sends from until a toll-free number is activated.',
        example: '+14155550123',
      }),
  })
  .strict()
  .openapi('UpdateSmsProviderConfigRequest');

export const SMS_FREE_TIER_MESSAGES_PER_MONTH = 500;

export const smsStatus = z
  .object({
    provider: z.enum(SMS_PROVIDERS).nullable(),
    status: z.enum(SMS_VIEW_STATUSES),
    tollFreeNumber: z
      .string()
      .nullable()
      .openapi({ description: 'The provisioned toll-free number while active; null otherwise.', example: '+18885550142' }),
    activatedAt: timestamp().nullable(),
    releasedAt: timestamp().nullable(),
    usage: z.object({
      periodStart: timestamp().openapi({ description: 'First instant of the current calendar month (UTC).' }),
      periodEnd: timestamp().openapi({ description: 'First instant of the next month (exclusive).' }),
      messagesSent: z.number().int().openapi({ description: 'SMS the clinic sent this month (queued or sent; failed ones do not count).' }),
      freeTierLimit: z
        .number()
        .int()
        .openapi({ description: `SMS included per calendar month (${SMS_FREE_TIER_MESSAGES_PER_MONTH}).` }),
      freeTierRemaining: z.number().int(),
      billableMessages: z.number().int().openapi({ description: 'Messages beyond the free tier this month.' }),
    }),
  })
  .openapi('SmsStatus');

export type SmsStatusView = z.infer<typeof smsStatus>;
