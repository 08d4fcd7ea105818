// Webhook delivery's promises under concurrency, as properties (fast-check): every dispatcher this
// code has (the cron sweep, the post-request kick, the dev flush and QStash's callback) running at
// once against slow and failing receivers, on a simulated clock. Whatever the mix:
// - exactly one POST per attempt (each X-Service-Delivery-Id once, each a webhook_attempts row, and
//   the delivery's `attempts` equal to its rows);
// - exactly 10 attempts reach a failing endpoint before it is turned off, and 10 more after it is
//   turned on again, never an 11th;
// - nothing is lost over a simulated day of receiver downtime: once the receiver is back (and the
//   endpoint on), every event arrives, with its delivery `succeeded`.
// Runs are bounded for `npm test`; WEBHOOK_PROPERTY_RUNS raises them, and a failure prints its seed
// (replay with WEBHOOK_PROPERTY_SEED).
import { randomUUID } from 'node:crypto';
import { and, asc, eq, lte } from 'drizzle-orm';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../../drizzle/schema';
import { ENDPOINT_FAILURE_CUTOFF, flushClinicDeliveries } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/deliver';
import { runLocalDispatcher, runScheduledDeliveries } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/dispatcher-runs';
import { dispatchOutbox } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/outbox-fan-out';
import { handleDeliveryCallback } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/qstash-callback';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import type { QueuedAttempt } from '../../../src/platform/providers/queue/types';
import { testContext, useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { fixedDeliveryOptions, useWebhookReceiver } from '../../helpers/webhook-receiver';

const t = useTestApp();
const receiver = useWebhookReceiver(t);
beforeEach(() => {
  receiver.received.length = 0;
  receiver.mode = 'ok';
  receiver.delayMs = 0;
});

const RUNS = Number(process.env.WEBHOOK_PROPERTY_RUNS ?? 4);
const SEED = process.env.WEBHOOK_PROPERTY_SEED ? Number(process.env.WEBHOOK_PROPERTY_SEED) : undefined;
const settings = { numRuns: RUNS, seed: SEED, endOnFailure: true };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

type Dispatcher = 'sweep' | 'kick' | 'flush' | 'callback';
const DISPATCHERS: Dispatcher[] = ['sweep', 'kick', 'flush', 'callback'];
/** Two to six dispatchers at once, repeats allowed (two crons overlapping, a flush during a kick...). */
const dispatcherMix = fc.array(fc.constantFrom(...DISPATCHERS), { minLength: 2, maxLength: 6 });

/** Jitter fixed at the middle, as the dispatchers' own options but deterministic. */
const options = () => fixedDeliveryOptions(t);

/** What QStash would be asked to schedule; the simulation calls back itself, so publications are only kept. */
const published: QueuedAttempt[] = [];
const queue = { publish: async (attempts: QueuedAttempt[]) => void published.push(...attempts) };

interface World {
  clinicId: string;
  key: string;
  endpointId: string;
}

async function world(): Promise<World> {
  const { clinic, key } = await makeTenant(t.db);
  const id = randomUUID();
  // The endpoint's id in its URL: the receiver is shared, and the idempotency key (the event id) does not name the endpoint.
  const [endpoint] = await t.db
    .insert(webhookEndpoints)
    .values({ id, clinicId: clinic.id, url: `${receiver.url}?endpoint=${id}`, events: ['order.created'] })
    .returning();
  await insertSigningSecret(t.db, clinic.id, endpoint!.id, t.config.secretKeys, new Date());
  return { clinicId: clinic.id, key, endpointId: endpoint!.id };
}

async function recordEvents(w: World, count: number) {
  for (let i = 0; i < count; i++) await recordOutboxEvent(t.db, w.clinicId, 'order.created', { orderId: randomUUID() });
}

/** One dispatcher's run at `now`, as production or development runs it. */
async function dispatch(kind: Dispatcher, w: World, now: Date): Promise<void> {
  switch (kind) {
    case 'sweep':
      // The cron trigger's sweep (no QStash configured in tests: the local dispatcher).
      await runScheduledDeliveries(t.db, now, t.services);
      return;
    case 'kick':
      // What ctx.waitUntil runs after a request that recorded events, in development.
      await runLocalDispatcher(t.db, now, t.services);
      return;
    case 'flush':
      await flushClinicDeliveries(testContext(t.db, w.clinicId, { now: () => now }), options());
      return;
    case 'callback': {
      // QStash calling back for every message due now, after the publisher (the kick or the cron) fanned the outbox out.
      await dispatchOutbox(t.db, now);
      const due = await t.db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.endpointId, w.endpointId),
            eq(webhookDeliveries.status, 'pending'),
            lte(webhookDeliveries.nextAttemptAt, now),
          ),
        );
      await Promise.all(due.map((d) => handleDeliveryCallback(t.db, now, d.id, options(), queue)));
      return;
    }
  }
}

