// What stops a webhook URL reaching our network (docs/webhooks.md), with production's resolver: the
// DNS-over-HTTPS adapter against a local stand-in of the JSON API (test/tooling/doh-stand-in.ts) whose
// zone holds what the review's names really resolve to. The app runs with production's URL settings
// (WEBHOOK_ALLOW_INSECURE_LOCALHOST off; production refuses it on). Registration and change refuse a
// name with any non-public address (400 naming body.url), a port other than 443 and 8443 and any IP
// literal, and answer 503 with Retry-After when the resolver cannot answer; every delivery attempt
// resolves again, so a name that rebinds after registration is refused at send.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { outboxEvents, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../../drizzle/schema';
import {
  attemptDelivery,
  type DeliveryOptions,
  runDueDeliveries,
} from '../../../src/modules/webhooks-checkout/webhooks/deliveries/deliver';
import { deliveryOptions } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/dispatcher-runs';
import { dispatchOutbox } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/outbox-fan-out';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import { DohHostResolver } from '../../../src/platform/providers/dns/doh';
import { buildTestApp, type TestApp, useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { alternating, type DohStandIn, startDohStandIn } from '../../tooling/doh-stand-in';
import { startWebhookReceiver, type WebhookReceiver } from '../../tooling/webhook-receiver';

const t = useTestApp();
let dns: DohStandIn;
let receiver: WebhookReceiver;
/** The app with production's resolver (the DoH adapter, against the stand-in). */
let app: TestApp;

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';
/** The review's names, with what they resolve to on the internet (rbndr.us: one of the two at random, TTL 0). */
const REVIEW_NAMES: [string, () => void][] = [
  ['vcap.me', () => dns.set('vcap.me', { A: ['127.0.0.1'] })],
  ['localh.st', () => dns.set('localh.st', { A: ['127.0.0.1'], AAAA: ['::1'] })],
  ['127-0-0-1.traefik.me', () => dns.set('127-0-0-1.traefik.me', { A: ['127.0.0.1'] })],
  [
    '7f000001.c0a80001.rbndr.us',
    () => dns.set('7f000001.c0a80001.rbndr.us', { A: () => [Math.random() < 0.5 ? '127.0.0.1' : '192.168.0.1'] }),
  ],
  ['lacolhost.com', () => dns.set('lacolhost.com', { A: ['127.0.0.1'] })],
];

beforeAll(async () => {
  [dns, receiver] = await Promise.all([startDohStandIn(), startWebhookReceiver()]);
  app = buildTestApp(t.db, t.databaseUrl, { providers: { hostResolver: new DohHostResolver({ url: dns.url, timeoutMs: 400 }) } });
  for (const [, publish] of REVIEW_NAMES) publish();
  dns.set('hooks.brand.example', { A: [PUBLIC_V4], AAAA: [PUBLIC_V6] });
});
afterAll(async () => Promise.all([dns?.close(), receiver?.close()]));
beforeEach(() => {
  dns.fault = 'pass';
  dns.queries.length = 0;
  receiver.received.length = 0;
  receiver.mode = 'ok';
});

const create = (key: string, url: string) => app.request('/api/v1/webhooks', { key, body: { url, events: ['order.created'] } });
const endpointsOf = (clinicId: string) => t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.clinicId, clinicId));
const queriedFor = (name: string) => dns.queries.filter((q) => q.name === name);

async function expectRefused(res: Awaited<ReturnType<typeof create>>, url: string, reason: string | RegExp) {
  expect(res.status, url).toBe(400);
  const body = await res.json();
  expect(body.code, url).toBe('VALIDATION_ERROR');
  expect(body.errors, url).toEqual([{ field: 'body.url', message: expect.stringMatching(reason) }]);
  expect(body.message, url).toContain('body.url');
}

