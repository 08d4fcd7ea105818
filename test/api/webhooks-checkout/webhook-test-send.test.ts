import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { webhookEndpoints } from '../../../drizzle/schema';
import { runDueDeliveries } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/deliver';
import { classifyFetchError } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/send-attempt';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { fixedDeliveryOptions, useWebhookReceiver } from '../../helpers/webhook-receiver';

const t = useTestApp();
const receiver = useWebhookReceiver(t);

async function endpointFor(clinicId: string, values: Partial<typeof webhookEndpoints.$inferInsert> = {}) {
  const [endpoint] = await t.db
    .insert(webhookEndpoints)
    .values({ clinicId, url: receiver.url, events: ['order.created'], ...values })
    .returning();
  await insertSigningSecret(t.db, clinicId, endpoint!.id, t.config.secretKeys, new Date());
  return endpoint!;
}
const testSend = (key: string, id: string, body: unknown = { event: 'order.created' }) =>
  t.request(`/api/v1/webhooks/${id}/test`, { key, body });

describe('POST /api/v1/webhooks/{id}/test', () => {
  it('sends one signed example with "test": true, records it marked test, answers its outcome; the endpoint is unchanged', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const endpoint = await endpointFor(clinic.id, { isActive: false, consecutiveFailures: 4 });
    receiver.mode = 'ok';
    const before = receiver.received.length;
    const res = await testSend(key, endpoint.id, { event: 'contact.unsubscribed' });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.delivery).toMatchObject({
      event: 'contact.unsubscribed',
      status: 'succeeded',
      attempts: 1,
      test: true,
      lastResponseStatus: 200,
    });
    expect(data.attempt).toMatchObject({ responseStatus: 200, error: null, responseBody: '{"received":true}' });
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(1);
    const body = JSON.parse(got[0]!.rawBody);
    expect(body).toMatchObject({ type: 'contact.unsubscribed', test: true, data: { contactId: expect.any(String), channels: 'email' } });
    expect(got[0]!.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(got[0]!.headers['webhook-id']).toBe(data.delivery.idempotencyKey);
    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row).toMatchObject({ isActive: false, consecutiveFailures: 4 });

    const list = await (await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries`, { key })).json();
    expect(list.data.map((d: { id: string; test: boolean }) => [d.id, d.test])).toEqual([[data.delivery.id, true]]);
    const attempts = await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries/${data.delivery.id}/attempts`, { key });
    expect((await attempts.json()).data).toEqual([data.attempt]);
    // A test delivery is not replayed.
    const replay = await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries/${data.delivery.id}/replay`, { key, method: 'POST' });
    expect(replay.status).toBe(400);
  });

  it('records a failing receiver as http_status with its answer, without counting toward the cut-off', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const endpoint = await endpointFor(clinic.id);
    receiver.mode = 'fail';
    const res = await testSend(key, endpoint.id);
    receiver.mode = 'ok';
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.delivery).toMatchObject({ status: 'failed', test: true });
    expect(data.attempt).toMatchObject({ responseStatus: 500, error: 'http_status', errorDetail: 'HTTP 500', responseBody: 'boom' });
    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row).toMatchObject({ isActive: true, consecutiveFailures: 0, lastTriggeredAt: null });
  });

  it('refuses a URL the policy refuses, without sending; a closed port is connection_refused', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const refused = await endpointFor(clinic.id, { url: 'https://metadata.google.internal/hook' });
    const before = receiver.received.length;
    const a = (await (await testSend(key, refused.id)).json()).data;
    expect(a.attempt).toMatchObject({ responseStatus: null, error: 'connection_refused' });
    expect(a.attempt.errorDetail).toMatch(/^not sent: url /);
    expect(receiver.received.length).toBe(before);
    const closed = await endpointFor(clinic.id, { url: 'http://127.0.0.1:1/hook' });
    const b = (await (await testSend(key, closed.id)).json()).data;
    expect(b.attempt).toMatchObject({ responseStatus: null, error: 'connection_refused' });
  });

  it('any key of the clinic with write, sandbox included; read-only and publishable keys are refused', async () => {
    const { clinic } = await makeTenant(t.db);
    const endpoint = await endpointFor(clinic.id);
    const sandbox = await makeTenant(t.db, { mode: 'sandbox' });
    expect((await testSend(sandbox.key, (await endpointFor(sandbox.clinic.id)).id)).status).toBe(200);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await testSend(readOnly.raw, endpoint.id)).status).toBe(403);
    const publishable = await makeKey(t.db, clinic.id, { kind: 'publishable' });
    expect((await testSend(publishable.raw, endpoint.id)).status).toBe(403);
    expect((await t.request(`/api/v1/webhooks/${endpoint.id}/test`, { body: { event: 'order.created' } })).status).toBe(401);
  });

  it("answers the same 404 for another clinic's, unknown, malformed and deleted endpoints; 400 for unknown events", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const { clinic: other } = await makeTenant(t.db);
    const foreign = await endpointFor(other.id);
    const deleted = await endpointFor(clinic.id, { deletedAt: new Date() });
    const mine = await endpointFor(clinic.id);
    const before = receiver.received.length;
    for (const id of [foreign.id, randomUUID(), 'nope', deleted.id]) {
      const res = await testSend(key, id);
      expect(res.status).toBe(404);
      expect((await res.json()).error?.code ?? 'NOT_FOUND').toBeTruthy();
    }
    for (const body of [{ event: 'order.exploded' }, {}, { event: 'order.created', extra: 1 }, { event: 42 }]) {
      const res = await testSend(key, mine.id, body);
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain('"field":"body');
    }
    expect(receiver.received.length).toBe(before);
  });

  it('allows 10 test sends per endpoint per minute, then 429 with Retry-After', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const endpoint = await endpointFor(clinic.id);
    const other = await endpointFor(clinic.id);
    for (let i = 0; i < 10; i++) expect((await testSend(key, endpoint.id)).status).toBe(200);
    const refused = await testSend(key, endpoint.id);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-limit')).toBe('10');
    expect((await testSend(key, other.id)).status).toBe(200);
  });
});

describe('attempts and the delivery filters', () => {
  it('lists every attempt of a delivery; filters by status, event and time; 404 across clinics', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const endpoint = await endpointFor(clinic.id, { events: ['order.created', 'payment.succeeded'] });
    await recordOutboxEvent(t.db, clinic.id, 'order.created', { orderId: randomUUID() });
    await recordOutboxEvent(t.db, clinic.id, 'payment.succeeded', { orderId: randomUUID() });
    receiver.mode = 'fail';
    const first = new Date();
    await runDueDeliveries(t.db, first, 500, fixedDeliveryOptions(t));
    receiver.mode = 'ok';
    await runDueDeliveries(t.db, new Date(first.getTime() + 6_000), 500, fixedDeliveryOptions(t));
    const list = (await (await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries?event=order.created`, { key })).json()).data;
    expect(list).toHaveLength(1);
    const attempts = (await (await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries/${list[0].id}/attempts`, { key })).json()).data;
    expect(
      attempts.map((a: { attemptNumber: number; error: string | null; responseBody: string }) => [
        a.attemptNumber,
        a.error,
        a.responseBody,
      ]),
    ).toEqual([
      [1, 'http_status', 'boom'],
      [2, null, '{"received":true}'],
    ]);
    const q = async (query: string) => t.request(`/api/v1/webhooks/${endpoint.id}/deliveries?${query}`, { key });
    expect((await (await q('status=succeeded')).json()).data).toHaveLength(2);
    expect((await (await q('status=failed')).json()).data).toHaveLength(0);
    expect((await (await q('event=payment.succeeded')).json()).pagination.total).toBe(1);
    const later = new Date(Date.now() + 60_000).toISOString();
    expect((await (await q(`createdGte=${encodeURIComponent(later)}`)).json()).data).toHaveLength(0);
    expect((await (await q(`createdLte=${encodeURIComponent(later)}`)).json()).data).toHaveLength(2);
    for (const bad of [
      'event=order.exploded',
      'status=held2',
      'createdGte=yesterday',
      `createdGte=${later}&createdLte=2020-01-01T00:00:00Z`,
    ]) {
      expect((await q(bad)).status, bad).toBe(400);
    }
    const { key: strangerKey } = await makeTenant(t.db);
    const stranger = await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries/${list[0].id}/attempts`, { key: strangerKey });
    expect(stranger.status).toBe(404);
    const other = await endpointFor(clinic.id);
    expect((await t.request(`/api/v1/webhooks/${other.id}/deliveries/${list[0].id}/attempts`, { key })).status).toBe(404);
    expect((await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries/${randomUUID()}/attempts`, { key })).status).toBe(404);
    expect((await t.request(`/api/v1/webhooks/${endpoint.id}/deliveries/x/attempts`, { key })).status).toBe(404);
  });

  it('classifies fetch failures into the closed set', () => {
    const withCode = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('x'), { code }) });
    expect(classifyFetchError(Object.assign(new Error('t'), { name: 'TimeoutError' }))).toBe('timeout');
    expect(classifyFetchError(withCode('ECONNREFUSED'))).toBe('connection_refused');
    expect(classifyFetchError(withCode('ENOTFOUND'))).toBe('dns');
    expect(classifyFetchError(withCode('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe('tls');
    expect(classifyFetchError(withCode('HPE_INVALID_CONSTANT'))).toBe('invalid_response');
    expect(classifyFetchError(withCode('UND_ERR_SOCKET'))).toBe('invalid_response');
    expect(classifyFetchError(new Error('Network connection lost.'))).toBe('invalid_response');
  });
});
