import { z } from '@hono/zod-openapi';
import { KEY_KINDS, KEY_SCOPES } from '../../../../drizzle/schema';
import { KEY_MINUTE_LIMIT } from '../../../platform/rate-limit/policy';
import { dateTime } from '../../../platform/values/dates';
import { safeString } from '../../../platform/values/strings';

export const createKeyBody = z
  .object({
    name: safeString().trim().min(1).max(100).openapi({ example: 'Production server' }),
    kind: z.enum(KEY_KINDS).default('secret').openapi({
      description:
        'secret (svc_live_), publishable (svc_pk_, may only create checkout sessions) or ai_connector (svc_ai_, read-only allowlist). Every key of a sandbox clinic is a svc_test_ key.',
    }),
    scopes: z.array(z.enum(KEY_SCOPES)).min(1).max(10).optional().openapi({
      description: 'Default ["read"]. Ignored for publishable keys (always read and write) and AI-connector keys (always read).',
    }),
    expiresAt: dateTime().nullable().optional().openapi({
      description:
        'ISO 8601 with a zone (Z or ±HH:MM, at most ±15:59), up to 9999-12-31T23:59:59.999Z. Omitted: one year from now. null: never expires. A past time is refused.',
    }),
    rateLimitPerMin: z
      .number()
      .int()
      .min(1)
      .max(KEY_MINUTE_LIMIT)
      .nullable()
      .optional()
      .openapi({
        description: `Lower this key's per-minute limit (at most the default ${KEY_MINUTE_LIMIT}; sandbox keys at most 60). null: the default.`,
      }),
  })
  .strict()
  .openapi('CreateApiKeyRequest');
export type CreateKeyBody = z.infer<typeof createKeyBody>;

export const keyMetadata = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    kind: z.enum(KEY_KINDS),
    keyPrefix: z.string().openapi({ example: 'svc_live_Ab3dE9xZ' }),
    scopes: z.array(z.enum(KEY_SCOPES)),
    isSandbox: z.boolean(),
    rateLimitPerMin: z.number().int().nullable(),
    createdAt: z.string().datetime(),
    expiresAt: z.string().datetime().nullable(),
    lastUsedAt: z.string().datetime().nullable(),
    revokedAt: z.string().datetime().nullable(),
    rolledToKeyId: z.string().uuid().nullable().openapi({
      description: 'Set once the key was rolled: the id of the key that replaced it. It keeps working until expiresAt.',
    }),
  })
  .openapi('ApiKey');
export type KeyMetadata = z.infer<typeof keyMetadata>;

export const createdKey = keyMetadata
  .extend({ apiKey: z.string().openapi({ description: 'The raw key. Shown once; only its hash is stored.' }) })
  .openapi('CreatedApiKey');

/** One week: the longest an old key may keep working after a roll. */
export const MAX_ROLL_OVERLAP_SECONDS = 7 * 24 * 60 * 60;
export const DEFAULT_ROLL_OVERLAP_SECONDS = 24 * 60 * 60;

export const rollKeyBody = z
  .object({
    expiresInSeconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_ROLL_OVERLAP_SECONDS)
      .optional()
      .openapi({
        description: `How long the old key keeps working, in seconds: ${DEFAULT_ROLL_OVERLAP_SECONDS} (24 hours) when omitted, at most ${MAX_ROLL_OVERLAP_SECONDS} (7 days); 0 ends it now. Never extends the old key's own expiry.`,
        example: 3600,
      }),
  })
  .strict()
  .openapi('RollApiKeyRequest');
export type RollKeyBody = z.infer<typeof rollKeyBody>;

export const rolledKey = createdKey
  .extend({ previousKey: keyMetadata.openapi({ description: 'The rolled key: its expiresAt (when it stops working) and rolledToKeyId.' }) })
  .openapi('RolledApiKey');
