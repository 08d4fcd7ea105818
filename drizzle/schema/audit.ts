import { sql } from 'drizzle-orm';
import { bigint, check, index, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { clinics } from './clinics';
import { createdAt, timestamptz } from './columns';

export const AUDIT_ACTOR_KINDS = ['key', 'user', 'system'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/** One changed field: its new value (and old value, where read), or only its name for patient data and secrets. */
export type AuditChange = { old?: unknown; new?: unknown; redacted?: true };

/**
 * The audit trail (docs/audit-log.md): who did what, when. Append-only, enforced by triggers in
 * PostgreSQL (migration 0020): UPDATE, DELETE and TRUNCATE raise, for every role. Each clinic's rows
 * form a hash chain: `seq` counts the clinic's rows from 1, `prev_hash` is the hash of row seq - 1 ('' for
 * the first) and `hash` = sha256(prev_hash || canonical content); the insert trigger sets all three
 * under a per-clinic advisory lock, so two writers cannot fork the chain.
 *
 * Partitioned by month on created_at (migration 0022): the key is (id, created_at), and the unique
 * (clinic_id, seq) index, which a partitioned parent cannot hold without created_at, is created on each
 * partition by create_month_partition (so it is not declared here): it refuses a fork within a month.
 * Retention drops whole months older than six years (docs/audit-log.md).
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id),
    /** Set by the insert trigger: the row's place in its clinic's chain, from 1. */
    seq: bigint('seq', { mode: 'number' }).notNull().default(0),
    createdAt: createdAt(),
    actorKind: text('actor_kind').$type<AuditActorKind>().notNull(),
    /** The key's id, the user's id, or the system job's name. */
    actorId: text('actor_id').notNull(),
    /** The key's prefix or the user's email, to read the row without a join. */
    actorLabel: text('actor_label'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    requestId: text('request_id'),
    /** e.g. coupon.updated, patient_data.read */
    action: text('action').notNull(),
    /** The route pattern the action came through, e.g. /api/v1/coupons/{id}. */
    route: text('route'),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    /** Per changed field: { new, old? } or { redacted: true } for patient data and secrets (names only). */
    changes: jsonb('changes').$type<Record<string, AuditChange>>().notNull().default(sql`'{}'::jsonb`),
    prevHash: text('prev_hash').notNull().default(''),
    hash: text('hash').notNull().default(''),
  },
  (t) => [
    primaryKey({ name: 'audit_events_pkey', columns: [t.id, t.createdAt] }),
    index('audit_events_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    index('audit_events_clinic_id_target_idx').on(t.clinicId, t.targetType, t.targetId, t.createdAt),
    index('audit_events_clinic_id_actor_id_idx').on(t.clinicId, t.actorId, t.createdAt),
    check('audit_events_actor_kind_check', sql`${t.actorKind} in ('key', 'user', 'system')`),
  ],
);

/**
 * Where a clinic's chain starts once the retention has dropped its oldest month(s): the seq and hash of
 * the last row dropped, recorded in the same transaction as the drop. verifyAuditChain starts there (the
 * next kept row's prev_hash must equal `hash`), so rows removed behind the trail at the start of the
 * chain are still found.
 */
export const auditChainAnchors = pgTable('audit_chain_anchors', {
  clinicId: uuid('clinic_id')
    .primaryKey()
    .references(() => clinics.id),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  hash: text('hash').notNull(),
  /** When the last partition holding this clinic's rows was dropped. */
  droppedAt: timestamptz('dropped_at').notNull().defaultNow(),
});

/**
 * Each clinic's chain head: the seq and hash of its last row, kept by the insert trigger (under the
 * clinic's advisory lock) so the next row finds them with one primary-key read instead of searching
 * every month partition's (clinic_id, seq) index (migration 0022).
 */
export const auditChainHeads = pgTable('audit_chain_heads', {
  clinicId: uuid('clinic_id')
    .primaryKey()
    .references(() => clinics.id),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  hash: text('hash').notNull(),
});
