import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { outboxEvents, webhookDeliveries, webhookEndpoints, webhookSecrets } from '../../../drizzle/schema';
import { activeSigningSecrets, signingSecretsFor } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import { MAX_ENDPOINTS_PER_CLINIC } from '../../../src/modules/webhooks-checkout/webhooks/service';
import { WEBHOOK_EVENTS } from '../../../src/platform/events/names';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();

const URL_OK = 'https://hooks.example.com/service';
const create = (key: string, body: unknown) => t.request('/api/v1/webhooks', { key, body });

async function tenantWithEndpoint(body: { url?: string; events?: string[] } = {}) {
  const tenant = await makeTenant(t.db);
  const res = await create(tenant.key, { url: body.url ?? URL_OK, events: body.events ?? ['order.created'] });
  expect(res.status).toBe(201);
  const { data } = await res.json();
  return { ...tenant, endpoint: data as { id: string; secret: string } };
}

async function pendingDelivery(clinicId: string, endpointId: string) {
  const [event] = await t.db
    .insert(outboxEvents)
    .values({ clinicId, eventType: 'order.created', payload: { orderId: null } })
    .returning();
  const [delivery] = await t.db
    .insert(webhookDeliveries)
    .values({
      clinicId,
      endpointId,
      outboxEventId: event!.id,
      eventType: 'order.created',
      idempotencyKey: event!.id,
      nextAttemptAt: new Date(Date.now() + 3_600_000),
    })
    .returning();
  return delivery!;
}

const secretsOf = (tenant: { clinic: { id: string } }, endpointId: string, at = new Date()) =>
  activeSigningSecrets(t.db, tenant.clinic.id, endpointId, at, t.config.secretKeys);

describe('POST /api/v1/webhooks', () => {
  it('creates the endpoint and returns its secret once, with no-store; the secret is stored encrypted', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const res = await create(key, { url: URL_OK, events: ['payment.succeeded', 'order.created', 'order.created'] });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const { data } = await res.json();
    expect(data).toEqual({
      id: expect.any(String),
      url: URL_OK,
      events: ['payment.succeeded', 'order.created'],
      isActive: true,
      lastTriggeredAt: null,
      consecutiveFailures: 0,
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });

    const stored = await t.db.select().from(webhookSecrets).where(eq(webhookSecrets.endpointId, data.id));
    expect(stored).toHaveLength(1);
    expect(stored[0]!.clinicId).toBe(clinic.id);
    expect(stored[0]!.expiresAt).toBeNull();
    expect(stored[0]!.encryptedSecret).not.toContain(data.secret);
    expect(stored[0]!.encryptedSecret).not.toContain(data.secret.slice(6));
    const [endpointRow] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, data.id));
    expect(JSON.stringify(endpointRow)).not.toContain(data.secret.slice(6));
    expect(await secretsOf({ clinic }, data.id)).toEqual([data.secret]);
    expect(await signingSecretsFor(t.config.secretKeys)(t.db, clinic.id, data.id, new Date())).toEqual([data.secret]);
  });

  it('stores the URL as the parser normalises it', async () => {
    const { key } = await makeTenant(t.db);
    const { data } = await (await create(key, { url: '  https://Hooks.EXAMPLE.com:443/a/../b  ', events: ['order.created'] })).json();
    expect(data.url).toBe('https://hooks.example.com/b');
  });

  it('refuses unknown event names (naming them), an empty list and a missing field with 400', async () => {
    const { key } = await makeTenant(t.db);
    const unknown = await create(key, { url: URL_OK, events: ['order.created', 'order.exploded', 'nope', 'nope'] });
    expect(unknown.status).toBe(400);
    const body = await unknown.json();
    expect(body.message).toContain('body.events');
    expect(body.message).toContain('"order.exploded"');
    expect(body.message).toContain('"nope"');
    for (const bad of [
      { url: URL_OK, events: [] },
      { url: URL_OK },
      { events: ['order.created'] },
      { url: URL_OK, events: 'order.created' },
      { url: URL_OK, events: ['order.created'], extra: 1 },
    ]) {
      const res = await create(key, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    const all = await create(key, { url: URL_OK, events: [...WEBHOOK_EVENTS] });
    expect(all.status).toBe(201);
  });

  it('refuses hostile URLs with 400 naming body.url (the policy is unit-tested in full)', async () => {
    const { key } = await makeTenant(t.db);
    for (const url of [
      'http://example.com/hook',
      'https://127.0.0.1/',
      'https://2130706433/',
      'https://0x7f.0.0.1/',
      'https://[::ffff:127.0.0.1]/',
      'https://169.254.169.254/latest/meta-data/',
      'https://metadata.google.internal/',
      'https://localhost/',
      'https://10.0.0.8/',
      'https://u:p@example.com/',
      `https://example.com/${'a'.repeat(2048)}`,
      'http://127.0.0.1:9999/hook',
    ]) {
      const res = await create(key, { url, events: ['order.created'] });
      expect(res.status, url).toBe(400);
      expect((await res.json()).message, url).toContain('body.url');
    }
  });

  it('allows http://127.0.0.1:PORT and http://localhost:PORT only when the development flag is on', async () => {
    const { key } = await makeTenant(t.db);
    t.config.webhookAllowInsecureLocalhost = true;
    try {
      expect((await create(key, { url: 'http://127.0.0.1:9999/hook', events: ['order.created'] })).status).toBe(201);
      expect((await create(key, { url: 'http://localhost:3000/hook', events: ['order.created'] })).status).toBe(201);
      expect((await create(key, { url: 'http://10.0.0.1:3000/hook', events: ['order.created'] })).status).toBe(400);
    } finally {
      t.config.webhookAllowInsecureLocalhost = false;
    }
  });

  it(`allows ${MAX_ENDPOINTS_PER_CLINIC} endpoints per clinic (deleted ones do not count)`, async () => {
    const { clinic, key } = await makeTenant(t.db);
    await t.db.insert(webhookEndpoints).values(
      Array.from({ length: MAX_ENDPOINTS_PER_CLINIC }, (_, i) => ({
        clinicId: clinic.id,
        url: `https://e${i}.example.com/`,
        events: ['order.created'],
      })),
    );
    const refused = await create(key, { url: URL_OK, events: ['order.created'] });
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('WEBHOOK_ENDPOINT_LIMIT_REACHED');
    const [one] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.clinicId, clinic.id)).limit(1);
    expect((await t.request(`/api/v1/webhooks/${one!.id}`, { key, method: 'DELETE' })).status).toBe(200);
    expect((await create(key, { url: URL_OK, events: ['order.created'] })).status).toBe(201);
  });
});

