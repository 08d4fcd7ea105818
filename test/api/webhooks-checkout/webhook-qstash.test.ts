// Production delivery through QStash, against a local stand-in that speaks QStash's publish API and
// calls back with signed requests (test/tooling/qstash-stand-in.ts). The official client publishes;
// our callback route verifies with the official Receiver.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { webhookDeliveries, webhookEndpoints } from '../../../drizzle/schema';
import { QSTASH_CALLBACK_PATH, type QStashConfig, readConfig } from '../../../src/config';
import {
  kickDeliveries,
  publishDueDeliveries,
  QSTASH_OVERDUE_MS,
} from '../../../src/modules/webhooks-checkout/webhooks/deliveries/dispatcher-runs';
import { dispatchOutbox } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/outbox-fan-out';
import { BUSY_RETRY_MS } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/qstash-callback';
import { RETRY_SCHEDULE_MS } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/schedule';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import { QStashDeliveryQueue } from '../../../src/platform/providers/queue/qstash';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { type QStashStandIn, qstashConfigFor, startQStashStandIn } from '../../tooling/qstash-stand-in';
import { startWebhookReceiver, type WebhookReceiver } from '../../tooling/webhook-receiver';

const t = useTestApp();
let qstash: QStashStandIn;
let receiver: WebhookReceiver;
let config: QStashConfig;
const CALLBACK_URL = `https://api.example.test${QSTASH_CALLBACK_PATH}`;

beforeAll(async () => {
  [qstash, receiver] = await Promise.all([startQStashStandIn(), startWebhookReceiver()]);
  config = qstashConfigFor(qstash, CALLBACK_URL);
  t.config.qstash = config;
  // The receiver listens on http://127.0.0.1 (every attempt checks the URL again, with the development flag).
  t.config.webhookAllowInsecureLocalhost = true;
});
afterAll(async () => {
  t.config.qstash = null;
  await Promise.all([qstash?.close(), receiver?.close()]);
});
beforeEach(async () => {
  // Publication is global (every clinic's due deliveries): close what earlier tests left pending.
  await t.db.update(webhookDeliveries).set({ status: 'failed', nextAttemptAt: null }).where(eq(webhookDeliveries.status, 'pending'));
  receiver.received.length = 0;
  receiver.mode = 'ok';
  qstash.messages.length = 0;
});

/** QStash's calls reach the app in-process (the stand-in's Caller). */
const callApp = (url: string, init: { method: 'POST'; headers: Record<string, string>; body: string }) =>
  Promise.resolve(t.app.request(new URL(url).pathname, init));

const callback = (body: string, signature?: string) =>
  callApp(CALLBACK_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature ? { 'upstash-signature': signature } : {}) },
    body,
  });

async function endpointWithEvent() {
  const { clinic } = await makeTenant(t.db);
  const [endpoint] = await t.db
    .insert(webhookEndpoints)
    .values({ clinicId: clinic.id, url: receiver.url, events: ['order.created'] })
    .returning();
  await insertSigningSecret(t.db, clinic.id, endpoint!.id, t.config.secretKeys, new Date());
  await recordOutboxEvent(t.db, clinic.id, 'order.created', { orderId: randomUUID() });
  return endpoint!;
}
const deliveryOf = async (endpointId: string) =>
  (await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)))[0]!;
const queue = () => new QStashDeliveryQueue(config);