/** Every dispatcher of the mix at once, at the same simulated time. */
const round = (mix: Dispatcher[], w: World, now: Date) => Promise.all(mix.map((kind) => dispatch(kind, w, now)));

/** The POSTs the receiver got for this endpoint (other runs' endpoints share the receiver). */
const postsTo = (w: World) => receiver.received.filter((r) => r.path.endsWith(`?endpoint=${w.endpointId}`));

const endpointRow = async (w: World) => (await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, w.endpointId)))[0]!;

const deliveriesOf = (w: World) =>
  t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, w.endpointId)).orderBy(asc(webhookDeliveries.createdAt));

/**
 * Exactly one POST per attempt: the POSTs' delivery ids are the attempt rows' ids, each once; every
 * delivery's `attempts` is its number of rows, numbered 1..n; no delivery attempted before it existed.
 */
async function expectOnePostPerAttempt(w: World) {
  const posts = postsTo(w);
  const attempts = await t.db
    .select({ id: webhookAttempts.id, deliveryId: webhookAttempts.deliveryId, attemptNumber: webhookAttempts.attemptNumber })
    .from(webhookAttempts)
    .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
    .where(eq(webhookDeliveries.endpointId, w.endpointId));
  const postIds = posts.map((p) => p.headers['x-service-delivery-id']).sort();
  expect(new Set(postIds).size, 'a delivery id was sent twice').toBe(postIds.length);
  expect(postIds).toEqual(attempts.map((a) => a.id).sort());
  for (const delivery of await deliveriesOf(w)) {
    const numbers = attempts
      .filter((a) => a.deliveryId === delivery.id)
      .map((a) => a.attemptNumber)
      .sort((a, b) => a - b);
    expect(numbers, `attempts of delivery ${delivery.id}`).toEqual(Array.from({ length: delivery.attempts }, (_, i) => i + 1));
    expect(delivery.claimedUntil, 'a lease outlived its attempt').toBeNull();
    if (delivery.lastAttemptAt) expect(delivery.lastAttemptAt.getTime()).toBeGreaterThanOrEqual(delivery.createdAt.getTime());
  }
  return posts.length;
}

/** Turns the endpoint on again through the API, as a brand would. */
async function turnOn(w: World) {
  const res = await t.request(`/api/v1/webhooks/${w.endpointId}`, { key: w.key, method: 'PATCH', body: { isActive: true } });
  expect(res.status).toBe(200);
}

/** Soft-deletes the run's endpoint so later runs' sweeps leave its deliveries alone. */
const retire = (w: World) =>
  t.db.update(webhookEndpoints).set({ isActive: false, deletedAt: new Date() }).where(eq(webhookEndpoints.id, w.endpointId));