describe('GET /api/v1/webhooks and /api/v1/webhooks/{id}', () => {
  it("lists the clinic's endpoints, newest first, never a secret, not deleted ones nor other clinics'", async () => {
    const mine = await tenantWithEndpoint({ events: ['order.created'] });
    t.clock.advance(1000);
    const second = (await (await create(mine.key, { url: 'https://two.example.com/', events: ['order.shipped'] })).json()).data;
    t.clock.advance(1000);
    const third = (await (await create(mine.key, { url: 'https://three.example.com/', events: ['order.shipped'] })).json()).data;
    await t.request(`/api/v1/webhooks/${third.id}`, { key: mine.key, method: 'DELETE' });
    const other = await tenantWithEndpoint();

    const res = await t.request('/api/v1/webhooks', { key: mine.key });
    expect(res.status).toBe(200);
    const raw = await res.text();
    expect(raw).not.toContain(mine.endpoint.secret.slice(6));
    expect(raw).not.toContain(second.secret.slice(6));
    expect(raw).not.toContain('whsec_');
    expect(raw).not.toMatch(/secret/i);
    const body = JSON.parse(raw);
    expect(body.data.map((e: { id: string }) => e.id)).toEqual([second.id, mine.endpoint.id]);
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });
    expect(body.data[1]).toEqual({
      id: mine.endpoint.id,
      url: URL_OK,
      events: ['order.created'],
      isActive: true,
      lastTriggeredAt: null,
      consecutiveFailures: 0,
      createdAt: expect.any(String),
    });
    expect(raw).not.toContain(other.endpoint.id);

    const one = await t.request(`/api/v1/webhooks/${mine.endpoint.id}`, { key: mine.key });
    expect(one.status).toBe(200);
    const oneRaw = await one.text();
    expect(oneRaw).not.toContain('whsec_');
    expect(JSON.parse(oneRaw).data.id).toBe(mine.endpoint.id);
  });

  it('costs two database round trips: the key lookup and one query', async () => {
    const { key } = await tenantWithEndpoint();
    for (const path of ['/api/v1/webhooks']) {
      await t.flush();
      t.forgetKeys(); // a cold key: the key lookup is counted
      t.queries.length = 0;
      expect((await t.request(path, { key })).status).toBe(200);
      await t.flush();
      expect(
        t.queries.filter((sql) => !sql.includes('"request_logs"')),
        path,
      ).toHaveLength(2);
    }
  });

  it('answers a read-only key', async () => {
    const { clinic } = await tenantWithEndpoint();
    const { raw } = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await t.request('/api/v1/webhooks', { key: raw })).status).toBe(200);
  });
});

