import { createHmac, randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyServiceSignature as verifyWebhook } from '../../../clients/typescript/src/webhook-signature';
import { outboxEvents, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../../drizzle/schema';
import {
  attemptDelivery,
  ENDPOINT_FAILURE_CUTOFF,
  flushClinicDeliveries,
  runDueDeliveries,
} from '../../../src/modules/webhooks-checkout/webhooks/deliveries/deliver';
import { dispatchOutbox } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/outbox-fan-out';
import { RETRY_SCHEDULE_MS } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/schedule';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import { updateWebhook } from '../../../src/modules/webhooks-checkout/webhooks/service';
import type { WebhookEvent } from '../../../src/platform/events/names';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import { buildTestApp, type TestApp, testContext, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { fixedDeliveryOptions } from '../../helpers/webhook-receiver';
import { startWebhookReceiver, type WebhookReceiver } from '../../tooling/webhook-receiver';

const t = useTestApp();
let receiver: WebhookReceiver;
let dev: TestApp;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // The receiver listens on http://127.0.0.1, as a developer's does under npm run dev: every attempt
  // checks the URL again, with the development flag that lets it through.
  t.config.webhookAllowInsecureLocalhost = true;
  dev = buildTestApp(t.db, t.databaseUrl);
  dev.config.devSimulator = true;
  dev.config.webhookAllowInsecureLocalhost = true;
});
afterAll(async () => receiver?.close());
beforeEach(() => {
  receiver.received.length = 0;
  receiver.mode = 'ok';
  receiver.retryAfter = null;
});

/** Jitter fixed at the middle: every wait is exactly its schedule step. */
const options = () => fixedDeliveryOptions(t);

async function makeEndpoint(clinicId: string, values: Partial<typeof webhookEndpoints.$inferInsert> = {}) {
  const [endpoint] = await t.db
    .insert(webhookEndpoints)
    .values({ clinicId, url: receiver.url, events: ['order.created', 'payment.succeeded'], ...values })
    .returning();
  const secret = await insertSigningSecret(t.db, clinicId, endpoint!.id, t.config.secretKeys, new Date());
  return { endpoint: endpoint!, secret };
}

async function eventFor(
  clinicId: string,
  type: WebhookEvent = 'order.created',
  payload: Record<string, string> = { orderId: randomUUID() },
) {
  const id = await recordOutboxEvent(t.db, clinicId, type, payload);
  return { id, payload };
}

const deliveriesOf = (endpointId: string) =>
  t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)).orderBy(webhookDeliveries.createdAt);
const endpointRow = async (id: string) => (await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]!;
const deliveryRow = async (id: string) => (await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]!;

describe('fan-out from the outbox', () => {
  it('creates one delivery per not-deleted, subscribed endpoint, once: pending when it is on, held when it is off', async () => {
    const { clinic } = await makeTenant(t.db);
    const { endpoint: subscribed } = await makeEndpoint(clinic.id);
    const { endpoint: other } = await makeEndpoint(clinic.id, { events: ['order.shipped'] });
    const { endpoint: off } = await makeEndpoint(clinic.id, { isActive: false });
    const { endpoint: deleted } = await makeEndpoint(clinic.id, { deletedAt: new Date() });
    const { clinic: stranger } = await makeTenant(t.db);
    const { endpoint: foreign } = await makeEndpoint(stranger.id);
    const event = await eventFor(clinic.id);

    const now = new Date();
    await dispatchOutbox(t.db, now);
    await dispatchOutbox(t.db, now);
    const [delivery, ...more] = await deliveriesOf(subscribed.id);
    expect(more).toHaveLength(0);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 0,
      eventType: 'order.created',
      outboxEventId: event.id,
      idempotencyKey: event.id,
    });
    const [held, ...moreHeld] = await deliveriesOf(off.id);
    expect(moreHeld).toHaveLength(0);
    expect(held).toMatchObject({ status: 'held', attempts: 0, nextAttemptAt: null, outboxEventId: event.id, idempotencyKey: event.id });
    for (const e of [other, deleted, foreign]) expect(await deliveriesOf(e.id)).toHaveLength(0);
    const [outbox] = await t.db.select().from(outboxEvents).where(eq(outboxEvents.id, event.id));
    expect(outbox!.dispatchedAt).not.toBeNull();
  });

  it('gives a new endpoint only the events that happen after it is created, not the history', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const before = await eventFor(clinic.id);
    const { endpoint: first } = await makeEndpoint(clinic.id);
    const during = await eventFor(clinic.id);
    // An endpoint registered through the API, after both events (its createdAt is the request's now).
    const res = await t.request('/api/v1/webhooks', { key, body: { url: 'https://hooks.example.com/in', events: ['order.created'] } });
    expect(res.status).toBe(201);
    const second = (await res.json()).data.id as string;
    const after = await eventFor(clinic.id);

    await dispatchOutbox(t.db, new Date());
    expect((await deliveriesOf(first.id)).map((d) => d.outboxEventId).sort()).toEqual([during.id, after.id].sort());
    expect((await deliveriesOf(second)).map((d) => d.outboxEventId)).toEqual([after.id]);
    const [history] = await t.db.select().from(outboxEvents).where(eq(outboxEvents.id, before.id));
    expect(history!.dispatchedAt, 'history is marked dispatched, not left for the next endpoint').not.toBeNull();
  });
});