describe('the QStash callback route', () => {
  it('refuses unsigned, wrongly signed, tampered and wrong-subject calls with 401 and makes no attempt', async () => {
    const endpoint = await endpointWithEvent();
    await dispatchOutbox(t.db, new Date(t.clock.now()));
    const delivery = await deliveryOf(endpoint.id);
    const body = JSON.stringify({ deliveryId: delivery.id });
    const refused = [
      await callback(body),
      await callback(body, 'not-a-jwt'),
      await callback(body, qstash.sign(CALLBACK_URL, body, 'some-other-key')),
      await callback(JSON.stringify({ deliveryId: randomUUID() }), qstash.sign(CALLBACK_URL, body)),
      await callback(body, qstash.sign('https://elsewhere.test/hook', body)),
    ];
    for (const res of refused) {
      expect(res.status).toBe(401);
      expect((await res.json()) as object).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    }
    expect(receiver.received).toHaveLength(0);
    expect((await deliveryOf(endpoint.id)).attempts).toBe(0);
  });

  it('accepts a call signed with the next signing key (key rotation)', async () => {
    const endpoint = await endpointWithEvent();
    await dispatchOutbox(t.db, new Date(t.clock.now()));
    const delivery = await deliveryOf(endpoint.id);
    const body = JSON.stringify({ deliveryId: delivery.id });
    const res = await callback(body, qstash.sign(CALLBACK_URL, body, qstash.nextSigningKey));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, result: 'succeeded' });
    expect((await deliveryOf(endpoint.id)).status).toBe('succeeded');
  });

  it('does not exist when QStash is not configured', async () => {
    t.config.qstash = null;
    try {
      const body = JSON.stringify({ deliveryId: randomUUID() });
      expect((await callback(body, qstash.sign(CALLBACK_URL, body))).status).toBe(404);
    } finally {
      t.config.qstash = config;
    }
  });

  it('answers 489 with Upstash-NonRetryable-Error for an unknown delivery or an unusable signed body', async () => {
    for (const body of [JSON.stringify({ deliveryId: randomUUID() }), JSON.stringify({ nope: 1 }), 'not json']) {
      const res = await callback(body, qstash.sign(CALLBACK_URL, body));
      expect(res.status).toBe(489);
      expect(res.headers.get('upstash-nonretryable-error')).toBe('true');
    }
  });
});