describe('webhook delivery under concurrent dispatchers (properties)', () => {
  it('sends exactly 10 attempts to a failing endpoint before the cut-off, and 10 more after it is turned on again', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          events: fc.integer({ min: ENDPOINT_FAILURE_CUTOFF + 1, max: 30 }),
          mix: dispatcherMix,
          delayMs: fc.integer({ min: 0, max: 150 }),
          // Later rounds move the clock past the first retry steps, so retries compete too.
          steps: fc.array(fc.constantFrom(0, 6_000, 6 * MINUTE, 40 * MINUTE), { minLength: 1, maxLength: 3 }),
        }),
        async ({ events, mix, delayMs, steps }) => {
          const w = await world();
          await recordEvents(w, events);
          receiver.mode = 'fail';
          receiver.delayMs = delayMs;
          const start = Date.now();
          const playRounds = async (from: number) => {
            let at = from;
            for (const step of [0, ...steps]) {
              at += step;
              await round(mix, w, new Date(at));
            }
            return at;
          };

          const at = await playRounds(start);
          expect(await expectOnePostPerAttempt(w)).toBe(ENDPOINT_FAILURE_CUTOFF);
          const off = await endpointRow(w);
          expect(off).toMatchObject({ isActive: false, consecutiveFailures: ENDPOINT_FAILURE_CUTOFF });

          // Turned on again and still failing: exactly 10 more, then off again.
          await turnOn(w);
          await playRounds(at + 20 * HOUR);
          expect(await expectOnePostPerAttempt(w)).toBe(2 * ENDPOINT_FAILURE_CUTOFF);
          expect(await endpointRow(w)).toMatchObject({ isActive: false, consecutiveFailures: ENDPOINT_FAILURE_CUTOFF });
          await retire(w);
        },
      ),
      settings,
    );
  }, 120_000);

  it('sends every attempt exactly once to a slow receiver, whichever dispatchers overlap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          events: fc.integer({ min: 1, max: 40 }),
          mix: dispatcherMix,
          delayMs: fc.integer({ min: 0, max: 250 }),
        }),
        async ({ events, mix, delayMs }) => {
          const w = await world();
          await recordEvents(w, events);
          receiver.delayMs = delayMs;
          const now = Date.now();
          // A run leaves what is past its limit, or past the endpoint's 10 attempts in flight: rounds
          // go on (a second apart) until nothing is pending, at most 10.
          for (let i = 0; i < 10; i++) {
            await round(mix, w, new Date(now + i * 1_000));
            if ((await deliveriesOf(w)).every((d) => d.status !== 'pending') && (await deliveriesOf(w)).length === events) break;
          }
          expect(await expectOnePostPerAttempt(w)).toBe(events);
          const deliveries = await deliveriesOf(w);
          expect(deliveries).toHaveLength(events);
          expect(deliveries.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
          expect(new Set(postsTo(w).map((p) => p.headers['webhook-id'])).size).toBe(events);
          expect((await endpointRow(w)).consecutiveFailures).toBe(0);
          await retire(w);
        },
      ),
      settings,
    );
  }, 120_000);

  it('loses nothing over a simulated day of receiver downtime', async () => {
    // The clock moves through a day: each step a round of the mix, while the receiver fails.
    const DAY_STEPS = [0, 6_000, 6 * MINUTE, 36 * MINUTE, 2.7 * HOUR, 7.8 * HOUR, 18 * HOUR, 23.9 * HOUR];
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          events: fc.integer({ min: 1, max: 12 }),
          mix: dispatcherMix,
          delayMs: fc.integer({ min: 0, max: 60 }),
        }),
        async ({ events, mix, delayMs }) => {
          const w = await world();
          await recordEvents(w, events);
          receiver.mode = 'fail';
          receiver.delayMs = delayMs;
          const start = Date.now();
          // The dev flush spends an attempt whenever it runs, schedule or not (that is what it is for), so
          // during the downtime its place is taken by the kick; it joins again once the receiver is back.
          const downtimeMix = mix.map((kind) => (kind === 'flush' ? 'kick' : kind));
          for (const offset of DAY_STEPS) await round(downtimeMix, w, new Date(start + offset));
          expect(
            (await deliveriesOf(w)).every((d) => d.status === 'pending'),
            'a delivery was given up within the day',
          ).toBe(true);
          const downtimePosts = await expectOnePostPerAttempt(w);
          expect(downtimePosts).toBeLessThanOrEqual(Math.max(ENDPOINT_FAILURE_CUTOFF, 7));

          // The receiver is back a day later; the brand turns the endpoint on if the cut-off took it off.
          receiver.mode = 'ok';
          if (!(await endpointRow(w)).isActive) await turnOn(w);
          // The longest wait left is one schedule step (at most 10 h, +10 % jitter).
          for (const offset of [24 * HOUR, 35 * HOUR, 46 * HOUR]) await round(mix, w, new Date(start + offset));

          const deliveries = await deliveriesOf(w);
          expect(deliveries).toHaveLength(events);
          expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);
          const succeededKeys = new Set(deliveries.map((d) => d.idempotencyKey));
          expect(succeededKeys.size).toBe(events);
          expect(await expectOnePostPerAttempt(w)).toBe(deliveries.reduce((sum, d) => sum + d.attempts, 0));
          await retire(w);
        },
      ),
      settings,
    );
  }, 180_000);
});
