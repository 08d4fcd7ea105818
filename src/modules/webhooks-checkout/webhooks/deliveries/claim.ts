// Claiming attempts in batches (docs/webhooks.md, "Who sends"): one transaction takes the leases on up
// to `limit` due attempts across endpoints, under the endpoints' row locks, and returns everything
// sending them needs. Two statements, however many attempts: the endpoints locked, then the leases.
import { sql } from 'drizzle-orm';
import type { Database, Queryable } from '../../../../platform/db/client';
import { rowsOf } from '../../../../platform/db/sql';

/** At this many consecutive failed attempts the endpoint is turned off (spec, "Limits"). */
export const ENDPOINT_FAILURE_CUTOFF = 10;
/**
 * An attempt in progress holds its delivery this long (its lease), so a second dispatcher does not send
 * it too. A dispatcher that dies between its claim and its record loses nothing: the lease runs out and
 * the attempt is made again (same idempotency key; receivers de-duplicate), uncounted in between.
 */
export const ATTEMPT_LEASE_MS = 60_000;

/** A claimed attempt: the delivery, its endpoint's URL and its event. */
export interface ClaimedAttempt {
  id: string;
  clinicId: string;
  endpointId: string;
  /** Attempts recorded before this one. */
  attempts: number;
  idempotencyKey: string;
  url: string;
  eventId: string;
  eventType: string;
  payload: Record<string, unknown>;
  eventCreatedAt: Date;
}

export interface ClaimScope {
  /** Attempts taken at most. */
  limit: number;
  /** Only these deliveries (QStash's callback, the dev flush); else any due delivery. */
  ids?: string[];
  /** Attempt even when next_attempt_at is in the future (the dev flush). */
  ignoreSchedule?: boolean;
}

/**
 * Takes leases on up to `limit` attempts: pending deliveries of endpoints that are on, due (unless
 * ignoreSchedule), not under an unexpired lease. Taken in turns across endpoints (every endpoint's
 * oldest due first, then every endpoint's second, ...), each endpoint's in its order (due time, then
 * creation), and never more of an endpoint than its failure budget allows: consecutive failures plus
 * attempts in flight stay within the cut-off, so no attempt is ever sent after the 10th consecutive
 * failure (each attempt in flight may be that failure).
 *
 * The budget is read after the endpoints' row locks are held, in a statement of its own (its snapshot
 * sees every lease committed before the lock was had). Without `ids`, endpoints another dispatcher holds
 * are skipped (SKIP LOCKED: it is claiming or recording them now); with `ids` the claim waits for them
 * (one caller's attempt must not be dropped because another dispatcher was busy), locking in id order.
 */
export function claimAttempts(db: Database, now: Date, scope: ClaimScope): Promise<ClaimedAttempt[]> {
  if (scope.limit <= 0 || scope.ids?.length === 0) return Promise.resolve([]);
  return db.transaction((tx) => claimWithin(tx, now, scope));
}

/** claimAttempts inside a transaction the caller holds (the dispatcher records one batch and claims the next in one). */
export async function claimWithin(tx: Queryable, now: Date, scope: ClaimScope): Promise<ClaimedAttempt[]> {
  if (scope.limit <= 0 || scope.ids?.length === 0) return [];
  const at = now.toISOString();
  const leaseUntil = new Date(now.getTime() + ATTEMPT_LEASE_MS).toISOString();
  const ids = scope.ids ? sql`and d.id = any(${`{${scope.ids.join(',')}}`}::uuid[])` : sql``;
  const due = scope.ignoreSchedule ? sql`` : sql`and d.next_attempt_at <= ${at}::timestamptz`;
  const waiting = sql`d.endpoint_id = e.id and d.clinic_id = e.clinic_id and d.status = 'pending'
    and (d.claimed_until is null or d.claimed_until <= ${at}::timestamptz) ${due} ${ids}`;

  const locked = await rowsOf<{ id: string }>(
    tx,
    scope.ids
      ? sql`select e.id from webhook_endpoints e
          where e.is_active and e.deleted_at is null and exists (select 1 from webhook_deliveries d where ${waiting})
          order by e.id for update of e`
      : sql`select e.id from webhook_endpoints e
          join lateral (
            select d.next_attempt_at from webhook_deliveries d where ${waiting}
            order by d.next_attempt_at, d.created_at, d.id limit 1
          ) first on true
          where e.is_active and e.deleted_at is null
          order by first.next_attempt_at, e.id
          limit ${scope.limit}
          for update of e skip locked`,
  );
  if (locked.length === 0) return [];
  const endpointIds = `{${locked.map((r) => r.id).join(',')}}`;
  const rows = await rowsOf<{
    id: string;
    clinic_id: string;
    endpoint_id: string;
    attempts: number;
    idempotency_key: string;
    url: string;
    event_id: string;
    event_type: string;
    payload: Record<string, unknown>;
    event_created_at: string | Date;
  }>(
    tx,
    sql`
    with budget as (
      select e.id, e.clinic_id, ${ENDPOINT_FAILURE_CUTOFF} - e.consecutive_failures - (
        select count(*) from webhook_deliveries f
        where f.endpoint_id = e.id and f.clinic_id = e.clinic_id and f.status = 'pending' and f.claimed_until > ${at}::timestamptz
      )::int as free
      from webhook_endpoints e
      where e.id = any(${endpointIds}::uuid[]) and e.is_active and e.deleted_at is null
    ),
    candidates as (
      select d.id, d.next_attempt_at, d.created_at,
        row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.created_at, d.id) as turn
      from budget e
      cross join lateral (
        select d.id, d.endpoint_id, d.next_attempt_at, d.created_at from webhook_deliveries d
        where ${waiting}
        order by d.next_attempt_at, d.created_at, d.id
        limit greatest(e.free, 0)
      ) d
    ),
    picked as (
      select id from candidates
      order by turn, next_attempt_at, created_at, id
      limit ${scope.limit}
    ),
    claimed as (
      update webhook_deliveries d set claimed_until = ${leaseUntil}::timestamptz
      from picked where d.id = picked.id
      returning d.id, d.clinic_id, d.endpoint_id, d.attempts, d.idempotency_key, d.outbox_event_id
    )
    select c.id, c.clinic_id, c.endpoint_id, c.attempts, c.idempotency_key, e.url,
      o.id as event_id, o.event_type, o.payload, o.created_at as event_created_at
    from claimed c
    join webhook_endpoints e on e.id = c.endpoint_id and e.clinic_id = c.clinic_id
    join outbox_events o on o.id = c.outbox_event_id and o.clinic_id = c.clinic_id`,
  );
  return rows.map((r) => ({
    id: r.id,
    clinicId: r.clinic_id,
    endpointId: r.endpoint_id,
    attempts: r.attempts,
    idempotencyKey: r.idempotency_key,
    url: r.url,
    eventId: r.event_id,
    eventType: r.event_type,
    payload: r.payload,
    eventCreatedAt: new Date(r.event_created_at),
  }));
}