describe('POST /api/v1/webhooks/{id}/rotate-secret', () => {
  it('default grace: the new secret is returned once; both sign for 24 hours, then only the new one', async () => {
    const tenant = await tenantWithEndpoint();
    const old = tenant.endpoint.secret;
    const now = Date.now();
    t.clock.freezeAt(now);
    const res = await t.request(`/api/v1/webhooks/${tenant.endpoint.id}/rotate-secret`, { key: tenant.key, method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { data } = await res.json();
    expect(data.secret).toMatch(/^whsec_/);
    expect(data.secret).not.toBe(old);
    expect(data.previousSecretExpiresAt).toBe(new Date(now + 86_400_000).toISOString());
    expect(data.id).toBe(tenant.endpoint.id);

    expect(await secretsOf(tenant, tenant.endpoint.id, new Date(now + 1000))).toEqual([data.secret, old]);
    expect(await secretsOf(tenant, tenant.endpoint.id, new Date(now + 86_399_000))).toEqual([data.secret, old]);
    expect(await secretsOf(tenant, tenant.endpoint.id, new Date(now + 86_400_000))).toEqual([data.secret]);

    const rows = await t.db.select().from(webhookSecrets).where(eq(webhookSecrets.endpointId, tenant.endpoint.id));
    for (const row of rows) {
      expect(row.encryptedSecret).not.toContain(data.secret.slice(6));
      expect(row.encryptedSecret).not.toContain(old.slice(6));
    }
    const list = await (await t.request('/api/v1/webhooks', { key: tenant.key })).text();
    expect(list).not.toContain('whsec_');
  });

  it('grace 0 ends the previous secret at once; a shorter grace caps older ones too', async () => {
    const tenant = await tenantWithEndpoint();
    const now = Date.now();
    t.clock.freezeAt(now);
    const rotate = (body?: unknown) =>
      t.request(`/api/v1/webhooks/${tenant.endpoint.id}/rotate-secret`, { key: tenant.key, method: 'POST', body });
    const first = (await (await rotate({})).json()).data;
    const second = (await (await rotate({ gracePeriodSeconds: 60 })).json()).data;
    expect(second.previousSecretExpiresAt).toBe(new Date(now + 60_000).toISOString());
    expect(await secretsOf(tenant, tenant.endpoint.id, new Date(now + 1000))).toEqual(
      [second.secret, first.secret, tenant.endpoint.secret].slice(0, 3),
    );
    const third = await rotate({ gracePeriodSeconds: 0 });
    expect(third.status).toBe(200);
    const data = (await third.json()).data;
    expect(data.previousSecretExpiresAt).toBe(new Date(now).toISOString());
    expect(await secretsOf(tenant, tenant.endpoint.id, new Date(now))).toEqual([data.secret]);
  });

  it('refuses a grace outside 0..86400 or not an integer with 400', async () => {
    const tenant = await tenantWithEndpoint();
    for (const gracePeriodSeconds of [-1, 86_401, 1.5, '60', null]) {
      const res = await t.request(`/api/v1/webhooks/${tenant.endpoint.id}/rotate-secret`, {
        key: tenant.key,
        body: { gracePeriodSeconds },
      });
      expect(res.status, String(gracePeriodSeconds)).toBe(400);
      expect((await res.json()).message).toContain('gracePeriodSeconds');
    }
    expect((await t.request(`/api/v1/webhooks/${tenant.endpoint.id}/rotate-secret`, { key: tenant.key, body: { other: 1 } })).status).toBe(
      400,
    );
  });
});

describe('PATCH /api/v1/webhooks/{id}', () => {
  it('turns a cut-off endpoint back on: failures reset, pending deliveries due now', async () => {
    const tenant = await tenantWithEndpoint();
    const disabledAt = new Date();
    await t.db
      .update(webhookEndpoints)
      .set({ isActive: false, consecutiveFailures: 10, disabledAt })
      .where(eq(webhookEndpoints.id, tenant.endpoint.id));
    const delivery = await pendingDelivery(tenant.clinic.id, tenant.endpoint.id);
    const now = Date.now();
    t.clock.freezeAt(now);

    const res = await t.request(`/api/v1/webhooks/${tenant.endpoint.id}`, { key: tenant.key, method: 'PATCH', body: { isActive: true } });
    expect(res.status).toBe(200);
    const raw = await res.text();
    expect(raw).not.toContain('whsec_');
    expect(JSON.parse(raw).data).toMatchObject({ isActive: true, consecutiveFailures: 0 });
    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, tenant.endpoint.id));
    expect(row!.disabledAt).toBeNull();
    const [after] = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id));
    expect(after!.status).toBe('pending');
    expect(after!.nextAttemptAt!.getTime()).toBe(now);
  });

  it('turns an endpoint off (deliveries kept) and changes url and events', async () => {
    const tenant = await tenantWithEndpoint();
    const delivery = await pendingDelivery(tenant.clinic.id, tenant.endpoint.id);
    const res = await t.request(`/api/v1/webhooks/${tenant.endpoint.id}`, {
      key: tenant.key,
      method: 'PATCH',
      body: { isActive: false, url: 'https://new.example.com/x', events: ['order.shipped', 'order.shipped', 'order.delivered'] },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({
      isActive: false,
      url: 'https://new.example.com/x',
      events: ['order.shipped', 'order.delivered'],
    });
    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, tenant.endpoint.id));
    expect(row!.disabledAt).not.toBeNull();
    const [after] = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id));
    expect(after!.status).toBe('pending');
  });

  it('refuses an empty body, unknown fields, bad events and hostile URLs with 400', async () => {
    const tenant = await tenantWithEndpoint();
    for (const body of [
      {},
      { isActive: 'yes' },
      { secret: 'x' },
      { events: [] },
      { events: ['nope'] },
      { url: 'https://127.0.0.1/' },
      { url: 'http://example.com/' },
    ]) {
      const res = await t.request(`/api/v1/webhooks/${tenant.endpoint.id}`, { key: tenant.key, method: 'PATCH', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('DELETE /api/v1/webhooks/{id}', () => {
  it('soft-deletes: answers { id }, stops pending deliveries, removes the secrets; a second delete is 404', async () => {
    const tenant = await tenantWithEndpoint();
    const delivery = await pendingDelivery(tenant.clinic.id, tenant.endpoint.id);
    const res = await t.request(`/api/v1/webhooks/${tenant.endpoint.id}`, { key: tenant.key, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ id: tenant.endpoint.id });
    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, tenant.endpoint.id));
    expect(row!.deletedAt).not.toBeNull();
    expect(row!.isActive).toBe(false);
    const [after] = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id));
    expect(after).toMatchObject({ status: 'failed', nextAttemptAt: null, lastError: 'endpoint deleted' });
    expect(
      await t.db
        .select()
        .from(webhookSecrets)
        .where(and(eq(webhookSecrets.endpointId, tenant.endpoint.id))),
    ).toHaveLength(0);
    expect((await t.request(`/api/v1/webhooks/${tenant.endpoint.id}`, { key: tenant.key, method: 'DELETE' })).status).toBe(404);
  });
});

describe('isolation and scope', () => {
  it("answers the same 404 for another clinic's, an unknown, a malformed and a deleted id on every id route", async () => {
    const mine = await tenantWithEndpoint();
    const theirs = await tenantWithEndpoint();
    const gone = (await (await create(mine.key, { url: URL_OK, events: ['order.created'] })).json()).data.id;
    await t.request(`/api/v1/webhooks/${gone}`, { key: mine.key, method: 'DELETE' });
    const ids = [theirs.endpoint.id, '00000000-0000-0000-0000-000000000000', 'not-a-uuid', gone];
    const calls: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['DELETE', '', undefined],
      ['PATCH', '', { isActive: true }],
      ['POST', '/rotate-secret', {}],
    ];
    const bodies = new Set<string>();
    for (const id of ids) {
      for (const [method, suffix, body] of calls) {
        const res = await t.request(`/api/v1/webhooks/${id}${suffix}`, { key: mine.key, method, body });
        expect(res.status, `${method} ${id}${suffix}`).toBe(404);
        const json = await res.json();
        bodies.add(JSON.stringify({ code: json.code, message: json.message }));
      }
    }
    expect(bodies.size).toBe(1);
    // Their endpoint and its secret are untouched.
    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, theirs.endpoint.id));
    expect(row!.deletedAt).toBeNull();
    expect(await secretsOf(theirs, theirs.endpoint.id)).toEqual([theirs.endpoint.secret]);
    expect(await secretsOf(mine, theirs.endpoint.id)).toEqual([]);
  });

  it('refuses every write with a read-only key (403 INSUFFICIENT_SCOPE)', async () => {
    const tenant = await tenantWithEndpoint();
    const { raw } = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
    const id = tenant.endpoint.id;
    const writes: [string, string, unknown][] = [
      ['POST', '/api/v1/webhooks', { url: URL_OK, events: ['order.created'] }],
      ['PATCH', `/api/v1/webhooks/${id}`, { isActive: false }],
      ['DELETE', `/api/v1/webhooks/${id}`, undefined],
      ['POST', `/api/v1/webhooks/${id}/rotate-secret`, {}],
    ];
    for (const [method, path, body] of writes) {
      const res = await t.request(path, { key: raw, method, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
    }
    expect(await secretsOf(tenant, id)).toEqual([tenant.endpoint.secret]);
  });
});
