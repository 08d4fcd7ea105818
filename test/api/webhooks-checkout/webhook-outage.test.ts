// Nothing is dropped while an endpoint is off (issue 28, item 2), the scenario from the issue: a burst
// of events while the receiver fails turns the endpoint off within the burst, more events come while it
// is off, the brand turns it on: every event reaches the receiver exactly once (one 2xx answer per
// idempotency key), and no attempt follows the 10th consecutive failure.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { webhookDeliveries, webhookEndpoints } from '../../../drizzle/schema';
import { ENDPOINT_FAILURE_CUTOFF, runDueDeliveries } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/deliver';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { fixedDeliveryOptions, useWebhookReceiver } from '../../helpers/webhook-receiver';

const t = useTestApp();
const receiver = useWebhookReceiver(t);

const options = () => fixedDeliveryOptions(t);

/** `n` dispatchers at once (the cron, the post-request kick, QStash's callback...), each 10 attempts in flight. */
const dispatchers = (n: number, now: Date) => Promise.all(Array.from({ length: n }, () => runDueDeliveries(t.db, now, 200, options())));

async function scenario(burst: number, whileOff: number, dispatcherCount: number) {
  const { clinic, key } = await makeTenant(t.db);
  const [endpoint] = await t.db
    .insert(webhookEndpoints)
    .values({ clinicId: clinic.id, url: `${receiver.url}?${randomUUID()}`, events: ['session.completed'] })
    .returning();
  await insertSigningSecret(t.db, clinic.id, endpoint!.id, t.config.secretKeys, new Date());
  const mine = () => receiver.received.filter((r) => r.path.includes(endpoint!.url.split('?')[1]!));
  const emit = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++)
      ids.push(await recordOutboxEvent(t.db, clinic.id, 'session.completed', { sessionId: randomUUID(), orderId: randomUUID() }));
    return ids;
  };
  let clock = Date.now();
  const tick = (ms: number) => {
    clock += ms;
    return new Date(clock);
  };

  // The receiver fails; a burst: the endpoint is off within it, after exactly 10 attempts.
  receiver.mode = 'fail';
  const events = await emit(burst);
  for (let i = 0; i < 5; i++) await dispatchers(dispatcherCount, tick(60_000));
  const off = (await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint!.id)))[0]!;
  expect(off).toMatchObject({ isActive: false, consecutiveFailures: ENDPOINT_FAILURE_CUTOFF });
  expect(mine(), 'no attempt after the 10th consecutive failure').toHaveLength(ENDPOINT_FAILURE_CUTOFF);

  // More events while it is off: held, listed, not attempted.
  events.push(...(await emit(whileOff)));
  for (let i = 0; i < 3; i++) await dispatchers(dispatcherCount, tick(60_000));
  expect(mine()).toHaveLength(ENDPOINT_FAILURE_CUTOFF);
  const listed = await t.request(`/api/v1/webhooks/${endpoint!.id}/deliveries?limit=200`, { key });
  const statuses = ((await listed.json()).data as { status: string }[]).map((d) => d.status);
  expect(statuses).toHaveLength(burst + whileOff);
  expect(statuses.filter((s) => s === 'held').length).toBeGreaterThanOrEqual(whileOff);

  // The receiver is back; the brand turns the endpoint on through the API.
  receiver.mode = 'ok';
  const on = await t.request(`/api/v1/webhooks/${endpoint!.id}`, { key, method: 'PATCH', body: { isActive: true } });
  expect(on.status).toBe(200);
  clock = Math.max(clock, Date.now());
  for (let i = 0; i < 10; i++) {
    await dispatchers(dispatcherCount, tick(60_000));
    const rows = await t.db
      .select({ status: webhookDeliveries.status })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpoint!.id));
    if (rows.every((r) => r.status === 'succeeded')) break;
  }

  // Every event reached the receiver exactly once (one answered 2xx per idempotency key = event id).
  const delivered = mine().slice(ENDPOINT_FAILURE_CUTOFF);
  const keys = delivered.map((r) => r.headers['x-service-idempotency-key']);
  expect(new Set(keys).size, 'no duplicate POST').toBe(keys.length);
  expect([...keys].sort()).toEqual([...events].sort());
  for (const r of delivered) expect(JSON.parse(r.rawBody).id).toBe(r.headers['webhook-id']);
  return { events: events.length, delivered: new Set(keys).size };
}

describe('an outage of the receiver', () => {
  it('12 events in a burst while the receiver fails, 5 while the endpoint is off, turned on: all 17 reach it exactly once', async () => {
    const result = await scenario(12, 5, 3);
    console.log(`outage scenario: ${result.delivered} of ${result.events} events reached the receiver after it was turned on`);
    expect(result).toEqual({ events: 17, delivered: 17 });
  }, 60_000);

  it('holds under other shapes: a long burst with many dispatchers, a short one with one', async () => {
    expect(await scenario(40, 12, 5)).toEqual({ events: 52, delivered: 52 });
    expect(await scenario(11, 1, 1)).toEqual({ events: 12, delivered: 12 });
  }, 120_000);
});
