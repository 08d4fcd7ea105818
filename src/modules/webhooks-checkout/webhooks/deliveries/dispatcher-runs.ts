import type { Services } from '../../../../platform/context';
import type { Database } from '../../../../platform/db/client';
import type { DeliveryQueue, QueuedAttempt } from '../../../../platform/providers/queue/types';
import type { Sweep, SweepServices } from '../../../../platform/sweep';
import { checkWebhookDestination } from '../destination';
import { signingSecretsFor } from '../secrets';
import { type DeliveryOptions, dueInTurns, type RunSummary, runDueDeliveries } from './deliver';
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

/**
 * The QStash dispatcher's run: fan out the outbox, then publish every due pending delivery of an
 * active endpoint. A first attempt is published under the delivery id (QStash drops a second
 * publication of it); with `republishOverdue` (the cron safety net) an attempt overdue by more than
 * QSTASH_OVERDUE_MS is published again under a fresh id, since its message was lost or stopped (the
 * endpoint was off when QStash called).
 */
export async function publishDueDeliveries(
  db: Database,
  now: Date,
  queue: DeliveryQueue,
  options: { republishOverdue: boolean },
): Promise<{ dispatched: number; published: number }> {
  const dispatched = await dispatchOutbox(db, now);
  const due = await dueInTurns(db, now, DISPATCH_LIMIT);
  const overdueBefore = now.getTime() - QSTASH_OVERDUE_MS;
  const attempts: QueuedAttempt[] = [];
  for (const row of due) {
    const overdue = row.nextAttemptAt!.getTime() < overdueBefore;
    if (overdue && options.republishOverdue) {
      attempts.push({
        deliveryId: row.id,
        attempts: row.attempts,
        notBefore: null,
        republishTag: `r${Math.floor(now.getTime() / 60_000)}`,
      });
    } else if (!overdue && row.attempts === 0) {
      attempts.push({ deliveryId: row.id, attempts: 0, notBefore: null });
    }
  }
  await queue.publish(attempts);
  return { dispatched, published: attempts.length };
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
