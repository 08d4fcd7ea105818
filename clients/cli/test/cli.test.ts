// @brand-admin/cli end to end: the test app (the Worker's app on real PostgreSQL, the development
// simulator on) behind a real HTTP server on 127.0.0.1, a local webhook receiver, and the commands run
// in-process through runCli exactly as bin.ts runs them (argv, environment, output, Ctrl-C as a signal).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../clients/typescript/src/index';
import { checkServiceSignature } from '../../../clients/typescript/src/webhook-signature';
import { webhookEndpoints } from '../../../drizzle/schema';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import { buildTestApp, type TestApp, useTestApp } from '../../../test/helpers/app';
import { makeKey, makeTenant } from '../../../test/helpers/factories';
import { createPendingOrder } from '../../../test/helpers/order-fixtures';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/tooling/webhook-receiver';
import { type Served, serveTestApp } from '../../typescript/test/serve';
import { forwardEvent, runCli } from '../src/index';

const t = useTestApp();
let dev: TestApp;
let served: Served;
let receiver: WebhookReceiver;

beforeAll(async () => {
  dev = buildTestApp(t.db, t.databaseUrl);
  dev.config.devSimulator = true;
  dev.config.webhookAllowInsecureLocalhost = true; // the trigger's endpoint is the local receiver
  served = await serveTestApp(dev);
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await served?.close();
});

/** runCli with captured output; `stop` aborts it (Ctrl-C). */
function start(argv: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const stop = new AbortController();
  const exit = runCli(argv, { env, out: (l) => out.push(l), err: (l) => err.push(l), signal: stop.signal });
  return { out, err, exit, stop: () => stop.abort() };
}

async function until(condition: () => boolean, ms = 8_000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const eventIds = async (key: string) =>
  ((await (await dev.request('/api/v1/events?limit=200', { key })).json()).data as { id: string; type: string }[]).map((e) => e.id);

describe('brand-admin listen', () => {
  it('forwards each new event of the clinic once, signed with the printed secret as a real delivery is; not older ones, not another clinic’s', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, clinic.id); // order.created: before listen, so not forwarded
    const before = new Set(await eventIds(key));
    expect(before.size).toBeGreaterThan(0);
    const received = receiver.received.length;
    const forwardTo = `${receiver.url}?from=cli`;

    const run = start(['listen', '--forward-to', forwardTo, '--interval', '100', '--base-url', served.baseUrl], {
      BRAND_ADMIN_API_KEY: key,
    });
    await until(() => run.out.some((line) => line.startsWith('Ready!')));
    const secret = /(whsec_[A-Za-z0-9+/=]+)/.exec(run.out.join('\n'))![1]!;

    // An event through the API (the development simulator moves the order), and one of another clinic.
    const moved = await dev.request(`/_dev/orders/${order.id}/events`, { method: 'POST', key, body: { event: 'payment.succeeded' } });
    expect(moved.status).toBe(200);
    await recordOutboxEvent(t.db, other.clinic.id, 'order.created', { orderId: crypto.randomUUID() });
    const fresh = (await eventIds(key)).filter((id) => !before.has(id)).reverse(); // oldest first
    expect(fresh.length).toBeGreaterThan(0);

    await until(() => receiver.received.length - received >= fresh.length);
    await new Promise((resolve) => setTimeout(resolve, 350)); // three more polls: nothing again
    run.stop();
    expect(await run.exit).toBe(0);
    expect(run.err).toEqual([]);

    const got = receiver.received.slice(received);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual(fresh); // each once, in order, nothing else
    for (const request of got) {
      expect(request).toMatchObject({ method: 'POST', path: '/hook?from=cli' });
      const event = await verifyWebhook(request.rawBody, request.headers, secret); // Standard Webhooks
      expect(await checkServiceSignature(request.rawBody, request.headers['x-service-signature']!, secret)).toBeNull(); // legacy header
      expect(request.headers).toMatchObject({
        'content-type': 'application/json',
        'x-service-event': event.type,
        'x-service-idempotency-key': event.id,
        'x-service-delivery-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
        'webhook-timestamp': expect.stringMatching(/^\d+$/),
      });
      // The body is the event as the events API lists it, field for field.
      const listed = await (await dev.request(`/api/v1/events/${event.id}`, { key })).json();
      const { endpoints: _, ...asListed } = listed.data;
      expect(JSON.parse(request.rawBody)).toEqual(asListed);
      expect(Object.keys(JSON.parse(request.rawBody))).toEqual(['id', 'type', 'createdAt', 'data']);
    }
    // One line per event: its name, its id and the local answer.
    const lines = run.out.filter((line) => line.includes('--> POST'));
    expect(lines).toHaveLength(fresh.length);
    for (const [i, line] of lines.entries()) {
      expect(line).toContain(fresh[i]!);
      expect(line).toContain(JSON.parse(got[i]!.rawBody).type);
      expect(line).toMatch(/\[200\]$/);
    }
  });

  it('takes only the named events with --events, and a read key', async () => {
    const { clinic } = await makeTenant(t.db);
    const { raw: readKey } = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const received = receiver.received.length;
    const run = start(
      ['listen', '--forward-to', receiver.url, '--interval', '100', '--events', 'contact.unsubscribed', '--api-key', readKey],
      {
        BRAND_ADMIN_BASE_URL: served.baseUrl,
      },
    );
    await until(() => run.out.some((line) => line.startsWith('Ready!')));
    await recordOutboxEvent(t.db, clinic.id, 'order.created', { orderId: crypto.randomUUID() });
    const wanted = await recordOutboxEvent(t.db, clinic.id, 'contact.unsubscribed', { contactId: crypto.randomUUID() });
    await until(() => receiver.received.length > received);
    await new Promise((resolve) => setTimeout(resolve, 250));
    run.stop();
    expect(await run.exit).toBe(0);
    expect(receiver.received.slice(received).map((r) => r.headers['webhook-id'])).toEqual([wanted]);
  });

  it('says why it cannot start: no key, no or bad --forward-to, a refused key (exit 2 for usage, 1 for the API)', async () => {
    const { clinic } = await makeTenant(t.db);
    const publishable = (await makeKey(t.db, clinic.id, { kind: 'publishable' })).raw;
    const base = ['--base-url', served.baseUrl];
    const cases: [string[], Record<string, string>, number, RegExp][] = [
      [['listen', '--forward-to', receiver.url, ...base], {}, 2, /no API key: pass --api-key or set BRAND_ADMIN_API_KEY/],
      [['listen', ...base, '--api-key', 'svc_live_x'], {}, 2, /listen needs --forward-to/],
      [['listen', '--forward-to', 'ftp://x', ...base, '--api-key', 'svc_live_x'], {}, 2, /--forward-to: an http or https URL/],
      [['listen', '--forward-to', receiver.url, '--nope', ...base], {}, 2, /Unknown option '--nope'/],
      [['listen', '--forward-to', receiver.url, ...base, '--api-key', 'svc_live_unknown'], {}, 1, /the API answered 401 UNAUTHORIZED/],
      [['listen', '--forward-to', receiver.url, ...base, '--api-key', publishable], {}, 1, /the API answered 403/],
      [['frobnicate', ...base], { BRAND_ADMIN_API_KEY: 'svc_live_x' }, 2, /unknown command "frobnicate"/],
    ];
    for (const [argv, env, code, message] of cases) {
      const run = start(argv, env);
      expect(await run.exit, argv.join(' ')).toBe(code);
      expect(run.err.join('\n')).toMatch(message);
    }
    const help = start(['--help']);
    expect(await help.exit).toBe(0);
    expect(help.out.join('\n')).toContain('listen --forward-to <url>');
  });

  it('answers a failed forward (nothing listening) with its reason, without throwing', async () => {
    // A port that was free a moment ago: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await forwardEvent(
      { id: crypto.randomUUID(), type: 'order.created', createdAt: new Date().toISOString(), data: { orderId: crypto.randomUUID() } },
      { forwardTo: `http://127.0.0.1:${port}/hooks`, secret: `whsec_${btoa('k'.repeat(32))}` },
    );
    expect(result.status).toBeNull();
    expect(result.error).toBe('ECONNREFUSED');
  });
});

