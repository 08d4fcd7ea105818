// The outage scenario of issue 28 as a property (fast-check): random failure windows of the receiver,
// random bursts of events, the endpoint turned on again at random, 1-4 dispatchers at once, some of
// them dying between their claim and their record. After a recover of the whole window:
// - every event of the window reaches the receiver exactly once by idempotency key (one 2xx answer
//   per key, and every event's key answered 2xx);
// - no attempt follows the 10th consecutive failure (counted since the endpoint was last turned on).
// A dispatcher that dies after its claim leaves leases behind: they run out (60 s) and the attempts are
// made by the next run, so nothing is lost or sent twice. Bounded for `npm test` (a few seconds);
// WEBHOOK_PROPERTY_RUNS raises the runs, WEBHOOK_PROPERTY_SEED replays one.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries, webhookEndpoints } from '../../../drizzle/schema';
import { ATTEMPT_LEASE_MS, claimAttempts } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/claim';
import { ENDPOINT_FAILURE_CUTOFF, runDueDeliveries } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/deliver';
import { recoverDeliveries } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/recover';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import { testContext, useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { fixedDeliveryOptions } from '../../helpers/webhook-receiver';

const t = useTestApp();

/** What the receiver saw, per endpoint (the path names it), in arrival order; the sentinel marks a turn-on. */
type Seen = { key: string; ok: boolean } | 'turned_on';
const seen = new Map<string, Seen[]>();
/** Endpoints whose receiver is failing now. */
const failing = new Set<string>();
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '';
      const ok = !failing.has(path);
      const log = seen.get(path) ?? [];
      log.push({ key: String(req.headers['x-service-idempotency-key']), ok });
      seen.set(path, log);
      res.writeHead(ok ? 200 : 500).end(ok ? 'ok' : 'boom');
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.config.webhookAllowInsecureLocalhost = true;
});
afterAll(() => new Promise<void>((resolve) => server?.close(() => resolve())));

const RUNS = Number(process.env.WEBHOOK_PROPERTY_RUNS ?? 6);
const SEED = process.env.WEBHOOK_PROPERTY_SEED ? Number(process.env.WEBHOOK_PROPERTY_SEED) : undefined;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const options = () => fixedDeliveryOptions(t);

const phase = fc.record({
  /** Events written in this phase. */
  events: fc.integer({ min: 0, max: 14 }),
  /** Whether the receiver answers 500 during it. */
  failing: fc.boolean(),
  /** Dispatchers at once in each of its rounds. */
  dispatchers: fc.integer({ min: 1, max: 4 }),
  /** Whether one more dispatcher claims and dies in its first round. */
  crash: fc.boolean(),
  /** Whether the brand turns the endpoint on at its start (if it is off). */
  turnOn: fc.boolean(),
  /** How far the clock moves between its rounds. */
  step: fc.constantFrom(6_000, 6 * MINUTE, 3 * HOUR),
});

/** No attempt after the 10th consecutive failure: failures counted in arrival order, reset by a success or a turn-on. */
function attemptsAfterCutoff(log: Seen[]): number {
  let failures = 0;
  let after = 0;
  for (const entry of log) {
    if (entry === 'turned_on') failures = 0;
    else {
      if (failures >= ENDPOINT_FAILURE_CUTOFF) after++;
      failures = entry.ok ? 0 : failures + 1;
    }
  }
  return after;
}

describe('the outage scenario, as a property', () => {
  it('after recover every event of the window reaches the receiver exactly once, and no attempt follows the 10th consecutive failure', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(phase, { minLength: 1, maxLength: 4 }), async (phases) => {
        const { clinic, key } = await makeTenant(t.db);
        const path = `/hook/${randomUUID()}`;
        const [endpoint] = await t.db
          .insert(webhookEndpoints)
          .values({ clinicId: clinic.id, url: `${base}${path}`, events: ['order.created'], createdAt: new Date(Date.now() - MINUTE) })
          .returning();
        await insertSigningSecret(t.db, clinic.id, endpoint!.id, t.config.secretKeys, new Date());
        const log = () => seen.get(path) ?? [];
        let clock = Date.now();
        const since = new Date(clock - 1_000);
        const events: string[] = [];
        const turnOn = async () => {
          const res = await t.request(`/api/v1/webhooks/${endpoint!.id}`, { key, method: 'PATCH', body: { isActive: true } });
          expect(res.status).toBe(200);
          seen.set(path, [...log(), 'turned_on']);
        };
        const isOff = async () =>
          !(await t.db.select({ on: webhookEndpoints.isActive }).from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint!.id)))[0]!
            .on;
        const round = (n: number, at: Date) => Promise.all(Array.from({ length: n }, () => runDueDeliveries(t.db, at, 200, options())));

        for (const p of phases) {
          if (p.turnOn && (await isOff())) await turnOn();
          if (p.failing) failing.add(path);
          else failing.delete(path);
          for (let i = 0; i < p.events; i++)
            events.push(await recordOutboxEvent(t.db, clinic.id, 'order.created', { orderId: randomUUID() }));
          for (let r = 0; r < 3; r++) {
            clock += p.step;
            const at = new Date(clock);
            // A dispatcher that claims and dies before it sends or records: its leases run out.
            const dead = r === 0 && p.crash ? claimAttempts(t.db, at, { limit: 50 }) : Promise.resolve([]);
            await Promise.all([dead, round(p.dispatchers, at)]);
          }
        }

        // The receiver is back; the brand turns the endpoint on and recovers the whole window.
        failing.delete(path);
        if (await isOff()) await turnOn();
        clock = Math.max(clock + ATTEMPT_LEASE_MS, Date.now());
        const ctx = testContext(t.db, clinic.id, { now: () => new Date(clock) });
        await recoverDeliveries(ctx, endpoint!.id, { since: since.toISOString() });
        // Pending retries go out when due (the schedule spans about 28 h): the clock moves past each.
        for (let i = 0; i < 6; i++) {
          await round(2, new Date(clock));
          const rows = await t.db
            .select({ status: webhookDeliveries.status })
            .from(webhookDeliveries)
            .where(eq(webhookDeliveries.endpointId, endpoint!.id));
          if (rows.every((r) => r.status === 'succeeded' || r.status === 'failed')) break;
          clock += 11 * HOUR;
        }
        // A retry that ran out while the receiver was failing is failed; a second recover queues it.
        await recoverDeliveries(ctx, endpoint!.id, { since: since.toISOString() });
        await round(2, new Date(clock));

        const answered = log().filter((e): e is { key: string; ok: boolean } => e !== 'turned_on' && e.ok);
        const keys = answered.map((e) => e.key);
        expect(new Set(keys).size, 'one 2xx answer per idempotency key').toBe(keys.length);
        expect([...keys].sort(), 'every event of the window reached the receiver').toEqual([...events].sort());
        expect(attemptsAfterCutoff(log()), 'no attempt after the 10th consecutive failure').toBe(0);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 120_000);
});