describe('delivery through QStash end to end', () => {
  it('publishes each new delivery once (deduplication id = the delivery id), and the signed callback delivers it', async () => {
    const endpoint = await endpointWithEvent();
    const now = new Date(t.clock.now());
    expect(await publishDueDeliveries(t.db, now, queue(), { republishOverdue: false })).toMatchObject({ dispatched: 1, published: 1 });
    const delivery = await deliveryOf(endpoint.id);
    // A second publication of the same first attempt is dropped by QStash.
    await publishDueDeliveries(t.db, now, queue(), { republishOverdue: false });
    expect(qstash.messages).toHaveLength(1);
    expect(qstash.messages[0]).toMatchObject({
      destination: CALLBACK_URL,
      deduplicationId: delivery.id,
      body: JSON.stringify({ deliveryId: delivery.id }),
    });

    expect(await qstash.deliverDue(callApp)).toBe(1);
    expect(qstash.messages[0]).toMatchObject({ state: 'delivered', lastStatus: 200 });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers['x-service-idempotency-key']).toBe(delivery.idempotencyKey);
    expect(await deliveryOf(endpoint.id)).toMatchObject({ status: 'succeeded', attempts: 1 });

    // QStash calling again for a finished delivery: stop (489), nothing sent.
    const body = JSON.stringify({ deliveryId: delivery.id });
    const again = await callback(body, qstash.sign(CALLBACK_URL, body));
    expect(again.status).toBe(489);
    expect(again.headers.get('upstash-nonretryable-error')).toBe('true');
    expect(receiver.received).toHaveLength(1);
  });

  it('after a failed attempt publishes the next one for the time our schedule says, and stops QStash once the schedule is exhausted', async () => {
    const endpoint = await endpointWithEvent();
    receiver.mode = 'fail';
    await publishDueDeliveries(t.db, new Date(t.clock.now()), queue(), { republishOverdue: false });
    const delivery = await deliveryOf(endpoint.id);
    await qstash.deliverDue(callApp);
    // The callback did its job (one attempt made, the next queued): 200 for QStash.
    expect(qstash.messages[0]).toMatchObject({ state: 'delivered', lastStatus: 200 });
    const afterFirst = await deliveryOf(endpoint.id);
    expect(afterFirst).toMatchObject({ status: 'pending', attempts: 1 });
    const next = qstash.messages[1]!;
    expect(next.deduplicationId).toBe(`${delivery.id}:1`);
    expect(next.notBefore).toBe(Math.ceil(afterFirst.nextAttemptAt!.getTime() / 1000));
    const wait = afterFirst.nextAttemptAt!.getTime() - afterFirst.lastAttemptAt!.getTime();
    expect(wait).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[0]! * 0.9);
    expect(wait).toBeLessThanOrEqual(RETRY_SCHEDULE_MS[0]! * 1.1);

    // Called before its time (a duplicate, or QStash early): no attempt, the attempt stays queued.
    const body = JSON.stringify({ deliveryId: delivery.id });
    const early = await callback(body, qstash.sign(CALLBACK_URL, body));
    expect(early.status).toBe(200);
    expect(await early.json()).toEqual({ success: true, result: 'retry_scheduled' });
    expect((await deliveryOf(endpoint.id)).attempts).toBe(1);

    // Run the rest of the schedule on the simulated clock; every attempt is its own QStash message.
    for (let attempt = 2; attempt <= RETRY_SCHEDULE_MS.length + 1; attempt++) {
      const row = await deliveryOf(endpoint.id);
      t.clock.advance(Math.max(0, row.nextAttemptAt!.getTime() - t.clock.now()));
      const res = await callback(body, qstash.sign(CALLBACK_URL, body));
      expect(res.status).toBe(attempt === RETRY_SCHEDULE_MS.length + 1 ? 489 : 200);
    }
    expect(await deliveryOf(endpoint.id)).toMatchObject({ status: 'failed', attempts: RETRY_SCHEDULE_MS.length + 1 });
  });

  it('stops QStash while the endpoint is off, keeps the delivery pending, and the cron safety net publishes it again once the endpoint is on', async () => {
    const endpoint = await endpointWithEvent();
    await publishDueDeliveries(t.db, new Date(t.clock.now()), queue(), { republishOverdue: false });
    await t.db.update(webhookEndpoints).set({ isActive: false }).where(eq(webhookEndpoints.id, endpoint.id));
    await qstash.deliverDue(callApp);
    expect(qstash.messages[0]).toMatchObject({ state: 'failed', lastStatus: 489 });
    expect(await deliveryOf(endpoint.id)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(receiver.received).toHaveLength(0);

    // Back on; the kick alone does not republish (its first publication was stopped)...
    await t.db.update(webhookEndpoints).set({ isActive: true }).where(eq(webhookEndpoints.id, endpoint.id));
    t.clock.advance(QSTASH_OVERDUE_MS + 1_000);
    await publishDueDeliveries(t.db, new Date(t.clock.now()), queue(), { republishOverdue: false });
    expect(qstash.messages).toHaveLength(1);
    // ...the cron sweep does, under a fresh deduplication id.
    await publishDueDeliveries(t.db, new Date(t.clock.now()), queue(), { republishOverdue: true });
    expect(qstash.messages).toHaveLength(2);
    expect(qstash.messages[1]!.deduplicationId).toMatch(/:r\d+$/);
    await qstash.deliverDue(callApp);
    expect(await deliveryOf(endpoint.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(receiver.received).toHaveLength(1);
  });

  it("asks again 10 s later, attempting nothing, while attempts in flight hold the endpoint's failure budget", async () => {
    const endpoint = await endpointWithEvent();
    await recordOutboxEvent(t.db, endpoint.clinicId, 'order.created', { orderId: randomUUID() });
    const now = new Date(t.clock.now());
    await dispatchOutbox(t.db, now);
    const [inFlight, waiting] = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
    // Nine failures so far and one attempt on the wire: that attempt may be the tenth failure.
    await t.db.update(webhookEndpoints).set({ consecutiveFailures: 9 }).where(eq(webhookEndpoints.id, endpoint.id));
    await t.db
      .update(webhookDeliveries)
      .set({ claimedUntil: new Date(now.getTime() + 60_000) })
      .where(eq(webhookDeliveries.id, inFlight!.id));

    const body = JSON.stringify({ deliveryId: waiting!.id });
    const res = await callback(body, qstash.sign(CALLBACK_URL, body));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, result: 'endpoint_busy' });
    expect(receiver.received).toHaveLength(0);
    expect(await deliveryOf(endpoint.id)).toMatchObject({ attempts: 0 });
    expect(qstash.messages).toHaveLength(1);
    expect(qstash.messages[0]!.body).toBe(body);
    expect(qstash.messages[0]!.notBefore).toBe(Math.ceil((now.getTime() + BUSY_RETRY_MS) / 1000));
    expect(qstash.messages[0]!.deduplicationId).toMatch(/:b\d+$/);
  });

  it('publishes under flow control per endpoint: a backlog of 25 to one endpoint is called back 10 at a time, none busy, each delivered once', async () => {
    const endpoint = await endpointWithEvent();
    for (let i = 1; i < 25; i++) await recordOutboxEvent(t.db, endpoint.clinicId, 'order.created', { orderId: randomUUID() });
    await publishDueDeliveries(t.db, new Date(t.clock.now()), queue(), { republishOverdue: false });
    expect(qstash.messages).toHaveLength(25);
    expect(new Set(qstash.messages.map((m) => JSON.stringify(m.flowControl)))).toEqual(
      new Set([JSON.stringify({ key: `webhook-endpoint-${endpoint.id}`, parallelism: 10 })]),
    );

    // A receiver that takes 50 ms: without flow control all 25 callbacks would arrive at once, and the
    // 15 past the endpoint's budget of 10 in flight would answer endpoint_busy and be published again.
    receiver.delayMs = 50;
    let calling = 0;
    let most = 0;
    const answers: string[] = [];
    const stop = qstash.deliverContinuously(async (url, init) => {
      most = Math.max(most, ++calling);
      try {
        const res = await callApp(url, init);
        answers.push(((await res.clone().json()) as { result: string }).result);
        return res;
      } finally {
        calling--;
      }
    });
    try {
      const deadline = Date.now() + 15_000;
      while (qstash.messages.some((m) => m.state === 'pending') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await stop();
      receiver.delayMs = 0;
    }
    expect(most).toBe(10);
    expect(answers.filter((a) => a !== 'succeeded')).toEqual([]);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(25);
    expect(receiver.received).toHaveLength(25);
    expect(qstash.messages).toHaveLength(25); // nothing re-published
  });

  it('kickDeliveries publishes the new deliveries in the background when QStash is configured', async () => {
    const endpoint = await endpointWithEvent();
    const background: Promise<unknown>[] = [];
    kickDeliveries({
      db: t.db,
      config: t.config,
      deliveryQueue: queue(),
      now: () => new Date(t.clock.now()),
      background: (p: Promise<unknown>) => background.push(p),
    } as never);
    await Promise.all(background);
    const delivery = await deliveryOf(endpoint.id);
    expect(qstash.messages.map((m) => m.deduplicationId)).toEqual([delivery.id]);
  });
});