describe('registering a URL (production resolver)', () => {
  it.each(REVIEW_NAMES.map(([name]) => name))('refuses https://%s/ (it resolves to loopback or a private address)', async (name) => {
    const { clinic, key } = await makeTenant(t.db);
    await expectRefused(
      await create(key, `https://${name}/hook`),
      name,
      new RegExp(`${name.replace(/\./g, '\\.')} resolves to (127\\.0\\.0\\.1|192\\.168\\.0\\.1|::1)`),
    );
    expect(queriedFor(name).length).toBeGreaterThan(0);
    expect(await endpointsOf(clinic.id)).toHaveLength(0);
  });

  it('refuses the names that are private by their shape without asking the resolver (kubernetes.default.svc, single labels, .internal, nip.io...)', async () => {
    const { key } = await makeTenant(t.db);
    for (const url of [
      'https://kubernetes.default.svc/',
      'https://kubernetes.default.svc.cluster.local/',
      'https://metadata.google.internal/',
      'https://intranet/',
      'https://127.0.0.1.nip.io/',
      'https://10.0.0.1.sslip.io/',
      'https://app.lvh.me/',
      'https://app.localtest.me/',
    ]) {
      await expectRefused(await create(key, url), url, /local|internal|wildcard-DNS|fully qualified/);
    }
    expect(dns.queries).toEqual([]);
  });

  it('refuses a name when any of its addresses is not public: each kind, in A or AAAA, alone or beside a public one', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const cases: [{ A?: string[]; AAAA?: string[] }, RegExp][] = [
      [{ A: ['10.1.2.3'] }, /a private address/],
      [{ A: ['172.20.0.1'] }, /a private address/],
      [{ A: ['192.168.1.10'] }, /a private address/],
      [{ A: ['100.64.0.1'] }, /carrier-grade NAT/],
      [{ A: ['169.254.169.254'] }, /link-local address \(cloud metadata/],
      [{ A: ['169.254.10.1'] }, /link-local/],
      [{ A: ['127.0.0.53'] }, /loopback/],
      [{ A: ['0.0.0.0'] }, /unspecified/],
      [{ A: ['224.0.0.251'] }, /multicast/],
      [{ A: ['240.0.0.1'] }, /reserved/],
      [{ A: ['255.255.255.255'] }, /broadcast/],
      [{ A: ['198.18.0.1'] }, /benchmarking/],
      [{ AAAA: ['::1'] }, /loopback/],
      [{ AAAA: ['::'] }, /unspecified/],
      [{ AAAA: ['fd12:3456:789a::1'] }, /unique-local/],
      [{ AAAA: ['fc00::1'] }, /unique-local/],
      [{ AAAA: ['fe80::1'] }, /link-local/],
      [{ AAAA: ['::ffff:127.0.0.1'] }, /IPv4-mapped IPv6 address \(127\.0\.0\.1\)/],
      [{ AAAA: ['::ffff:169.254.169.254'] }, /IPv4-mapped IPv6 address \(169\.254\.169\.254\)/],
      [{ AAAA: ['64:ff9b::7f00:1'] }, /NAT64 address \(127\.0\.0\.1\)/],
      [{ AAAA: ['64:ff9b::a9fe:a9fe'] }, /NAT64 address \(169\.254\.169\.254\)/],
      [{ AAAA: ['ff02::1'] }, /multicast/],
      [{ AAAA: ['2002:7f00:1::1'] }, /6to4 address embedding a loopback/],
      [{ A: [PUBLIC_V4, '10.0.0.7'] }, /private address: .* resolves to 10\.0\.0\.7/],
      [{ A: [PUBLIC_V4], AAAA: ['::1'] }, /loopback address: .* resolves to ::1/],
    ];
    for (const [i, [records, reason]] of cases.entries()) {
      // Names on no list anywhere: only what they resolve to refuses them.
      const name = `hooks-${i}.brand-${randomUUID().slice(0, 8)}.example`;
      dns.set(name, records);
      await expectRefused(await create(key, `https://${name}/in`), `${name} ${JSON.stringify(records)}`, reason);
    }
    expect(await endpointsOf(clinic.id)).toHaveLength(0);
  });

  it('refuses a name with no address (NXDOMAIN, or neither A nor AAAA)', async () => {
    const { key } = await makeTenant(t.db);
    await expectRefused(await create(key, 'https://typo.brand-nowhere.example/in'), 'nxdomain', /has no address/);
    dns.set('mx-only.brand.example', {});
    await expectRefused(await create(key, 'https://mx-only.brand.example/in'), 'no records', /has no address/);
  });

  it('refuses ports other than 443 and 8443, and every IP literal (decimal, octal, hex, IPv6, public or not), without resolving', async () => {
    const { key } = await makeTenant(t.db);
    for (const url of [
      'https://hooks.brand.example:8080/in',
      'https://hooks.brand.example:80/in',
      'https://hooks.brand.example:22/in',
      'https://hooks.brand.example:6443/in',
      'https://hooks.brand.example:444/in',
    ]) {
      await expectRefused(await create(key, url), url, /port 443 or 8443/);
    }
    for (const [url, reason] of [
      ['https://2130706433/', /loopback/],
      ['https://0x7f000001/', /loopback/],
      ['https://0177.0.0.1/', /loopback/],
      ['https://127.1:8443/', /loopback/],
      ['https://[::ffff:7f00:1]/', /IPv4-mapped/],
      ['https://3232235777/', /private/],
      ['https://8.8.8.8/', /an IP address; use a host name/],
      ['https://[2606:4700:4700::1111]/', /an IP address; use a host name/],
    ] as const) {
      await expectRefused(await create(key, url), url, reason);
    }
    expect(dns.queries).toEqual([]);
    for (const url of ['https://hooks.brand.example/in', 'https://hooks.brand.example:443/in', 'https://hooks.brand.example:8443/in']) {
      expect((await create(key, url)).status, url).toBe(201);
    }
  });

  it('registers a name whose every address is public, storing the normalised URL', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const res = await create(key, 'https://HOOKS.brand.example:443/in');
    expect(res.status).toBe(201);
    expect((await res.json()).data.url).toBe('https://hooks.brand.example/in');
    expect(
      queriedFor('hooks.brand.example')
        .map((q) => q.type)
        .sort(),
    ).toEqual(['A', 'AAAA']);
    expect(await endpointsOf(clinic.id)).toHaveLength(1);
  });

  it.each(['servfail', 'http500', 'hang', 'not-json'] as const)(
    'answers 503 DNS_RESOLVER_UNAVAILABLE with Retry-After when the resolver answers %s, and creates nothing',
    async (fault) => {
      const { clinic, key } = await makeTenant(t.db);
      dns.fault = fault;
      const res = await create(key, 'https://hooks.brand.example/in');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      const body = await res.json();
      expect(body).toMatchObject({ success: false, code: 'DNS_RESOLVER_UNAVAILABLE', retryAfterSeconds: 5 });
      expect(body.message).toContain("the URL's addresses could not be checked");
      expect(await endpointsOf(clinic.id)).toHaveLength(0);
    },
  );

  it('does not keep the 503 for an Idempotency-Key: the same request succeeds once the resolver answers', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const headers = { 'idempotency-key': `create-${randomUUID()}` };
    const send = () =>
      app.request('/api/v1/webhooks', { key, body: { url: 'https://hooks.brand.example/in', events: ['order.created'] }, headers });
    dns.fault = 'servfail';
    expect((await send()).status).toBe(503);
    dns.fault = 'pass';
    const created = await send();
    expect(created.status).toBe(201);
    expect((await send()).headers.get('idempotent-replayed')).toBe('true');
    expect(await endpointsOf(clinic.id)).toHaveLength(1);
  });

  it('answers 503 when the resolver cannot be reached at all', async () => {
    const gone = await startDohStandIn();
    await gone.close();
    const offline = buildTestApp(t.db, t.databaseUrl, { providers: { hostResolver: new DohHostResolver({ url: gone.url }) } });
    const { clinic, key } = await makeTenant(t.db);
    const res = await offline.request('/api/v1/webhooks', {
      key,
      body: { url: 'https://hooks.brand.example/in', events: ['order.created'] },
    });
    expect(res.status).toBe(503);
    expect((await res.json()).code).toBe('DNS_RESOLVER_UNAVAILABLE');
    expect(await endpointsOf(clinic.id)).toHaveLength(0);
  });

  it('checks a changed URL the same way (PATCH), keeps the old one when refused or unchecked, and resolves nothing when the URL is not changed', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const id = (await (await create(key, 'https://hooks.brand.example/in')).json()).data.id as string;
    const patch = (body: unknown) => app.request(`/api/v1/webhooks/${id}`, { key, method: 'PATCH', body });
    await expectRefused(await patch({ url: 'https://vcap.me/in' }), 'vcap.me', /resolves to 127\.0\.0\.1/);
    await expectRefused(await patch({ url: 'https://hooks.brand.example:9000/in' }), 'port', /port 443 or 8443/);
    dns.fault = 'servfail';
    const unchecked = await patch({ url: 'https://hooks.brand.example/other' });
    expect(unchecked.status).toBe(503);
    expect(unchecked.headers.get('retry-after')).toBe('5');
    dns.queries.length = 0;
    expect((await patch({ isActive: false })).status).toBe(200);
    expect((await patch({ events: ['order.shipped'] })).status).toBe(200);
    expect(dns.queries).toEqual([]);
    const [row] = await endpointsOf(clinic.id);
    expect(row!.url).toBe('https://hooks.brand.example/in');
  });
});

