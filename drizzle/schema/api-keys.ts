import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { clinics } from './clinics';
import { createdAt, id, timestamptz } from './columns';
import { users } from './users';

export const KEY_KINDS = ['secret', 'publishable', 'ai_connector'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];
export const KEY_SCOPES = ['read', 'write'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    kind: text('kind').$type<KeyKind>().notNull(),
    /** The first characters of the raw key, shown so people can tell keys apart. */
    keyPrefix: text('key_prefix').notNull(),
    /** Hex SHA-256 of the raw key; the raw key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    scopes: text('scopes').array().$type<KeyScope[]>().notNull(),
    isSandbox: boolean('is_sandbox').notNull().default(false),
    /** Overrides the default per-minute limit for this key; null means the default applies. */
    rateLimitPerMin: integer('rate_limit_per_min'),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: timestamptz('expires_at'),
    lastUsedAt: timestamptz('last_used_at'),
    revokedAt: timestamptz('revoked_at'),
    /** Set when the key was rolled: its successor. It keeps working until its expiresAt (docs/api-keys.md). */
    rolledToKeyId: uuid('rolled_to_key_id').references((): AnyPgColumn => apiKeys.id, { onDelete: 'set null' }),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    check('api_keys_kind_check', sql`${t.kind} in ('secret', 'publishable', 'ai_connector')`),
    check('api_keys_rate_limit_check', sql`${t.rateLimitPerMin} is null or ${t.rateLimitPerMin} > 0`),
  ],
);

/**
 * One row per request made with an API key; written off the request path. Partitioned by month on
 * created_at (migration 0022, docs/request-logs.md): the key is (id, created_at) because a partitioned
 * table's keys must hold the partition key; retention drops whole months.
 */
export const requestLogs = pgTable(
  'request_logs',
  {
    id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    apiKeyId: uuid('api_key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    requestId: text('request_id').notNull(),
    method: text('method').notNull(),
    /** The route pattern (e.g. /api/v1/orders/{id}), never the concrete path with ids. */
    route: text('route').notNull(),
    status: smallint('status').notNull(),
    durationMs: integer('duration_ms').notNull(),
    createdAt: createdAt(),
    // The fields below (issue 30) are null in rows written before them. None holds a body, a query
    // string or a header that can carry patient data or a secret (docs/request-logs.md).
    /** The concrete path (ids included), never the query string; cut at 1,024 characters. */
    path: text('path'),
    /** The error code of the answer (NOT_FOUND, RATE_LIMIT_EXCEEDED, ...); null for a success. */
    errorCode: text('error_code'),
    /** The request's Idempotency-Key as the client sent it (a write's retry token), if any. */
    idempotencyKey: text('idempotency_key'),
    /** The answer was a stored one replayed for a retry with the same Idempotency-Key. */
    idempotentReplayed: boolean('idempotent_replayed').notNull().default(false),
    /** A rate limit refused the request (429 RATE_LIMIT_EXCEEDED). */
    rateLimited: boolean('rate_limited').notNull().default(false),
    /** RateLimit-Remaining as answered (null: the store did not say). */
    rateLimitRemaining: integer('rate_limit_remaining'),
    /** The client address as Cloudflare's edge gave it (CF-Connecting-IP). */
    clientIp: text('client_ip'),
    /** The User-Agent header, cut at 512 characters. */
    userAgent: text('user_agent'),
    /** The client's own X-Request-Id when it sent a valid one (issue 37): data, never the row's request id. */
    clientRequestId: text('client_request_id'),
  },
  (t) => [
    index('request_logs_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    // GET /request-logs/{requestId}.
    index('request_logs_clinic_id_request_id_idx').on(t.clinicId, t.requestId),
    // GET /request-logs/{requestId} by the client's own id; most requests send none.
    index('request_logs_clinic_id_client_request_id_idx').on(t.clinicId, t.clientRequestId).where(sql`client_request_id is not null`),
    index('request_logs_api_key_id_created_at_idx').on(t.apiKeyId, t.createdAt),
    // No index on created_at alone: retention drops whole month partitions instead of deleting by age.
    primaryKey({ name: 'request_logs_pkey', columns: [t.id, t.createdAt] }),
  ],
);

export const IDEMPOTENCY_STATES = ['running', 'done'] as const;
export type IdempotencyState = (typeof IDEMPOTENCY_STATES)[number];

/**
 * An Idempotency-Key of a write (docs/api-conventions.md, "Idempotent requests"): the first request's
 * answer, kept 24 hours for the clinic. The key itself is stored only hashed, and the stored answer
 * sealed with the deployment's data key (it may hold a secret shown once, or patient details).
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    /** Hex SHA-256 of the Idempotency-Key header. */
    keyHash: text('key_hash').notNull(),
    /** Hex SHA-256 of the request: method, path with query string, raw body. */
    requestHash: text('request_hash').notNull(),
    state: text('state').$type<IdempotencyState>().notNull().default('running'),
    responseStatus: smallint('response_status'),
    /** base64(iv || AES-GCM ciphertext) of { headers, body }. */
    sealedResponse: text('sealed_response'),
    createdAt: createdAt(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('idempotency_keys_clinic_id_key_hash_key').on(t.clinicId, t.keyHash),
    // The cron sweep deletes by expiry across all clinics.
    index('idempotency_keys_expires_at_idx').on(t.expiresAt),
    check('idempotency_keys_state_check', sql`${t.state} in ('running', 'done')`),
  ],
);
