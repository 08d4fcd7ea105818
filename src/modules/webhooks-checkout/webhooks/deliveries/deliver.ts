// One delivery function for every path (the local dispatcher, the dev flush, and later QStash's
// callback): load, sign fresh, POST, record the attempt, schedule the next one (docs/webhooks.md).
import { and, asc, eq, isNull, lte, or, sql } from 'drizzle-orm';
import { outboxEvents, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import type { Database, Queryable } from '../../../../platform/db/client';
import { rowsOf } from '../../../../platform/db/sql';
import { alertEndpointDisabled } from './endpoint-disabled-alert';
import { dispatchOutbox } from './outbox-fan-out';
import { nextAttemptAt } from './schedule';
import { type DeliveryOptions, refusedDestination, signAndSend } from './send-attempt';

export { DELIVERY_TIMEOUT_MS, type DeliveryOptions, type SigningSecrets } from './send-attempt';

/** At this many consecutive failed attempts the endpoint is turned off (spec, "Limits"). */
export const ENDPOINT_FAILURE_CUTOFF = 10;
/** An attempt in progress holds its delivery this long (its lease), so a second dispatcher does not send it too. */
export const ATTEMPT_LEASE_MS = 60_000;
/** Deliveries attempted at the same time by one dispatcher run. */
export const DELIVERY_CONCURRENCY = 10;

/** A delivery's endpoint, within the delivery's clinic. */
export const endpointOfDelivery = and(
  eq(webhookEndpoints.id, webhookDeliveries.endpointId),
  eq(webhookEndpoints.clinicId, webhookDeliveries.clinicId),
)!;

/** Pending deliveries of endpoints that are on, not held by an attempt in flight at `now`. */
export const deliverable = (now: Date) =>
  and(
    eq(webhookDeliveries.status, 'pending'),
    eq(webhookEndpoints.isActive, true),
    isNull(webhookEndpoints.deletedAt),
    or(isNull(webhookDeliveries.claimedUntil), lte(webhookDeliveries.claimedUntil, now)),
  );

export type AttemptOutcome =
  | 'succeeded'
  /** Failed; another attempt is scheduled. */
  | 'retrying'
  /** Failed and the schedule is exhausted (or the endpoint was deleted). */
  | 'failed'
  /** Not attempted: unknown, done already, not due, held by another dispatcher, or the endpoint is off. */
  | 'skipped';

/** The body every attempt of a delivery sends: ids only, byte for byte the same across attempts. */
export function deliveryBody(event: { id: string; eventType: string; createdAt: Date; payload: Record<string, unknown> }): string {
  return JSON.stringify({ id: event.id, type: event.eventType, createdAt: event.createdAt.toISOString(), data: event.payload });
}

/** Why an attempt was not made. */
export type SkipReason = 'not_found' | 'not_pending' | 'endpoint_off' | 'not_due' | 'claimed' | 'endpoint_busy';

export interface AttemptResult {
  outcome: AttemptOutcome;
  /** Set when outcome is skipped. */
  skipReason?: SkipReason;
  /** Attempts made so far and when the next one is due (pending deliveries), after this call. */
  attempts: number;
  nextAttemptAt: Date | null;
}

/** attemptDeliveryDetailed's outcome alone (the local dispatcher and the flush need no more). */
export async function attemptDelivery(db: Database, deliveryId: string, now: Date, options: DeliveryOptions): Promise<AttemptOutcome> {
  return (await attemptDeliveryDetailed(db, deliveryId, now, options)).outcome;
}

/** Attempts of the endpoint being sent right now: deliveries under an unexpired lease. */
const inFlightOf = (clinicId: string, endpointId: string, now: Date) => sql`
  select count(*)::int as "inFlight" from webhook_deliveries
  where endpoint_id = ${endpointId} and clinic_id = ${clinicId} and status = 'pending' and claimed_until > ${now.toISOString()}::timestamptz`;

type Claim = { claimed: true } | { claimed: false; reason: 'endpoint_off' | 'endpoint_deleted' | 'claimed' | 'not_due' | 'endpoint_busy' };

/**
 * Takes the lease on attempt `attempts + 1` of a delivery, under the endpoint's row lock. Every claim
 * of an endpoint's attempts is serialised on that lock, so the endpoint's budget holds under any
 * concurrency: consecutive failures plus attempts in flight never exceed the cut-off, and therefore
 * no attempt is ever sent after the 10th consecutive failure (each in-flight attempt may be that
 * failure). A second dispatcher finds the lease and does not send the same attempt.
 */
async function claimAttempt(
  db: Database,
  row: { id: string; clinicId: string; endpointId: string; attempts: number },
  now: Date,
  ignoreSchedule: boolean,
): Promise<Claim> {
  return db.transaction(async (tx) => {
    const [endpoint] = await tx
      .select({
        isActive: webhookEndpoints.isActive,
        deletedAt: webhookEndpoints.deletedAt,
        consecutiveFailures: webhookEndpoints.consecutiveFailures,
      })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, row.endpointId), eq(webhookEndpoints.clinicId, row.clinicId)))
      .for('update');
    if (!endpoint || endpoint.deletedAt) return { claimed: false, reason: 'endpoint_deleted' };
    if (!endpoint.isActive) return { claimed: false, reason: 'endpoint_off' };
    // A statement of its own, after the lock: its snapshot sees every lease committed before it.
    const [counted] = await rowsOf<{ inFlight: number }>(tx, inFlightOf(row.clinicId, row.endpointId, now));
    const inFlight = counted?.inFlight ?? 0;
    if (endpoint.consecutiveFailures + inFlight >= ENDPOINT_FAILURE_CUTOFF) return { claimed: false, reason: 'endpoint_busy' };
    const claimed = await tx
      .update(webhookDeliveries)
      .set({ claimedUntil: new Date(now.getTime() + ATTEMPT_LEASE_MS) })
      .where(
        and(
          eq(webhookDeliveries.id, row.id),
          eq(webhookDeliveries.clinicId, row.clinicId),
          eq(webhookDeliveries.status, 'pending'),
          eq(webhookDeliveries.attempts, row.attempts),
          or(isNull(webhookDeliveries.claimedUntil), lte(webhookDeliveries.claimedUntil, now)),
          ignoreSchedule ? undefined : or(isNull(webhookDeliveries.nextAttemptAt), lte(webhookDeliveries.nextAttemptAt, now)),
        ),
      )
      .returning({ id: webhookDeliveries.id });
    return claimed.length === 1 ? { claimed: true } : { claimed: false, reason: 'claimed' };
  });
}