describe('sending (production resolver, again before every attempt)', () => {
  /** The receiver plays every public host: requests to any URL reach it, as the internet would route them. */
  const sent: string[] = [];
  const options = (): DeliveryOptions => ({
    ...deliveryOptions(app.services),
    random: () => 0.5,
    fetchImpl: (async (input: string, init: RequestInit) => {
      sent.push(String(input));
      return fetch(receiver.url, init);
    }) as typeof fetch,
  });
  const sentTo = (name: string) => sent.filter((url) => new URL(url).hostname === name);
  let warned: { mock: { calls: unknown[][] }; mockRestore(): void };
  beforeEach(() => {
    sent.length = 0;
    warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
    return () => warned.mockRestore();
  });
  const warnings = () => warned.mock.calls.map((call) => JSON.parse(String(call[0])) as Record<string, unknown>);

  async function endpointAt(name: string, records: { A?: string[]; AAAA?: string[] }) {
    const { clinic, key } = await makeTenant(t.db);
    dns.set(name, records);
    const res = await create(key, `https://${name}/in`);
    expect(res.status).toBe(201);
    return { clinicId: clinic.id, endpointId: (await res.json()).data.id as string };
  }
  async function pendingDelivery(clinicId: string, endpointId: string) {
    await recordOutboxEvent(t.db, clinicId, 'order.created', { orderId: randomUUID() });
    await dispatchOutbox(t.db, new Date());
    const rows = await t.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')));
    return rows[0]!;
  }
  const endpointRow = async (id: string) => (await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]!;
  const lastAttempt = async (deliveryId: string) =>
    (await t.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryId)).orderBy(webhookAttempts.attemptNumber)).at(
      -1,
    )!;

  it('refuses a name that rebinds to loopback after registration: nothing is sent, the failure counts, and it goes out once the name is public again', async () => {
    const name = `rebind-${randomUUID().slice(0, 8)}.brand.example`;
    const { clinicId, endpointId } = await endpointAt(name, { A: [PUBLIC_V4] });
    const delivery = await pendingDelivery(clinicId, endpointId);

    dns.set(name, { A: ['127.0.0.1'] });
    const now = new Date();
    expect(await attemptDelivery(t.db, delivery.id, now, options())).toBe('retrying');
    expect(sent).toEqual([]);
    expect(receiver.received).toHaveLength(0);
    const refused = await lastAttempt(delivery.id);
    expect(refused).toMatchObject({ attemptNumber: 1, responseStatus: null });
    expect(refused.error).toBe(`not sent: url must not point at a loopback address: ${name} resolves to 127.0.0.1`);
    expect(await endpointRow(endpointId)).toMatchObject({ consecutiveFailures: 1, isActive: true });
    // Operators see it: the ids and the reason (a host name and an address), nothing of the event.
    expect(warnings()).toEqual([
      {
        level: 'warn',
        msg: 'webhook destination refused',
        deliveryId: delivery.id,
        endpointId,
        reason: `must not point at a loopback address: ${name} resolves to 127.0.0.1`,
      },
    ]);

    dns.set(name, { A: [PUBLIC_V4] });
    const due = (await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id)))[0]!.nextAttemptAt!;
    expect(await attemptDelivery(t.db, delivery.id, due, options())).toBe('succeeded');
    expect(sent).toEqual([`https://${name}/in`]);
    expect(receiver.received).toHaveLength(1);
    expect(await endpointRow(endpointId)).toMatchObject({ consecutiveFailures: 0 });
  });

  it('refuses rbndr.us-style answers that alternate between a public and a private address whenever the private one comes back', async () => {
    const name = `5db8d70e.c0a80001.rbndr-${randomUUID().slice(0, 8)}.example`;
    const { clinicId, endpointId } = await endpointAt(name, { A: [PUBLIC_V4] });
    dns.set(name, { A: alternating(['192.168.0.1'], [PUBLIC_V4]) });
    const delivery = await pendingDelivery(clinicId, endpointId);
    expect(await attemptDelivery(t.db, delivery.id, new Date(), options())).toBe('retrying');
    expect(sent).toEqual([]);
    expect((await lastAttempt(delivery.id)).error).toContain(`${name} resolves to 192.168.0.1`);
  });

  it('turns the endpoint off after 10 refused attempts in a row, like any other failure, without sending one', async () => {
    const name = `cutoff-${randomUUID().slice(0, 8)}.brand.example`;
    const { clinicId, endpointId } = await endpointAt(name, { A: [PUBLIC_V4] });
    dns.set(name, { A: ['10.0.0.1'] });
    for (let i = 0; i < 10; i++) await recordOutboxEvent(t.db, clinicId, 'order.created', { orderId: randomUUID() });
    // The local dispatcher's run takes every clinic's due deliveries; this endpoint's are what is looked at.
    await runDueDeliveries(t.db, new Date(), 500, options());
    expect(sentTo(name)).toEqual([]);
    expect(await endpointRow(endpointId)).toMatchObject({ consecutiveFailures: 10, isActive: false });
  });

  it('records a resolver outage as a failed attempt with a clear error, retried on the schedule, not counted toward the cut-off, nothing sent', async () => {
    const name = `outage-${randomUUID().slice(0, 8)}.brand.example`;
    const { clinicId, endpointId } = await endpointAt(name, { A: [PUBLIC_V4] });
    for (let i = 0; i < 12; i++) await recordOutboxEvent(t.db, clinicId, 'order.created', { orderId: randomUUID() });
    dns.fault = 'servfail';
    const now = new Date();
    await runDueDeliveries(t.db, now, 500, options());
    expect(sentTo(name)).toEqual([]);
    const endpoint = await endpointRow(endpointId);
    expect(endpoint).toMatchObject({ consecutiveFailures: 0, isActive: true, lastTriggeredAt: null });
    const deliveries = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
    expect(
      deliveries.every((d) => d.status === 'pending' && d.attempts === 1 && d.nextAttemptAt!.getTime() === now.getTime() + 5_000),
    ).toBe(true);
    const attempt = await lastAttempt(deliveries[0]!.id);
    expect(attempt.error).toBe(`not sent: the URL's addresses could not be checked (cloudflare-doh: SERVFAIL for A ${name})`);

    dns.fault = 'pass';
    const later = new Date(now.getTime() + 5_000);
    await runDueDeliveries(t.db, later, 500, options());
    expect(sentTo(name)).toHaveLength(12);
    const after = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
    expect(after.map((d) => [d.status, d.attempts])).toEqual(Array.from({ length: 12 }, () => ['succeeded', 2]));
  });

  it('checks a URL stored before the rules tightened: a stored port 8080 is refused at send', async () => {
    const { clinic } = await makeTenant(t.db);
    const [endpoint] = await t.db
      .insert(webhookEndpoints)
      .values({ clinicId: clinic.id, url: 'https://hooks.brand.example:8080/in', events: ['order.created'] })
      .returning();
    await insertSigningSecret(t.db, clinic.id, endpoint!.id, app.config.secretKeys, new Date());
    const delivery = await pendingDelivery(clinic.id, endpoint!.id);
    expect(await attemptDelivery(t.db, delivery.id, new Date(), options())).toBe('retrying');
    expect(sent).toEqual([]);
    expect((await lastAttempt(delivery.id)).error).toBe('not sent: url must use port 443 or 8443, not 8080');
    const [event] = await t.db.select().from(outboxEvents).where(eq(outboxEvents.clinicId, clinic.id));
    expect(event!.dispatchedAt).not.toBeNull();
  });
});