describe('configuration', () => {
  const production = {
    DATABASE_URL: 'postgres://u:p@db.example.com/app',
    JWT_SECRET: 'x'.repeat(40),
    UPSTASH_REDIS_REST_URL: 'https://r.upstash.io',
    UPSTASH_REDIS_REST_TOKEN: 't',
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
    RESEND_API_KEY: 're_test',
    EMAIL_FROM: 'no-reply@mail.example.com',
  };
  const qstashVars = {
    QSTASH_TOKEN: 'q',
    QSTASH_CURRENT_SIGNING_KEY: 'c',
    QSTASH_NEXT_SIGNING_KEY: 'n',
    PUBLIC_BASE_URL: 'https://api.example.com',
  };

  it('requires QStash in production, all four settings or none, and an https PUBLIC_BASE_URL', () => {
    expect(() => readConfig(production)).toThrow(/QSTASH_TOKEN/);
    expect(() => readConfig({ ...production, ...qstashVars, QSTASH_NEXT_SIGNING_KEY: undefined })).toThrow(/or none/);
    expect(() => readConfig({ ...production, ...qstashVars, PUBLIC_BASE_URL: 'http://api.example.com' })).toThrow(/https/);
    expect(readConfig({ ...production, ...qstashVars }).qstash).toEqual({
      token: 'q',
      baseUrl: 'https://qstash.upstash.io',
      currentSigningKey: 'c',
      nextSigningKey: 'n',
      callbackUrl: `https://api.example.com${QSTASH_CALLBACK_PATH}`,
    });
  });
});