/** Closes a pending delivery of a deleted endpoint as failed, without sending. */
async function closeForDeletedEndpoint(db: Database, row: { id: string; clinicId: string; attempts: number; nextAttemptAt: Date | null }) {
  await db
    .update(webhookDeliveries)
    .set({ status: 'failed', nextAttemptAt: null, claimedUntil: null, lastError: 'endpoint deleted' })
    .where(and(eq(webhookDeliveries.id, row.id), eq(webhookDeliveries.clinicId, row.clinicId), eq(webhookDeliveries.status, 'pending')));
  return { outcome: 'failed' as const, attempts: row.attempts, nextAttemptAt: null };
}

/**
 * Attempts one delivery now. Skips it when it is not pending, not due (unless ignoreSchedule), held
 * by another dispatcher, its endpoint is off (it stays pending and goes out once the endpoint is on
 * again) or the endpoint's failure budget is taken by attempts in flight; a delivery of a deleted
 * endpoint is closed as failed. Otherwise signs fresh (new X-Service-Delivery-Id, new timestamp),
 * POSTs with a 5 s timeout, records a webhook_attempts row and updates the delivery and the
 * endpoint's health in one transaction.
 */
export async function attemptDeliveryDetailed(
  db: Database,
  deliveryId: string,
  now: Date,
  options: DeliveryOptions,
): Promise<AttemptResult> {
  const [row] = await db
    .select({
      id: webhookDeliveries.id,
      clinicId: webhookDeliveries.clinicId,
      endpointId: webhookDeliveries.endpointId,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
      claimedUntil: webhookDeliveries.claimedUntil,
      idempotencyKey: webhookDeliveries.idempotencyKey,
      url: webhookEndpoints.url,
      isActive: webhookEndpoints.isActive,
      deletedAt: webhookEndpoints.deletedAt,
      eventId: outboxEvents.id,
      eventType: outboxEvents.eventType,
      payload: outboxEvents.payload,
      eventCreatedAt: outboxEvents.createdAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, endpointOfDelivery)
    .innerJoin(
      outboxEvents,
      and(eq(outboxEvents.id, webhookDeliveries.outboxEventId), eq(outboxEvents.clinicId, webhookDeliveries.clinicId)),
    )
    .where(eq(webhookDeliveries.id, deliveryId))
    .limit(1);
  if (!row) return { outcome: 'skipped', skipReason: 'not_found', attempts: 0, nextAttemptAt: null };
  const skipped = (skipReason: SkipReason): AttemptResult => ({
    outcome: 'skipped',
    skipReason,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
  });
  // Cheap checks on what was read first; the claim below decides under the lock.
  if (row.status !== 'pending') return skipped('not_pending');
  if (row.deletedAt) return closeForDeletedEndpoint(db, row);
  if (!row.isActive) return skipped('endpoint_off');
  if (!options.ignoreSchedule && row.nextAttemptAt && row.nextAttemptAt.getTime() > now.getTime()) return skipped('not_due');
  if (row.claimedUntil && row.claimedUntil.getTime() > now.getTime()) return skipped('claimed');

  const claim = await claimAttempt(db, row, now, options.ignoreSchedule ?? false);
  if (!claim.claimed) return claim.reason === 'endpoint_deleted' ? closeForDeletedEndpoint(db, row) : skipped(claim.reason);

  const attemptNumber = row.attempts + 1;
  const attemptId = crypto.randomUUID();
  const body = deliveryBody({ id: row.eventId, eventType: row.eventType, createdAt: row.eventCreatedAt, payload: row.payload });
  const result = (await refusedDestination(options, row)) ?? (await signAndSend(db, row, body, attemptId, now, options));
  const succeeded = result.error === null;
  const next = succeeded ? null : nextAttemptAt(attemptNumber, now, result.retryAfterMs, options.random);

  // The endpoint first, as in the claim (one lock order, no deadlock); the lease ends in the same
  // transaction as the failure is counted, so a claim never sees neither or both. A failure that does
  // not count leaves the endpoint as it is (it was not called: lastTriggeredAt stays too).
  await db.transaction(async (tx) => {
    if (succeeded || result.countsAgainstEndpoint) {
      const [health] = await tx
        .update(webhookEndpoints)
        .set(
          succeeded
            ? { consecutiveFailures: 0, lastTriggeredAt: now, updatedAt: now }
            : {
                consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1`,
                lastTriggeredAt: now,
                isActive: sql`case when ${webhookEndpoints.consecutiveFailures} + 1 >= ${ENDPOINT_FAILURE_CUTOFF} then false else ${webhookEndpoints.isActive} end`,
                disabledAt: sql`case when ${webhookEndpoints.consecutiveFailures} + 1 >= ${ENDPOINT_FAILURE_CUTOFF} and ${webhookEndpoints.isActive} then ${now.toISOString()}::timestamptz else ${webhookEndpoints.disabledAt} end`,
                updatedAt: now,
              },
        )
        .where(and(eq(webhookEndpoints.id, row.endpointId), eq(webhookEndpoints.clinicId, row.clinicId)))
        .returning({
          isActive: webhookEndpoints.isActive,
          consecutiveFailures: webhookEndpoints.consecutiveFailures,
          disabledAt: webhookEndpoints.disabledAt,
        });
      // This attempt turned it off: the failure that reached the cut-off on an endpoint that was on (the
      // budget lets no attempt be in flight past it, and turning it on resets the count), so once per turn-off.
      if (
        !succeeded &&
        health &&
        !health.isActive &&
        health.consecutiveFailures === ENDPOINT_FAILURE_CUTOFF &&
        health.disabledAt?.getTime() === now.getTime()
      ) {
        await alertEndpointDisabled(tx, options.messaging, {
          clinicId: row.clinicId,
          endpointId: row.endpointId,
          url: row.url,
          lastError: result.error ?? 'failed',
          failures: health.consecutiveFailures,
          disabledAt: now,
        });
      }
    }
    await tx.insert(webhookAttempts).values({
      id: attemptId,
      clinicId: row.clinicId,
      deliveryId: row.id,
      attemptNumber,
      responseStatus: result.status,
      durationMs: result.durationMs,
      error: result.error,
      errorKind: result.errorKind,
      responseBody: result.responseBody,
      createdAt: now,
    });
    await tx
      .update(webhookDeliveries)
      .set({
        status: succeeded ? 'succeeded' : next ? 'pending' : 'failed',
        attempts: attemptNumber,
        lastAttemptAt: now,
        lastResponseStatus: result.status,
        lastError: result.error,
        nextAttemptAt: next,
        claimedUntil: null,
        ...(succeeded ? { succeededAt: now } : {}),
      })
      .where(and(eq(webhookDeliveries.id, row.id), eq(webhookDeliveries.clinicId, row.clinicId)));
  });
  return { outcome: succeeded ? 'succeeded' : next ? 'retrying' : 'failed', attempts: attemptNumber, nextAttemptAt: next };
}

export interface RunSummary {
  dispatched: number;
  attempted: number;
  succeeded: number;
  failed: number;
}

/** Runs attempts `DELIVERY_CONCURRENCY` at a time and counts what happened. */
async function attemptAll(db: Database, ids: string[], now: Date, options: DeliveryOptions): Promise<Omit<RunSummary, 'dispatched'>> {
  const summary = { attempted: 0, succeeded: 0, failed: 0 };
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const outcome = await attemptDelivery(db, ids[next++]!, now, options);
      if (outcome === 'skipped') continue;
      summary.attempted++;
      if (outcome === 'succeeded') summary.succeeded++;
      else summary.failed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELIVERY_CONCURRENCY, ids.length) }, worker));
  return summary;
}

/**
 * The local dispatcher (development and the cron trigger): fans the outbox out, then attempts up to
 * `limit` due pending deliveries of active endpoints, oldest due first.
 */
export async function runDueDeliveries(db: Database, now: Date, limit: number, options: DeliveryOptions): Promise<RunSummary> {
  const dispatched = await dispatchOutbox(db, now);
  const due = await dueInTurns(db, now, limit);
  return {
    dispatched,
    ...(await attemptAll(
      db,
      due.map((r) => r.id),
      now,
      options,
    )),
  };
}

/**
 * Up to `limit` due pending deliveries of endpoints that are on, taken in turns across endpoints: every
 * endpoint's oldest due delivery first (oldest due first among them), then every endpoint's second, and
 * so on. So one endpoint with 10,000 due (a recover, an endpoint turned on again) does not keep another
 * endpoint's, or another clinic's, fresh events waiting behind it, and still gets the whole run when it
 * is alone. One statement; the window runs over the due rows only (the partial due index).
 */
export async function dueInTurns(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<{ id: string; attempts: number; nextAttemptAt: Date }[]> {
  const at = now.toISOString();
  const rows = await rowsOf<{ id: string; attempts: number; next_attempt_at: string }>(
    db,
    sql`
    select id, attempts, next_attempt_at from (
      select d.id, d.attempts, d.next_attempt_at, d.created_at,
        row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.created_at, d.id) as turn
      from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id and e.clinic_id = d.clinic_id
      where d.status = 'pending' and d.next_attempt_at <= ${at}::timestamptz
        and (d.claimed_until is null or d.claimed_until <= ${at}::timestamptz)
        and e.is_active and e.deleted_at is null
    ) due
    order by turn, next_attempt_at, created_at, id
    limit ${limit}`,
  );
  return rows.map((r) => ({ id: r.id, attempts: r.attempts, nextAttemptAt: new Date(r.next_attempt_at) }));
}

/** Deliveries one flush attempts at most. */
export const FLUSH_LIMIT = 1_000;

/** The dev flush: every pending delivery of the clinic's active endpoints, now, ignoring the schedule. */
export async function flushClinicDeliveries(ctx: HandlerContext, options: DeliveryOptions): Promise<RunSummary> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const dispatched = await dispatchOutbox(db, now);
  const pending = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, endpointOfDelivery)
    .where(and(eq(webhookDeliveries.clinicId, clinicId), deliverable(now)))
    .orderBy(asc(webhookDeliveries.createdAt))
    .limit(FLUSH_LIMIT);
  return {
    dispatched,
    ...(await attemptAll(
      db,
      pending.map((r) => r.id),
      now,
      { ...options, ignoreSchedule: true },
    )),
  };
}
