// The audit trail's writes and its chain check (docs/audit-log.md). Rows are appended only; the insert
// trigger (migration 0020, on the month partitions since 0022) sets seq, prev_hash and hash under the
// clinic's advisory lock.
import { sql } from 'drizzle-orm';
import { type AuditActorKind, type AuditChange, auditChainAnchors, auditEvents } from '../../../drizzle/schema';
import { sha256Hex } from '../crypto/bytes';
import type { Queryable } from '../db/client';
import { rowsOf } from '../db/sql';

export interface AuditEventInput {
  clinicId: string;
  actorKind: AuditActorKind;
  actorId: string;
  actorLabel?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  requestId?: string | null;
  action: string;
  route?: string | null;
  targetType: string;
  targetId?: string | null;
  changes?: Record<string, AuditChange>;
  createdAt?: Date;
}

/** User agents are kept to this length (a header may be long; the trail needs the client, not a novel). */
const MAX_USER_AGENT = 512;

/** Appends the rows in one statement (the caller's transaction, when it has one). */
export async function appendAuditEvents(db: Queryable, events: AuditEventInput[]): Promise<void> {
  if (events.length === 0) return;
  await auditInsert(db, events);
}

/**
 * The insert of the rows, unsent: a caller may send it as a statement of its own or inside another one
 * (a data-modifying WITH, as idempotency.ts does with the kept answer, to save a round trip).
 */
export function auditInsert(db: Queryable, events: AuditEventInput[]) {
  return db.insert(auditEvents).values(
    events.map((e) => ({
      clinicId: e.clinicId,
      actorKind: e.actorKind,
      actorId: e.actorId,
      actorLabel: e.actorLabel ?? null,
      ip: e.ip ?? null,
      userAgent: e.userAgent ? e.userAgent.slice(0, MAX_USER_AGENT) : null,
      requestId: e.requestId ?? null,
      action: e.action,
      route: e.route ?? null,
      targetType: e.targetType,
      targetId: e.targetId ?? null,
      changes: e.changes ?? {},
      ...(e.createdAt ? { createdAt: e.createdAt } : {}),
    })),
  );
}

/**
 * The id an audit row is shown under: its place in its clinic's chain (seq), never the table's own id.
 * That one is a single sequence for every clinic, so the gap between two of a clinic's rows would tell
 * it how many writes the other clinics made meanwhile (issue 37, item 9). A seq is unique in its clinic
 * (the insert trigger under the clinic's lock, the per-partition unique index) and every read of the
 * trail is one clinic's.
 */
export const auditEventId = (seq: number | string): string => String(seq);

export interface ChainCheck {
  intact: boolean;
  checked: number;
  /** The first row that breaks the chain: its id (auditEventId) and seq; null when intact. */
  brokenAt: { id: string; seq: number } | null;
}

/** Rows read per query while walking a chain. */
export const VERIFY_BATCH = 2_000;

/**
 * Walks the clinic's chain from its start: seq 1, or, once the retention has dropped the clinic's oldest
 * months, the anchor recorded with the drop (audit_chain_anchors: the last dropped row's seq and hash).
 * Each row's seq follows the last, its prev_hash is the last row's hash, and its hash is
 * sha256(prev_hash || content), recomputed here (the content as the database renders it,
 * audit_event_content). Stops at the first broken row.
 */
export async function verifyAuditChain(db: Queryable, clinicId: string): Promise<ChainCheck> {
  let lastSeq = 0;
  let lastHash = '';
  let checked = 0;
  for (let first = true; ; first = false) {
    // The first batch brings the anchor along (one statement, as before the retention existed).
    const anchor = (column: 'seq' | 'hash') =>
      first ? sql`(select a.${sql.raw(column)} from ${auditChainAnchors} a where a.clinic_id = ${clinicId}::uuid)` : sql`null`;
    const rows = await rowsOf<{
      seq: string;
      prev_hash: string;
      hash: string;
      content: string;
      anchor_seq: string | null;
      anchor_hash: string | null;
    }>(
      db,
      sql`select e.seq::text as seq, e.prev_hash, e.hash, audit_event_content(e) as content,
            ${anchor('seq')}::text as anchor_seq, ${anchor('hash')} as anchor_hash
          from ${auditEvents} e where e.clinic_id = ${clinicId}::uuid and e.seq > greatest(${lastSeq}::bigint, coalesce(${anchor('seq')}, 0))
          order by e.seq asc limit ${VERIFY_BATCH}`,
    );
    if (first && rows[0]?.anchor_seq != null) {
      lastSeq = Number(rows[0].anchor_seq);
      lastHash = rows[0].anchor_hash ?? '';
    }
    for (const row of rows) {
      const seq = Number(row.seq);
      const expected = await sha256Hex(row.prev_hash + row.content);
      if (seq !== lastSeq + 1 || row.prev_hash !== lastHash || row.hash !== expected) {
        return { intact: false, checked: checked + 1, brokenAt: { id: auditEventId(seq), seq } };
      }
      checked++;
      lastSeq = seq;
      lastHash = row.hash;
    }
    if (rows.length < VERIFY_BATCH) return { intact: true, checked, brokenAt: null };
  }
}