describe('an attempt', () => {
  it('POSTs the ids-only body with both signature schemes and every header', async () => {
    const { clinic } = await makeTenant(t.db);
    const { endpoint, secret } = await makeEndpoint(clinic.id);
    const event = await eventFor(clinic.id, 'payment.succeeded', { orderId: randomUUID(), paymentId: randomUUID() });
    const now = new Date();
    await runDueDeliveries(t.db, now, 500, options());
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, lastResponseStatus: 200 });
    const got = receiver.received.filter((r) => r.headers['x-service-idempotency-key'] === delivery!.idempotencyKey);
    expect(got).toHaveLength(1);
    const { headers, rawBody, method } = got[0]!;
    expect(method).toBe('POST');

    // Body: ids only.
    const [outbox] = await t.db.select().from(outboxEvents).where(eq(outboxEvents.id, event.id));
    expect(JSON.parse(rawBody)).toEqual({
      id: event.id,
      type: 'payment.succeeded',
      createdAt: outbox!.createdAt.toISOString(),
      data: event.payload,
    });

    // Headers.
    const ts = Math.floor(now.getTime() / 1000);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-service-event']).toBe('payment.succeeded');
    expect(headers['x-service-delivery-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers['x-service-idempotency-key']).toBe(event.id);
    expect(headers['webhook-id']).toBe(headers['x-service-idempotency-key']);
    expect(headers['webhook-timestamp']).toBe(String(ts));
    expect(headers['x-service-signature']).toMatch(new RegExp(`^t=${ts},v1=[0-9a-f]{64}$`));

    // The Stripe scheme: our helper and the stripe package's verifier.
    expect(await verifyWebhook(rawBody, headers['x-service-signature'], secret, 300)).toBe(true);
    expect(await verifyWebhook(rawBody, headers['x-service-signature'], `${secret}x`, 300)).toBe(false);
    expect(() => Stripe.webhooks.constructEvent(rawBody, headers['x-service-signature']!, secret, 300)).not.toThrow();

    // The Standard Webhooks scheme, recomputed independently.
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${ts}.${rawBody}`).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);

    const [attempt] = await t.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery!.id));
    expect(attempt).toMatchObject({ id: headers['x-service-delivery-id'], attemptNumber: 1, responseStatus: 200, error: null });
    const ep = await endpointRow(endpoint.id);
    expect(ep.consecutiveFailures).toBe(0);
    expect(ep.lastTriggeredAt!.getTime()).toBe(now.getTime());
  });

  it('retries on the schedule under a simulated clock, fresh delivery id per attempt, same idempotency key, then fails', async () => {
    const { clinic } = await makeTenant(t.db);
    const { endpoint } = await makeEndpoint(clinic.id);
    await eventFor(clinic.id);
    receiver.mode = 'fail';
    let now = new Date('2030-01-01T00:00:00Z');
    await dispatchOutbox(t.db, new Date());
    const [delivery] = await deliveriesOf(endpoint.id);

    expect(await attemptDelivery(t.db, delivery!.id, now, options())).toBe('retrying');
    for (const [i, step] of RETRY_SCHEDULE_MS.entries()) {
      const row = await deliveryRow(delivery!.id);
      expect(row.nextAttemptAt!.getTime() - now.getTime()).toBe(step);
      // Not due a millisecond early.
      expect(await attemptDelivery(t.db, delivery!.id, new Date(row.nextAttemptAt!.getTime() - 1), options())).toBe('skipped');
      now = row.nextAttemptAt!;
      expect(await attemptDelivery(t.db, delivery!.id, now, options())).toBe(i === RETRY_SCHEDULE_MS.length - 1 ? 'failed' : 'retrying');
    }
    const final = await deliveryRow(delivery!.id);
    expect(final).toMatchObject({ status: 'failed', attempts: 8, nextAttemptAt: null, lastResponseStatus: 500 });
    expect(await attemptDelivery(t.db, delivery!.id, new Date(now.getTime() + 86_400_000), options())).toBe('skipped');

    const sent = receiver.received.filter((r) => r.headers['x-service-idempotency-key'] === delivery!.idempotencyKey);
    expect(sent).toHaveLength(8);
    expect(new Set(sent.map((r) => r.headers['x-service-delivery-id'])).size).toBe(8);
    // Signed fresh each time: each attempt's timestamp is its own.
    expect(new Set(sent.map((r) => r.headers['webhook-timestamp'])).size).toBe(8);
    const attempts = await t.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, delivery!.id))
      .orderBy(webhookAttempts.attemptNumber);
    expect(attempts.map((a) => a.attemptNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(attempts.map((a) => a.id).sort()).toEqual(sent.map((r) => r.headers['x-service-delivery-id']).sort());
    const ep = await endpointRow(endpoint.id);
    expect(ep).toMatchObject({ consecutiveFailures: 8, isActive: true });
  });

  it("honours a receiver's Retry-After within [schedule step, 10 h]", async () => {
    const { clinic } = await makeTenant(t.db);
    const { endpoint } = await makeEndpoint(clinic.id);
    await eventFor(clinic.id);
    await dispatchOutbox(t.db, new Date());
    const [delivery] = await deliveriesOf(endpoint.id);
    receiver.mode = 'fail';
    receiver.retryAfter = '3600';
    const now = new Date('2030-02-01T00:00:00Z');
    await attemptDelivery(t.db, delivery!.id, now, options());
    expect((await deliveryRow(delivery!.id)).nextAttemptAt!.getTime() - now.getTime()).toBe(3_600_000);
    receiver.retryAfter = '1';
    const later = new Date(now.getTime() + 3_600_000);
    await attemptDelivery(t.db, delivery!.id, later, options());
    expect((await deliveryRow(delivery!.id)).nextAttemptAt!.getTime() - later.getTime()).toBe(RETRY_SCHEDULE_MS[1]);
  });

  it('counts a receiver hanging past 5 s as a failure (timeout)', async () => {
    const { clinic } = await makeTenant(t.db);
    const { endpoint } = await makeEndpoint(clinic.id);
    await eventFor(clinic.id);
    await dispatchOutbox(t.db, new Date());
    const [delivery] = await deliveriesOf(endpoint.id);
    receiver.mode = 'hang';
    const started = Date.now();
    expect(await attemptDelivery(t.db, delivery!.id, new Date(), options())).toBe('retrying');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(4_900);
    expect(elapsed).toBeLessThan(5_900);
    const row = await deliveryRow(delivery!.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastResponseStatus: null, lastError: 'timeout after 5000 ms' });
  }, 15_000);

  it('turns the endpoint off at exactly 10 consecutive failures, keeps pending deliveries, sends them once on again, and resets on success', async () => {
    const { clinic } = await makeTenant(t.db);
    const { endpoint } = await makeEndpoint(clinic.id);
    for (let i = 0; i < ENDPOINT_FAILURE_CUTOFF; i++) await eventFor(clinic.id);
    const now = new Date();
    await dispatchOutbox(t.db, now);
    const deliveries = await deliveriesOf(endpoint.id);
    expect(deliveries).toHaveLength(10);
    receiver.mode = 'fail';
    for (const [i, d] of deliveries.entries()) {
      await attemptDelivery(t.db, d.id, now, options());
      const ep = await endpointRow(endpoint.id);
      expect(ep.consecutiveFailures).toBe(i + 1);
      expect(ep.isActive).toBe(i + 1 < 10);
      if (i + 1 === 10) expect(ep.disabledAt!.getTime()).toBe(now.getTime());
      else expect(ep.disabledAt).toBeNull();
    }

    // Off: nothing more is sent, the pending ones stay pending, a new event is held for the endpoint.
    receiver.mode = 'ok';
    receiver.received.length = 0;
    await eventFor(clinic.id);
    const later = new Date(now.getTime() + 86_400_000);
    await runDueDeliveries(t.db, later, 500, options());
    expect(await attemptDelivery(t.db, deliveries[0]!.id, later, options())).toBe('skipped');
    expect(
      receiver.received.filter(
        (r) => r.headers['x-service-event'] && deliveries.some((d) => d.idempotencyKey === r.headers['x-service-idempotency-key']),
      ),
    ).toHaveLength(0);
    const kept = await deliveriesOf(endpoint.id);
    expect(kept).toHaveLength(11);
    expect(kept.filter((d) => d.status === 'pending')).toHaveLength(10);
    expect(kept.filter((d) => d.status === 'held')).toHaveLength(1);

    // On again (the PATCH /webhooks/{id} { isActive: true } service): every kept and held delivery goes out.
    const ctx = testContext(t.db, clinic.id, { now: () => later });
    await updateWebhook(ctx, endpoint.id, { isActive: true });
    const summary = await flushClinicDeliveries(ctx, options());
    expect(summary).toMatchObject({ attempted: 11, succeeded: 11, failed: 0 });
    expect((await deliveriesOf(endpoint.id)).every((d) => d.status === 'succeeded')).toBe(true);
    expect((await endpointRow(endpoint.id)).consecutiveFailures).toBe(0);
  });

  it('closes the deliveries of a deleted endpoint as failed without sending', async () => {
    const { clinic } = await makeTenant(t.db);
    const { endpoint } = await makeEndpoint(clinic.id);
    await eventFor(clinic.id);
    await dispatchOutbox(t.db, new Date());
    const [delivery] = await deliveriesOf(endpoint.id);
    await t.db.update(webhookEndpoints).set({ deletedAt: new Date() }).where(eq(webhookEndpoints.id, endpoint.id));
    expect(await attemptDelivery(t.db, delivery!.id, new Date(), options())).toBe('failed');
    expect(await deliveryRow(delivery!.id)).toMatchObject({ status: 'failed', attempts: 0, lastError: 'endpoint deleted' });
    expect(receiver.received).toHaveLength(0);
  });
});

describe('GET /api/v1/webhooks/{id}/deliveries', () => {
  it('lists deliveries newest first with their fields, paged', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const { endpoint } = await makeEndpoint(clinic.id);
    const { endpoint: empty } = await makeEndpoint(clinic.id, { events: ['order.shipped'] });
    await eventFor(clinic.id);
    await dispatchOutbox(t.db, new Date());
    const [first] = await deliveriesOf(endpoint.id);
    const when = new Date();
    await attemptDelivery(t.db, first!.id, when, options());
    await eventFor(clinic.id);
    await dispatchOutbox(t.db, new Date(when.getTime() + 1000));

    const res = await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries?limit=1`, { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pagination).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
    expect(body.data[0]).toMatchObject({
      status: 'pending',
      attempts: 0,
      lastResponseStatus: null,
      lastAttemptAt: null,
      succeededAt: null,
      replayOf: null,
    });
    const page2 = await (await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries?limit=1&page=2`, { key })).json();
    expect(page2.data[0]).toEqual({
      id: first!.id,
      event: 'order.created',
      status: 'succeeded',
      attempts: 1,
      lastResponseStatus: 200,
      createdAt: first!.createdAt.toISOString(),
      lastAttemptAt: when.toISOString(),
      nextAttemptAt: null,
      succeededAt: when.toISOString(),
      idempotencyKey: first!.idempotencyKey,
      replayOf: null,
      test: false,
    });
    const past = await (await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries?page=9`, { key })).json();
    expect(past).toMatchObject({ data: [], pagination: { total: 2, page: 9 } });

    const none = await (await t.request(`/api/v1/webhooks/${empty.id}/deliveries`, { key })).json();
    expect(none).toMatchObject({ data: [], pagination: { total: 0, totalPages: 0 } });
  });

  it("answers the same 404 for another clinic's, an unknown, a deleted and a malformed endpoint id", async () => {
    const { key } = await makeTenant(t.db);
    const { clinic: other } = await makeTenant(t.db);
    const { endpoint: foreign } = await makeEndpoint(other.id);
    const { endpoint: gone } = await makeEndpoint(other.id, { deletedAt: new Date() });
    const bodies = [];
    for (const id of [foreign.id, randomUUID(), gone.id, 'not-a-uuid']) {
      for (const page of [1, 3]) {
        const res = await t.request(`/api/v1/webhooks/${id}/deliveries?page=${page}`, { key });
        expect(res.status).toBe(404);
        bodies.push(await res.json());
      }
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
  });

  it('makes two database round trips: the key lookup and one query', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const { endpoint } = await makeEndpoint(clinic.id);
    await eventFor(clinic.id);
    await dispatchOutbox(t.db, new Date());
    await t.flush();
    t.queries.length = 0;
    expect((await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries`, { key })).status).toBe(200);
    await t.flush();
    expect(t.queries.filter((sql) => !sql.includes('"request_logs"'))).toHaveLength(2);
  });

  it('refuses bad paging input with 400 naming the field', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const { endpoint } = await makeEndpoint(clinic.id);
    const res = await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries?limit=0`, { key });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('limit');
  });
});