describe('brand-admin trigger', () => {
  async function endpointFor(clinicId: string) {
    const [endpoint] = await t.db
      .insert(webhookEndpoints)
      .values({ clinicId, url: receiver.url, events: ['order.created'] })
      .returning();
    await insertSigningSecret(t.db, clinicId, endpoint!.id, t.config.secretKeys, new Date());
    return endpoint!;
  }

  it('sends a test event to an endpoint and prints its outcome; another clinic’s endpoint is unknown; a bad name is refused', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const endpoint = await endpointFor(clinic.id);
    const foreign = await endpointFor(other.clinic.id);
    const env = { BRAND_ADMIN_API_KEY: key, BRAND_ADMIN_BASE_URL: served.baseUrl };
    const received = receiver.received.length;

    const run = start(['trigger', 'contact.unsubscribed', '--endpoint', endpoint.id], env);
    expect(await run.exit).toBe(0);
    expect(run.out).toEqual([
      expect.stringMatching(new RegExp(`^contact.unsubscribed test delivery \\S+ to endpoint ${endpoint.id}: succeeded \\[200\\]$`)),
    ]);
    const got = receiver.received.slice(received);
    expect(got).toHaveLength(1);
    expect(JSON.parse(got[0]!.rawBody)).toMatchObject({ type: 'contact.unsubscribed', test: true });

    const unknown = start(['trigger', 'order.created', '--endpoint', foreign.id], env);
    expect(await unknown.exit).toBe(1);
    expect(unknown.err.join('\n')).toMatch(/the API answered 404 NOT_FOUND/);
    const badName = start(['trigger', 'order.exploded', '--endpoint', endpoint.id], env);
    expect(await badName.exit).toBe(1);
    expect(badName.err.join('\n')).toMatch(/the API answered 400 VALIDATION_ERROR/);
    const noEndpoint = start(['trigger', 'order.created'], env);
    expect(await noEndpoint.exit).toBe(2);
    expect(receiver.received.length - received).toBe(1);
  });
});
