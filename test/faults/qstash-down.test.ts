// Faults: QStash down (or hanging) when a request records an event. The app runs as the Worker composes it, with the
// QStash variables of a production deployment pointing at the QStash stand-in through a proxy that can
// take it down. A request that records an event answers as usual; the kick that publishes its delivery
// (waitUntil) fails, and nothing is lost: the event and its pending delivery stay in the database. The
// cron (runScheduled, the Worker's scheduled handler) is the safety net: while QStash is still down it
// fails without losing anything; once QStash is back it publishes the delivery, QStash calls back, and
// the delivery reaches the receiver, once.
// (Deliveries QStash stopped because their endpoint was off are covered in
// test/api/webhooks-checkout/webhook-qstash.test.ts.)
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Env } from '../../src/config';
import { runScheduled } from '../../src/scheduled';
import { useTestApp } from '../helpers/app';
import { makeTenant } from '../helpers/factories';
import { type QStashStandIn, startQStashStandIn } from '../tooling/qstash-stand-in';
import { startWebhookReceiver, type WebhookReceiver } from '../tooling/webhook-receiver';
import { startTcpFaultProxy, type TcpFaultProxy } from './tcp-fault-proxy';
import { type WorkerApp, workerApp } from './worker-app';

const t = useTestApp();
let qstash: QStashStandIn;
let proxy: TcpFaultProxy;
let receiver: WebhookReceiver;
let env: Env;
let worker: WorkerApp;

beforeAll(async () => {
  [qstash, receiver] = await Promise.all([startQStashStandIn(), startWebhookReceiver()]);
  proxy = await startTcpFaultProxy(qstash.url);
  env = {
    ENVIRONMENT: 'test',
    DATABASE_URL: t.databaseUrl,
    WEBHOOK_ALLOW_INSECURE_LOCALHOST: 'true', // the receiver listens on http://127.0.0.1
    QSTASH_TOKEN: qstash.token,
    QSTASH_URL: proxy.url,
    QSTASH_CURRENT_SIGNING_KEY: qstash.currentSigningKey,
    QSTASH_NEXT_SIGNING_KEY: qstash.nextSigningKey,
    PUBLIC_BASE_URL: 'https://api.example.test',
  };
  worker = workerApp(env);
});
afterAll(async () => {
  await Promise.all([proxy?.close(), qstash?.close(), receiver?.close()]);
});

let logged: { mock: { calls: unknown[][] }; mockRestore(): void };
beforeEach(() => {
  proxy.setFault('pass');
  logged = vi.spyOn(console, 'error').mockImplementation(() => {});
  const warned = vi.spyOn(console, 'warn').mockImplementation(() => {}); // the QStash client's retries
  return () => {
    logged.mockRestore();
    warned.mockRestore();
  };
});

/** QStash calls our callback URL: in the test, the Worker's app in-process, at that URL's path. */
const callBack = (url: string, init: { method: 'POST'; headers: Record<string, string>; body: string }) =>
  worker.fetch(new URL(url).pathname, init);

/** A clinic with an endpoint (at the receiver) for contact.unsubscribed, and a contact to opt out. */
async function clinicWithEndpoint() {
  const { key } = await makeTenant(t.db);
  const endpoint = await worker.request('/api/v1/webhooks', { key, body: { url: receiver.url, events: ['contact.unsubscribed'] } });
  expect(endpoint.status).toBe(201);
  const contact = await worker.request('/api/v1/contacts', {
    key,
    body: { firstName: 'Jane', lastName: 'Doe', email: `jane-${crypto.randomUUID().slice(0, 8)}@example.test` },
  });
  expect(contact.status).toBe(201);
  return { key, endpointId: (await endpoint.json()).data.id as string, contactId: (await contact.json()).data.id as string };
}

async function deliveriesOf(key: string, endpointId: string) {
  const res = await worker.request(`/api/v1/webhooks/${endpointId}/deliveries`, { key });
  expect(res.status).toBe(200);
  return (await res.json()).data as { id: string; event: string; status: string; attempts: number }[];
}

const errorLines = () => logged.mock.calls.map((call) => String(call[0]));

