// One delivery engine for every path (the local dispatcher, the dev flush, QStash's callback): claim
// in batches, sign fresh, POST, record the attempts, schedule the next ones (docs/webhooks.md).
import { and, asc, eq, isNull, lte, or } from 'drizzle-orm';
import { webhookDeliveries, webhookEndpoints } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import type { Database } from '../../../../platform/db/client';
import { isUuid } from '../../../../platform/values/ids';
import { type ClaimedAttempt, claimAttempts, claimWithin } from './claim';
import { dispatchOutbox } from './outbox-fan-out';
import { type AttemptRecord, recordAttempts, recordWithin } from './record';
import { nextAttemptAt } from './schedule';
import { type DeliveryOptions, refusedDestination, type SendResult, signAndSend } from './send-attempt';

export { ATTEMPT_LEASE_MS, ENDPOINT_FAILURE_CUTOFF } from './claim';
export { DELIVERY_TIMEOUT_MS, type DeliveryOptions, type SigningSecrets } from './send-attempt';

/** Deliveries one claim takes at most (each endpoint's share is also capped by its failure budget, 10). */
export const CLAIM_BATCH = 50;

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
  /** The delivery's endpoint (null: the delivery is unknown). */
  endpointId: string | null;
  nextAttemptAt: Date | null;
}

/** attemptDeliveryDetailed's outcome alone. */
export async function attemptDelivery(db: Database, deliveryId: string, now: Date, options: DeliveryOptions): Promise<AttemptOutcome> {
  return (await attemptDeliveryDetailed(db, deliveryId, now, options)).outcome;
}

/** What every attempt to an endpoint needs first: whether its URL may be called, and its secrets. */
type EndpointPrep = Map<string, { refused: Promise<SendResult | null>; secrets: Promise<string[]> }>;

/**
 * Sends claimed attempts, all at once, and answers their records in the order they finished. The
 * endpoint's secrets and its URL check are had once per endpoint per `prep` (one dispatcher run, at one
 * `now`: the URL is still checked before the run sends to it). Each attempt is signed fresh (new
 * X-Service-Delivery-Id, new timestamp) and POSTed with a 5 s timeout.
 */
async function sendClaimed(
  db: Database,
  claimed: ClaimedAttempt[],
  now: Date,
  options: DeliveryOptions,
  prep: EndpointPrep = new Map(),
): Promise<AttemptRecord[]> {
  for (const row of claimed) {
    if (prep.has(row.endpointId)) continue;
    const refused = refusedDestination(options, { id: row.id, endpointId: row.endpointId, url: row.url });
    // Not fetched when the URL is refused; a rejection is handled where it is awaited.
    const secrets = refused.then((r) => (r ? [] : options.secrets(db, row.clinicId, row.endpointId, now)));
    secrets.catch(() => undefined);
    prep.set(row.endpointId, { refused, secrets });
  }
  const records: AttemptRecord[] = [];
  await Promise.all(
    claimed.map(async (row) => {
      const endpoint = prep.get(row.endpointId)!;
      const attemptId = crypto.randomUUID();
      const body = deliveryBody({ id: row.eventId, eventType: row.eventType, createdAt: row.eventCreatedAt, payload: row.payload });
      const result = (await endpoint.refused) ?? (await signAndSend(await endpoint.secrets, row, body, attemptId, now, options));
      const attemptNumber = row.attempts + 1;
      const succeeded = result.error === null;
      const next = succeeded ? null : nextAttemptAt(attemptNumber, now, result.retryAfterMs, options.random);
      // Pushed as each finishes: the order the endpoint's health is counted in.
      records.push({
        attemptId,
        deliveryId: row.id,
        clinicId: row.clinicId,
        endpointId: row.endpointId,
        url: row.url,
        attemptNumber,
        responseStatus: result.status,
        durationMs: result.durationMs,
        error: result.error,
        errorKind: result.errorKind,
        responseBody: result.responseBody,
        status: succeeded ? 'succeeded' : next ? 'pending' : 'failed',
        nextAttemptAt: next,
        countsAgainstEndpoint: result.countsAgainstEndpoint,
      });
    }),
  );
  return records;
}

/** Sends claimed attempts and records them in one transaction. */
async function sendAndRecord(db: Database, claimed: ClaimedAttempt[], now: Date, options: DeliveryOptions): Promise<AttemptRecord[]> {
  const records = await sendClaimed(db, claimed, now, options);
  await recordAttempts(db, now, records, options.messaging);
  return records;
}

/** Closes a pending delivery of a deleted endpoint as failed, without sending. */
async function closeForDeletedEndpoint(db: Database, row: { id: string; clinicId: string; endpointId: string; attempts: number }) {
  await db
    .update(webhookDeliveries)
    .set({ status: 'failed', nextAttemptAt: null, claimedUntil: null, lastError: 'endpoint deleted' })
    .where(and(eq(webhookDeliveries.id, row.id), eq(webhookDeliveries.clinicId, row.clinicId), eq(webhookDeliveries.status, 'pending')));
  return { outcome: 'failed' as const, attempts: row.attempts, endpointId: row.endpointId, nextAttemptAt: null };
}