describe('POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/replay', () => {
  it('queues a new delivery of the same event with the same idempotency key; it goes out with a new delivery id', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const { endpoint, secret } = await makeEndpoint(clinic.id);
    await eventFor(clinic.id);
    await dispatchOutbox(t.db, new Date());
    const [original] = await deliveriesOf(endpoint.id);
    await attemptDelivery(t.db, original!.id, new Date(), options());

    const res = await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries/${original!.id}/replay`, { key, method: 'POST' });
    expect(res.status).toBe(202);
    const { data } = await res.json();
    expect(data).toMatchObject({
      status: 'pending',
      attempts: 0,
      event: 'order.created',
      idempotencyKey: original!.idempotencyKey,
      replayOf: original!.id,
    });
    expect(data.id).not.toBe(original!.id);

    const summary = await flushClinicDeliveries(testContext(t.db, clinic.id), options());
    expect(summary).toMatchObject({ attempted: 1, succeeded: 1 });
    const sent = receiver.received.filter((r) => r.headers['x-service-idempotency-key'] === original!.idempotencyKey);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.rawBody).toBe(sent[1]!.rawBody);
    expect(sent[0]!.headers['x-service-delivery-id']).not.toBe(sent[1]!.headers['x-service-delivery-id']);
    expect(sent[1]!.headers['webhook-id']).toBe(original!.idempotencyKey);
    expect(await verifyWebhook(sent[1]!.rawBody, sent[1]!.headers['x-service-signature'], secret, 300)).toBe(true);
  });

  it("answers the same 404 for another clinic's or unknown or malformed ids, and a delivery of another endpoint", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const { endpoint } = await makeEndpoint(clinic.id);
    const { endpoint: sibling } = await makeEndpoint(clinic.id);
    const { clinic: other, key: otherKey } = await makeTenant(t.db);
    const { endpoint: foreign } = await makeEndpoint(other.id);
    await eventFor(clinic.id);
    await eventFor(other.id);
    await dispatchOutbox(t.db, new Date());
    const [own] = await deliveriesOf(endpoint.id);
    const [theirs] = await deliveriesOf(foreign.id);
    const cases: [string, string][] = [
      [foreign.id, theirs!.id],
      [endpoint.id, theirs!.id],
      [sibling.id, own!.id],
      [endpoint.id, randomUUID()],
      [randomUUID(), own!.id],
      ['nope', own!.id],
      [endpoint.id, 'nope'],
    ];
    const bodies = [];
    for (const [e, d] of cases) {
      const res = await t.request(`/api/v1/webhooks/${e}/deliveries/${d}/replay`, { key, method: 'POST' });
      expect(res.status).toBe(404);
      bodies.push(JSON.stringify(await res.json()));
    }
    expect(new Set(bodies).size).toBe(1);
    const mine = await t.request(`/api/v1/webhooks/${foreign.id}/deliveries/${theirs!.id}/replay`, { key: otherKey, method: 'POST' });
    expect(mine.status).toBe(202);
  });

  it('needs the write scope', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const { endpoint } = await makeEndpoint(clinic.id);
    const res = await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries/${randomUUID()}/replay`, { key: readOnly.raw, method: 'POST' });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
    expect((await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries`, { key: readOnly.raw })).status).toBe(200);
  });
});

describe('POST /_dev/webhooks/flush', () => {
  it('does not exist without DEV_SIMULATOR', async () => {
    const { key } = await makeTenant(t.db);
    const res = await t.request('/_dev/webhooks/flush', { key, method: 'POST' });
    expect(res.status).toBe(404);
  });

  it("attempts every pending delivery of the key's clinic now, ignoring the schedule", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const { endpoint } = await makeEndpoint(clinic.id);
    const { clinic: other } = await makeTenant(t.db);
    const { endpoint: foreign } = await makeEndpoint(other.id);
    await eventFor(clinic.id);
    await eventFor(clinic.id);
    await eventFor(other.id);
    await dispatchOutbox(t.db, new Date());
    const [early] = await deliveriesOf(endpoint.id);
    // One of them is scheduled far in the future: the flush sends it anyway.
    await t.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(Date.now() + 86_400_000) })
      .where(eq(webhookDeliveries.id, early!.id));

    expect((await dev.request('/_dev/webhooks/flush', { method: 'POST' })).status).toBe(401);
    const res = await dev.request('/_dev/webhooks/flush', { key, method: 'POST' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ attempted: 2, succeeded: 2, failed: 0 });
    expect((await deliveriesOf(foreign.id)).map((d) => d.status)).toEqual(['pending']);

    receiver.mode = 'fail';
    await eventFor(clinic.id);
    const failing = await (await dev.request('/_dev/webhooks/flush', { key, method: 'POST' })).json();
    expect(failing.data).toEqual({ attempted: 1, succeeded: 0, failed: 1 });
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await dev.request('/_dev/webhooks/flush', { key: readOnly.raw, method: 'POST' })).status).toBe(403);
  });
});

describe('throughput', () => {
  it('delivers 200 deliveries to a local receiver and reports deliveries per second', async () => {
    const { clinic } = await makeTenant(t.db);
    const { endpoint } = await makeEndpoint(clinic.id);
    const values = Array.from({ length: 200 }, () => ({
      clinicId: clinic.id,
      eventType: 'order.created',
      payload: { orderId: randomUUID() },
    }));
    await t.db.insert(outboxEvents).values(values);
    await dispatchOutbox(t.db, new Date());
    const started = performance.now();
    const summary = await flushClinicDeliveries(testContext(t.db, clinic.id), options());
    const seconds = (performance.now() - started) / 1000;
    expect(summary).toMatchObject({ attempted: 200, succeeded: 200, failed: 0 });
    const done = await t.db.$count(
      webhookDeliveries,
      and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.status, 'succeeded')),
    );
    expect(done).toBe(200);
    console.log(`webhook delivery throughput: 200 deliveries in ${seconds.toFixed(2)} s = ${(200 / seconds).toFixed(0)} deliveries/s`);
  }, 60_000);
});
