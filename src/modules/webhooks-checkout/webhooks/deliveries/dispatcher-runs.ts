import { sql } from 'drizzle-orm';
import type { Services } from '../../../../platform/context';
import type { Database } from '../../../../platform/db/client';
import { rowsOf } from '../../../../platform/db/sql';
import type { DeliveryQueue, QueuedAttempt } from '../../../../platform/providers/queue/types';
import type { Sweep, SweepServices } from '../../../../platform/sweep';
import { checkWebhookDestination } from '../destination';
import { signingSecretsFor } from '../secrets';
import { type DeliveryOptions, type RunSummary, runDueDeliveries } from './deliver';
import { dispatchOutbox } from './outbox-fan-out';

/** Deliveries one dispatcher run (cron sweep, post-request kick) attempts or publishes at most. */
export const DISPATCH_LIMIT = 200;
/** A due attempt QStash has not called back for this long is published again by the cron sweep. */
export const QSTASH_OVERDUE_MS = 2 * 60_000;

/** What the delivery options are made of: the configuration and the resolver (a request's services, or a cron run's). */
export type DeliveryServices = Pick<SweepServices, 'config' | 'hostResolver' | 'messaging'>;

/**
 * The delivery options of this deployment: secrets opened with the root secret's keys, every URL
 * checked again before its attempt (the URL policy with this deployment's settings, and its name
 * resolved by the deployment's resolver), global fetch.
 */
export const deliveryOptions = ({ config, hostResolver, messaging }: DeliveryServices): DeliveryOptions => ({
  secrets: signingSecretsFor(config.secretKeys),
  messaging,
  checkDestination: (url) =>
    checkWebhookDestination(url, { allowInsecureLocalhost: config.webhookAllowInsecureLocalhost, resolver: hostResolver }),
});

/** The local dispatcher's run: fan out the outbox, then attempt what is due. */
export const runLocalDispatcher = (db: Database, now: Date, services: DeliveryServices) =>
  runDueDeliveries(db, now, DISPATCH_LIMIT, deliveryOptions(services));

/** How long one drain of the local dispatcher goes on at most (inside waitUntil's 30 s, and the cron minute). */
export const DRAIN_BUDGET_MS = 25_000;

/**
 * The local dispatcher run after run, each at `clock()`, while the last run attempted something and
 * the budget lasts: a backlog (a recover of 10,000 events, an endpoint turned on again) drains at the
 * receivers' pace instead of DISPATCH_LIMIT per cron minute. Deliveries that fail are due later, so
 * they end the drain rather than prolong it.
 */
export async function drainLocalDispatcher(
  db: Database,
  clock: () => Date,
  services: DeliveryServices,
  budgetMs = DRAIN_BUDGET_MS,
): Promise<RunSummary> {
  const started = Date.now();
  const total: RunSummary = { dispatched: 0, attempted: 0, succeeded: 0, failed: 0 };
  for (;;) {
    const run = await runDueDeliveries(db, clock(), DISPATCH_LIMIT, deliveryOptions(services));
    total.dispatched += run.dispatched;
    total.attempted += run.attempted;
    total.succeeded += run.succeeded;
    total.failed += run.failed;
    if (run.attempted === 0 || Date.now() - started >= budgetMs) return total;
  }
}

/** Due deliveries one QStash dispatcher run publishes at most (pages of DISPATCH_LIMIT). */
export const PUBLISH_LIMIT = 10_000;

/**
 * One page of what a QStash run publishes, after `after` in (next_attempt_at, id) order (keyset: each
 * page starts where the last ended, over the partial due index, instead of rescanning from the top):
 * first attempts due no longer ago than QSTASH_OVERDUE_MS (their publication is new), or, for the
 * safety net, any attempt overdue by more than that (its message was lost or stopped).
 */
async function duePage(
  db: Database,
  now: Date,
  overdue: boolean,
  after: { at: string; id: string } | null,
): Promise<{ id: string; endpointId: string; attempts: number; at: string }[]> {
  const at = now.toISOString();
  const overdueBefore = new Date(now.getTime() - QSTASH_OVERDUE_MS).toISOString();
  return rowsOf(
    db,
    sql`select d.id, d.endpoint_id as "endpointId", d.attempts, d.next_attempt_at::text as at
      from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id and e.clinic_id = d.clinic_id
      where d.status = 'pending' and e.is_active and e.deleted_at is null
        and (d.claimed_until is null or d.claimed_until <= ${at}::timestamptz)
        and ${overdue ? sql`d.next_attempt_at < ${overdueBefore}::timestamptz` : sql`d.next_attempt_at <= ${at}::timestamptz and d.next_attempt_at >= ${overdueBefore}::timestamptz and d.attempts = 0`}
        ${after ? sql`and (d.next_attempt_at, d.id) > (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
      order by d.next_attempt_at, d.id
      limit ${DISPATCH_LIMIT}`,
  );
}

/**
 * The QStash dispatcher's run: fan out the outbox, then publish, page by page (up to PUBLISH_LIMIT),
 * every first attempt that became due in the last QSTASH_OVERDUE_MS, under the delivery id (QStash
 * drops a second publication of it); with `republishOverdue` (the cron safety net) also every attempt
 * overdue by more than QSTASH_OVERDUE_MS, again under a fresh id, since its message was lost or stopped
 * (the endpoint was off when QStash called). A recover of 10,000 is published by the request's kick,
 * not 200 per cron minute.
 */
export async function publishDueDeliveries(
  db: Database,
  now: Date,
  queue: DeliveryQueue,
  options: { republishOverdue: boolean },
): Promise<{ dispatched: number; published: number }> {
  const dispatched = await dispatchOutbox(db, now);
  let published = 0;
  const passes = options.republishOverdue ? [false, true] : [false];
  for (const overdue of passes) {
    let after: { at: string; id: string } | null = null;
    while (published < PUBLISH_LIMIT) {
      const page = await duePage(db, now, overdue, after);
      const attempts: QueuedAttempt[] = page.map((row) =>
        overdue
          ? {
              deliveryId: row.id,
              endpointId: row.endpointId,
              attempts: row.attempts,
              notBefore: null,
              republishTag: `r${Math.floor(now.getTime() / 60_000)}`,
            }
          : { deliveryId: row.id, endpointId: row.endpointId, attempts: 0, notBefore: null },
      );
      await queue.publish(attempts);
      published += attempts.length;
      if (page.length < DISPATCH_LIMIT) break;
      after = { at: page.at(-1)!.at, id: page.at(-1)!.id };
    }
  }
  return { dispatched, published };
}

/** The cron sweep: the QStash safety net when QStash is configured (services.deliveryQueue), else the local dispatcher. */
export const runScheduledDeliveries: Sweep = async function webhookDeliveries(db, now, services) {
  if (services.deliveryQueue) await publishDueDeliveries(db, now, services.deliveryQueue, { republishOverdue: true });
  else {
    const started = Date.now();
    await drainLocalDispatcher(db, () => new Date(now.getTime() + (Date.now() - started)), services);
  }
};

/**
 * After a request that recorded events (or queued a replay), in ctx.waitUntil: with QStash, fan out
 * and publish the new deliveries; in development, run the local dispatcher. Tests (no QStash,
 * ENVIRONMENT=test) drive the dispatcher themselves with a simulated clock.
 */
export function kickDeliveries(services: Services): void {
  const { config, db, deliveryQueue: queue } = services;
  if (queue) services.background(publishDueDeliveries(db, services.now(), queue, { republishOverdue: false }));
  else if (config.environment === 'development') services.background(drainLocalDispatcher(db, services.now, services));
}