/** Why a delivery was not claimed, read after the claim found nothing (a deleted endpoint's is closed). */
async function notClaimed(db: Database, deliveryId: string, now: Date, options: DeliveryOptions): Promise<AttemptResult> {
  const [row] = await db
    .select({
      id: webhookDeliveries.id,
      clinicId: webhookDeliveries.clinicId,
      endpointId: webhookDeliveries.endpointId,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
      claimedUntil: webhookDeliveries.claimedUntil,
      isActive: webhookEndpoints.isActive,
      deletedAt: webhookEndpoints.deletedAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, endpointOfDelivery)
    .where(eq(webhookDeliveries.id, deliveryId))
    .limit(1);
  if (!row) return { outcome: 'skipped', skipReason: 'not_found', attempts: 0, endpointId: null, nextAttemptAt: null };
  const skipped = (skipReason: SkipReason): AttemptResult => ({
    outcome: 'skipped',
    skipReason,
    attempts: row.attempts,
    endpointId: row.endpointId,
    nextAttemptAt: row.nextAttemptAt,
  });
  if (row.status !== 'pending') return skipped('not_pending');
  if (row.deletedAt) return closeForDeletedEndpoint(db, row);
  if (!row.isActive) return skipped('endpoint_off');
  if (!options.ignoreSchedule && row.nextAttemptAt && row.nextAttemptAt.getTime() > now.getTime()) return skipped('not_due');
  if (row.claimedUntil && row.claimedUntil.getTime() > now.getTime()) return skipped('claimed');
  return skipped('endpoint_busy');
}

/**
 * Attempts one delivery now (QStash's callback; tests). Claims it as any batch is claimed (so a
 * dispatcher never sends the same attempt, and the endpoint's failure budget holds); when it cannot be
 * claimed, says why: not pending, not due (unless ignoreSchedule), held by another dispatcher, its
 * endpoint off (it stays pending and goes out once the endpoint is on again) or the endpoint's budget
 * taken by attempts in flight; a delivery of a deleted endpoint is closed as failed.
 */
export async function attemptDeliveryDetailed(
  db: Database,
  deliveryId: string,
  now: Date,
  options: DeliveryOptions,
): Promise<AttemptResult> {
  const claimed = isUuid(deliveryId)
    ? await claimAttempts(db, now, { limit: 1, ids: [deliveryId], ignoreSchedule: options.ignoreSchedule })
    : [];
  if (claimed.length === 0)
    return isUuid(deliveryId)
      ? notClaimed(db, deliveryId, now, options)
      : { outcome: 'skipped', skipReason: 'not_found', attempts: 0, endpointId: null, nextAttemptAt: null };
  const [record] = await sendAndRecord(db, claimed, now, options);
  const outcome = record!.status === 'succeeded' ? 'succeeded' : record!.status === 'pending' ? 'retrying' : 'failed';
  return { outcome, attempts: record!.attemptNumber, endpointId: record!.endpointId, nextAttemptAt: record!.nextAttemptAt };
}

export interface RunSummary {
  dispatched: number;
  attempted: number;
  succeeded: number;
  failed: number;
}

/** Adds a batch's records to a run's summary. */
function count(summary: Omit<RunSummary, 'dispatched'>, records: AttemptRecord[]) {
  summary.attempted += records.length;
  for (const r of records) {
    if (r.status === 'succeeded') summary.succeeded++;
    else summary.failed++;
  }
}

/**
 * The local dispatcher (development and the cron trigger): fans the outbox out, then attempts up to
 * `limit` due pending deliveries of active endpoints in batches (claimWithin: in turns across
 * endpoints, each endpoint's oldest first, within its failure budget). A batch is sent at once; one
 * transaction then records it and claims the next, so a batch costs about 5 database round trips
 * instead of about 12 per attempt.
 */
export async function runDueDeliveries(db: Database, now: Date, limit: number, options: DeliveryOptions): Promise<RunSummary> {
  const dispatched = await dispatchOutbox(db, now);
  const summary = { attempted: 0, succeeded: 0, failed: 0 };
  const prep: EndpointPrep = new Map();
  const nextBatch = () => ({ limit: Math.min(CLAIM_BATCH, limit - summary.attempted) });
  let claimed = await claimAttempts(db, now, nextBatch());
  while (claimed.length > 0) {
    const records = await sendClaimed(db, claimed, now, options, prep);
    count(summary, records);
    claimed = await db.transaction(async (tx) => {
      await recordWithin(tx, now, records, options.messaging);
      return claimWithin(tx, now, nextBatch());
    });
  }
  return { dispatched, ...summary };
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
  // Each delivery once: a failed one is due later, but the flush ignores the schedule.
  let remaining = pending.map((r) => r.id);
  const summary = { attempted: 0, succeeded: 0, failed: 0 };
  while (remaining.length > 0) {
    const claimed = await claimAttempts(db, now, { limit: CLAIM_BATCH, ids: remaining, ignoreSchedule: true });
    if (claimed.length === 0) break;
    const taken = new Set(claimed.map((c) => c.id));
    remaining = remaining.filter((id) => !taken.has(id));
    count(summary, await sendAndRecord(db, claimed, now, options));
  }
  return { dispatched, ...summary };
}