describe('QStash down when a request records an event', () => {
  it('the request answers 2xx, the delivery waits in the database, and the cron publishes it once QStash is back', async () => {
    const { key, endpointId, contactId } = await clinicWithEndpoint();
    const received = receiver.received.length;
    const published = qstash.publishCalls;

    proxy.setFault('down');
    const optOut = await worker.request(`/api/v1/contacts/${contactId}`, { key, method: 'PUT', body: { emailOptedOut: true } });
    expect(optOut.status).toBe(200);
    expect((await optOut.json()).data).toMatchObject({ emailOptedOut: true });
    // The kick after the answer tried to publish and failed (logged); nothing reached QStash.
    expect(errorLines().some((line) => line.includes('background task failed'))).toBe(true);
    expect(qstash.publishCalls).toBe(published);
    // Nothing is lost: the delivery waits, pending, not attempted.
    const [waiting, ...more] = await deliveriesOf(key, endpointId);
    expect(more).toEqual([]);
    expect(waiting).toMatchObject({ event: 'contact.unsubscribed', status: 'pending', attempts: 0 });

    // A cron run while QStash is still down: the sweep fails (logged apart), the delivery still waits.
    await runScheduled(env);
    expect(errorLines().some((line) => line.includes('scheduled sweep failed'))).toBe(true);
    expect(qstash.publishCalls).toBe(published);
    expect(await deliveriesOf(key, endpointId)).toEqual([expect.objectContaining({ id: waiting!.id, status: 'pending', attempts: 0 })]);

    // QStash is back: the next cron run publishes the delivery, QStash calls back, the receiver gets it.
    proxy.setFault('pass');
    await runScheduled(env);
    const messages = qstash.messages.filter((message) => message.body === JSON.stringify({ deliveryId: waiting!.id }));
    expect(messages).toHaveLength(1);
    expect(await qstash.deliverDue(callBack)).toBeGreaterThanOrEqual(1);
    expect(messages[0]).toMatchObject({ state: 'delivered', lastStatus: 200 });
    const arrived = receiver.received.slice(received);
    expect(arrived).toHaveLength(1);
    expect(JSON.parse(arrived[0]!.rawBody)).toMatchObject({ type: 'contact.unsubscribed', data: { contactId } });
    expect(await deliveriesOf(key, endpointId)).toEqual([expect.objectContaining({ id: waiting!.id, status: 'succeeded', attempts: 1 })]);

    // Another cron run sends nothing more.
    await runScheduled(env);
    await qstash.deliverDue(callBack);
    expect(receiver.received.slice(received)).toHaveLength(1);
  });

  it('QStash hanging: the answer does not wait for the publication, which goes out once QStash answers', async () => {
    const { key, endpointId, contactId } = await clinicWithEndpoint();
    const received = receiver.received.length;
    proxy.setFault('hang');
    const { res, background } = await worker.answer(`/api/v1/contacts/${contactId}`, { key, method: 'PUT', body: { emailOptedOut: true } });
    expect(res.status).toBe(200);
    // The kick fans the event out after the answer, then hangs on QStash: the delivery waits, pending.
    let deliveries = await deliveriesOf(key, endpointId);
    for (let tries = 0; deliveries.length === 0 && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      deliveries = await deliveriesOf(key, endpointId);
    }
    const [delivery] = deliveries;
    expect(delivery).toMatchObject({ status: 'pending', attempts: 0 });
    expect(qstash.messages.some((message) => message.body === JSON.stringify({ deliveryId: delivery!.id }))).toBe(false);
    // QStash answers again: the hanging publication's connection drops, the client retries, and it goes out.
    proxy.setFault('pass');
    await background;
    expect(qstash.messages.filter((message) => message.body === JSON.stringify({ deliveryId: delivery!.id }))).toHaveLength(1);
    await qstash.deliverDue(callBack);
    expect(receiver.received.slice(received)).toHaveLength(1);
    expect(await deliveriesOf(key, endpointId)).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 1 })]);
  });

  it('with QStash up, the same request publishes at once (the control: the kick is what failed above)', async () => {
    const { key, endpointId, contactId } = await clinicWithEndpoint();
    const received = receiver.received.length;
    const optOut = await worker.request(`/api/v1/contacts/${contactId}`, { key, method: 'PUT', body: { emailOptedOut: true } });
    expect(optOut.status).toBe(200);
    const [delivery] = await deliveriesOf(key, endpointId);
    expect(qstash.messages.filter((message) => message.body === JSON.stringify({ deliveryId: delivery!.id }))).toHaveLength(1);
    await qstash.deliverDue(callBack);
    expect(receiver.received.slice(received)).toHaveLength(1);
    expect(await deliveriesOf(key, endpointId)).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 1 })]);
  });
});
