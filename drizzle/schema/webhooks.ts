// Outbound webhooks (endpoints, their signing secrets, the transactional outbox, deliveries and their
// attempts) and checkout sessions.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clinics } from './clinics';
import { createdAt, id, timestamptz, updatedAt } from './columns';
import { orders } from './orders';
import { programs } from './programs';

const clinicId = () =>
  uuid('clinic_id')
    .notNull()
    .references(() => clinics.id, { onDelete: 'cascade' });

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: id(),
    clinicId: clinicId(),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    /** Turned off after 10 consecutive failed attempts; pending and held deliveries wait until it is on again. */
    isActive: boolean('is_active').notNull().default(true),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    lastTriggeredAt: timestamptz('last_triggered_at'),
    disabledAt: timestamptz('disabled_at'),
    deletedAt: timestamptz('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhook_endpoints_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id)],
);

/**
 * The endpoint's signing secrets, encrypted (AES-GCM). The current one has expires_at null; after a
 * rotation the previous one keeps signing until its expires_at (the grace period).
 */
export const webhookSecrets = pgTable(
  'webhook_secrets',
  {
    id: id(),
    clinicId: clinicId(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** base64(iv || ciphertext) of the whole secret string (whsec_...). */
    encryptedSecret: text('encrypted_secret').notNull(),
    expiresAt: timestamptz('expires_at'),
    createdAt: createdAt(),
  },
  (t) => [index('webhook_secrets_endpoint_id_idx').on(t.endpointId, t.createdAt)],
);

/** An event recorded in the same transaction as the change that caused it. Payload: ids only. */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    id: id(),
    clinicId: clinicId(),
    eventType: text('event_type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** Set once deliveries were created for every subscribed endpoint. */
    dispatchedAt: timestamptz('dispatched_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('outbox_events_undispatched_idx').on(t.createdAt).where(sql`${t.dispatchedAt} is null`),
    index('outbox_events_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    // The retention sweep deletes by age across clinics (events are kept 30 days).
    index('outbox_events_created_at_idx').on(t.createdAt),
  ],
);

/**
 * pending: waiting for its next attempt; held: created while its endpoint was off, listed but not
 * attempted until the endpoint is turned on (then pending, due at once); succeeded; failed.
 */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'held', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** One event for one endpoint; retried until it succeeds or its schedule is exhausted (failed). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: id(),
    clinicId: clinicId(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** The event delivered; null for a test send (it has no event: its example body is made at send time). */
    outboxEventId: uuid('outbox_event_id').references(() => outboxEvents.id, { onDelete: 'cascade' }),
    eventType: text('event_type').notNull(),
    /** A test send (POST /api/v1/webhooks/{id}/test): one attempt, made at once, never retried or replayed. */
    isTest: boolean('is_test').notNull().default(false),
    /** X-Service-Idempotency-Key / webhook-id: the same across retries and replays. */
    idempotencyKey: text('idempotency_key').notNull(),
    status: text('status').$type<WebhookDeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at'),
    /**
     * While an attempt is being sent: its lease. Only the dispatcher that set it sends the attempt, and
     * the endpoint's leases count against its failure budget (docs/webhooks.md, "Who sends").
     */
    claimedUntil: timestamptz('claimed_until'),
    lastAttemptAt: timestamptz('last_attempt_at'),
    lastResponseStatus: integer('last_response_status'),
    lastError: text('last_error'),
    succeededAt: timestamptz('succeeded_at'),
    /** The delivery this one replays, if any. */
    replayOf: uuid('replay_of'),
    createdAt: createdAt(),
  },
  (t) => [
    index('webhook_deliveries_clinic_id_endpoint_id_created_at_idx').on(t.clinicId, t.endpointId, t.createdAt, t.id),
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    // An endpoint's due deliveries in its order: the batch claim's per-endpoint turns (deliveries/claim.ts).
    index('webhook_deliveries_endpoint_due_idx').on(t.endpointId, t.nextAttemptAt, t.createdAt, t.id).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_in_flight_idx').on(t.endpointId).where(sql`${t.claimedUntil} is not null`),
    // An event's deliveries (GET /api/v1/events/{id}) and the cascade when the retention sweep deletes it.
    index('webhook_deliveries_outbox_event_id_idx').on(t.outboxEventId, t.endpointId),
    uniqueIndex('webhook_deliveries_endpoint_event_key').on(t.endpointId, t.outboxEventId).where(sql`${t.replayOf} is null`),
    index('webhook_deliveries_test_created_at_idx').on(t.createdAt).where(sql`${t.isTest}`),
    check('webhook_deliveries_status_check', sql`${t.status} in ('pending', 'held', 'succeeded', 'failed')`),
    check('webhook_deliveries_test_event_check', sql`${t.isTest} = (${t.outboxEventId} is null)`),
  ],
);

/** Every HTTP attempt of a delivery (X-Service-Delivery-Id is new for each). */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: id(),
    clinicId: clinicId(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptNumber: integer('attempt_number').notNull(),
    responseStatus: integer('response_status'),
    durationMs: integer('duration_ms').notNull(),
    /** Our description of the failure (null on success). */
    error: text('error'),
    /** The failure's kind, a closed set (ATTEMPT_ERRORS); null on success. */
    errorKind: text('error_kind'),
    /** The first 1 KiB of the receiver's answer, as text; null when nothing was answered. */
    responseBody: text('response_body'),
    createdAt: createdAt(),
  },
  (t) => [
    index('webhook_attempts_delivery_id_idx').on(t.deliveryId, t.attemptNumber),
    check(
      'webhook_attempts_error_kind_check',
      sql`${t.errorKind} in ('timeout', 'connection_refused', 'dns', 'tls', 'invalid_response', 'http_status')`,
    ),
  ],
);

export const CHECKOUT_SESSION_STATUSES = ['created', 'completed', 'expired'] as const;
export type CheckoutSessionStatus = (typeof CHECKOUT_SESSION_STATUSES)[number];

/** A browser checkout for one program; its token is stored hashed and shown once. */
export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: id(),
    clinicId: clinicId(),
    programId: uuid('program_id')
      .notNull()
      .references(() => programs.id, { onDelete: 'restrict' }),
    /** SHA-256 (hex) of the session token handed to the browser. */
    tokenHash: text('token_hash').notNull(),
    status: text('status').$type<CheckoutSessionStatus>().notNull().default('created'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    successUrl: text('success_url'),
    orderId: uuid('order_id').references(() => orders.id, { onDelete: 'set null' }),
    expiresAt: timestamptz('expires_at').notNull(),
    completedAt: timestamptz('completed_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('checkout_sessions_token_hash_key').on(t.tokenHash),
    index('checkout_sessions_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    check('checkout_sessions_status_check', sql`${t.status} in ('created', 'completed', 'expired')`),
  ],
);
