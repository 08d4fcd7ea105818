// CRM connection: tier-gated (CRM_TIER_REQUIRED after the scope check), credentials encrypted and never
// returned, OAuth start with a signed expiring state that changes nothing, PHI sync behind a BAA.
import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { crmConnections } from '../../../drizzle/schema';
import { DEVELOPMENT_WEBHOOK_SECRET_KEY } from '../../../src/config';
import { decryptCrmCredentials } from '../../../src/modules/crm/connection/credentials';
import { OAUTH_STATE_TTL_SECONDS, verifyOAuthState } from '../../../src/modules/crm/connection/oauth-state';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
const API_KEY = 'pat-na1-3f9c2a71-5be0-4c1d-9e8f-0a1b2c3d7f3a';

async function crmTenant() {
  const tenant = await makeTenant(t.db, { entitlements: ['crm_connect'] });
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, readKey: readOnly.raw };
}

const connect = (key: string, body: unknown = { provider: 'hubspot', apiKey: API_KEY }) =>
  t.request('/api/v1/crm/connect/apikey', { key, body });

/** Every route of the area, with a valid request for it. */
const ROUTES: { method: string; path: string; body?: unknown; write: boolean }[] = [
  { method: 'GET', path: '/api/v1/crm/connection', write: false },
  { method: 'DELETE', path: '/api/v1/crm/connection', write: true },
  { method: 'POST', path: '/api/v1/crm/connect/apikey', body: { provider: 'hubspot', apiKey: API_KEY }, write: true },
  { method: 'GET', path: '/api/v1/crm/connect/oauth/start?provider=hubspot', write: false },
  { method: 'PATCH', path: '/api/v1/crm/connection/phi-sync', body: { phiSyncEnabled: true, baaAttested: true }, write: true },
];

describe('the CRM Connect gate', () => {
  it('answers 403 CRM_TIER_REQUIRED on every route for a clinic without the entitlement', async () => {
    const { key } = await makeTenant(t.db, { entitlements: ['affiliates'] });
    for (const route of ROUTES) {
      const res = await t.request(route.path, { key, method: route.method, body: route.body });
      expect(res.status, `${route.method} ${route.path}`).toBe(403);
      expect((await res.json()).code, route.path).toBe('CRM_TIER_REQUIRED');
    }
  });

  it('checks the scope before the gate: a read-only key without the entitlement gets INSUFFICIENT_SCOPE on writes', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    for (const route of ROUTES) {
      const res = await t.request(route.path, { key: readOnly.raw, method: route.method, body: route.body });
      expect((await res.json()).code, route.path).toBe(route.write ? 'INSUFFICIENT_SCOPE' : 'CRM_TIER_REQUIRED');
    }
  });

  it('checks the gate before the body: an invalid body without the entitlement is still 403', async () => {
    const { key } = await makeTenant(t.db);
    const res = await t.request('/api/v1/crm/connect/apikey', { key, body: { provider: 'nope' } });
    expect((await res.json()).code).toBe('CRM_TIER_REQUIRED');
  });
});

describe('connecting with an API key', () => {
  it('stores the key encrypted, answers the safe projection, and never returns the key anywhere', async () => {
    const { clinic, key } = await crmTenant();
    t.clock.freezeAt(Date.now());
    const responses: string[] = [];
    const res = await connect(key, { provider: 'hubspot', apiKey: `  ${API_KEY} ` });
    expect(res.status).toBe(200);
    const text = await res.text();
    responses.push(text);
    expect(JSON.parse(text).data).toEqual({
      provider: 'hubspot',
      authType: 'api_key',
      credentialHint: '••••7f3a',
      accountName: null,
      phiSyncEnabled: false,
      baaAttestedAt: null,
      connectedAt: new Date(t.clock.now()).toISOString(),
      lastSyncedAt: null,
    });
    const [row] = await t.db.select().from(crmConnections).where(eq(crmConnections.clinicId, clinic.id));
    expect(row!.encryptedCredentials).not.toContain(API_KEY);
    expect(row!.encryptedCredentials).not.toContain('pat-na1');
    expect(await decryptCrmCredentials(row!.encryptedCredentials, clinic.id, DEVELOPMENT_WEBHOOK_SECRET_KEY)).toEqual({ apiKey: API_KEY });
    // Bound to its clinic: the same ciphertext does not decrypt as another clinic's.
    await expect(decryptCrmCredentials(row!.encryptedCredentials, crypto.randomUUID(), DEVELOPMENT_WEBHOOK_SECRET_KEY)).rejects.toThrow();

    for (const route of ROUTES.filter((r) => !r.path.includes('apikey') && r.method !== 'DELETE')) {
      responses.push(await (await t.request(route.path, { key, method: route.method, body: route.body })).text());
    }
    responses.push(await (await t.request('/api/v1/crm/connection', { key, method: 'DELETE' })).text());
    for (const body of responses) {
      expect(body).not.toContain(API_KEY);
      expect(body).not.toContain(API_KEY.slice(0, 20));
      expect(body).not.toContain(row!.encryptedCredentials);
    }
  });

  it('replaces an existing connection (one per clinic); PHI sync starts off again', async () => {
    const { clinic, key } = await crmTenant();
    await connect(key);
    expect(
      (await t.request('/api/v1/crm/connection/phi-sync', { key, method: 'PATCH', body: { phiSyncEnabled: true, baaAttested: true } }))
        .status,
    ).toBe(200);
    const res = await connect(key, { provider: 'pipedrive', apiKey: '0123456789abcdef0123456789abcdef01234567' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({
      provider: 'pipedrive',
      credentialHint: '••••4567',
      phiSyncEnabled: false,
      baaAttestedAt: null,
    });
    const rows = await t.db.select().from(crmConnections).where(eq(crmConnections.clinicId, clinic.id));
    expect(rows).toHaveLength(1);
    expect(await decryptCrmCredentials(rows[0]!.encryptedCredentials, clinic.id, DEVELOPMENT_WEBHOOK_SECRET_KEY)).toEqual({
      apiKey: '0123456789abcdef0123456789abcdef01234567',
    });
  });

  it('refuses unknown providers, OAuth-only providers, short or spaced keys, extra fields (400)', async () => {
    const { clinic, key } = await crmTenant();
    for (const [body, field] of [
      [{ provider: 'mailchimp', apiKey: API_KEY }, 'body.provider'],
      [{ provider: 'salesforce', apiKey: API_KEY }, 'body.provider'],
      [{ provider: 'zoho', apiKey: API_KEY }, 'body.provider'],
      [{ provider: 'hubspot', apiKey: 'short' }, 'body.apiKey'],
      [{ provider: 'hubspot', apiKey: 'abc def ghi jkl mno' }, 'body.apiKey'],
      [{ provider: 'hubspot' }, 'body.apiKey'],
      [{ provider: 'hubspot', apiKey: API_KEY, accountName: 'x' }, 'body'],
    ] as const) {
      const res = await connect(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const text = await res.text();
      expect(text).not.toContain(API_KEY);
      expect(
        JSON.parse(text)
          .errors.map((e: { field: string }) => e.field)
          .join(' '),
      ).toContain(field);
    }
    expect(await t.db.select().from(crmConnections).where(eq(crmConnections.clinicId, clinic.id))).toEqual([]);
  });
});

describe('GET and DELETE /api/v1/crm/connection', () => {
  it('answers data null when not connected, the projection when connected; DELETE removes the row (then 404)', async () => {
    const { clinic, key, readKey } = await crmTenant();
    const none = await t.request('/api/v1/crm/connection', { key: readKey });
    expect(none.status).toBe(200);
    expect((await none.json()).data).toBeNull();
    expect((await t.request('/api/v1/crm/connection', { key, method: 'DELETE' })).status).toBe(404);
    await connect(key);
    const got = await (await t.request('/api/v1/crm/connection', { key: readKey })).json();
    expect(got.data).toMatchObject({ provider: 'hubspot', authType: 'api_key', credentialHint: '••••7f3a' });
    const res = await t.request('/api/v1/crm/connection', { key, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ provider: 'hubspot', disconnected: true });
    expect(await t.db.select().from(crmConnections).where(eq(crmConnections.clinicId, clinic.id))).toEqual([]);
    expect((await (await t.request('/api/v1/crm/connection', { key })).json()).data).toBeNull();
    expect((await t.request('/api/v1/crm/connection', { key, method: 'DELETE' })).status).toBe(404);
  });

  it("never shows or removes another clinic's connection", async () => {
    const a = await crmTenant();
    const b = await crmTenant();
    await connect(a.key);
    expect((await (await t.request('/api/v1/crm/connection', { key: b.key })).json()).data).toBeNull();
    expect((await t.request('/api/v1/crm/connection', { key: b.key, method: 'DELETE' })).status).toBe(404);
    expect(
      (await t.request('/api/v1/crm/connection/phi-sync', { key: b.key, method: 'PATCH', body: { phiSyncEnabled: false } })).status,
    ).toBe(404);
    expect(await t.db.select().from(crmConnections).where(eq(crmConnections.clinicId, a.clinic.id))).toHaveLength(1);
  });
});

describe('PATCH /api/v1/crm/connection/phi-sync', () => {
  const patch = (key: string, body: unknown) => t.request('/api/v1/crm/connection/phi-sync', { key, method: 'PATCH', body });

  it('enables only with baaAttested true, recording when; disables keeping the attestation', async () => {
    const { key } = await crmTenant();
    await connect(key);
    for (const body of [{ phiSyncEnabled: true }, { phiSyncEnabled: true, baaAttested: false }]) {
      const res = await patch(key, body);
      expect(res.status).toBe(400);
      expect((await res.json()).errors[0].field).toBe('body.baaAttested');
    }
    t.clock.freezeAt(Date.now());
    const on = await patch(key, { phiSyncEnabled: true, baaAttested: true });
    expect(on.status).toBe(200);
    const attestedAt = new Date(t.clock.now()).toISOString();
    expect((await on.json()).data).toMatchObject({ phiSyncEnabled: true, baaAttestedAt: attestedAt });
    t.clock.advance(60_000);
    const off = await patch(key, { phiSyncEnabled: false, baaAttested: false });
    expect((await off.json()).data).toMatchObject({ phiSyncEnabled: false, baaAttestedAt: attestedAt });
  });

  it('answers 404 when not connected and 400 for a bad body', async () => {
    const { key } = await crmTenant();
    expect((await patch(key, { phiSyncEnabled: false })).status).toBe(404);
    expect((await patch(key, { phiSyncEnabled: 'yes' })).status).toBe(400);
    expect((await patch(key, {})).status).toBe(400);
  });
});

describe('GET /api/v1/crm/connect/oauth/start', () => {
  it('answers an authorize URL with a signed state that carries the clinic and provider, changing nothing', async () => {
    const { clinic, key, readKey } = await crmTenant();
    await connect(key);
    const [before] = await t.db.select().from(crmConnections).where(eq(crmConnections.clinicId, clinic.id));
    const total = (await t.db.select({ total: count() }).from(crmConnections))[0]!.total;
    t.clock.freezeAt(Date.now());
    await t.flush();
    t.queries.length = 0;
    const res = await t.request('/api/v1/crm/connect/oauth/start?provider=salesforce', { key: readKey });
    await t.flush();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { data } = await res.json();
    const url = new URL(data.authorizeUrl);
    expect(url.origin + url.pathname).toBe('https://login.salesforce.com/services/oauth2/authorize');
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('state')).toBe(data.state);
    expect(url.searchParams.get('client_id')).toBeTruthy();
    expect(url.searchParams.get('redirect_uri')).toBeTruthy();
    expect(data.provider).toBe('salesforce');
    expect(data.expiresAt).toBe(new Date(Math.floor(t.clock.now() / 1000) * 1000 + OAUTH_STATE_TTL_SECONDS * 1000).toISOString());

    const check = await verifyOAuthState(data.state, DEVELOPMENT_WEBHOOK_SECRET_KEY, new Date(t.clock.now()));
    expect(check).toMatchObject({ ok: true, payload: { clinicId: clinic.id, provider: 'salesforce' } });

    // Nothing written: no insert, update or delete went to the database, and the connection is as it was.
    expect(t.queries.filter((q) => !q.includes('"request_logs"') && /^\s*(insert|update|delete)/i.test(q))).toEqual([]);
    const [after] = await t.db.select().from(crmConnections).where(eq(crmConnections.clinicId, clinic.id));
    expect(after).toEqual(before);
    expect((await t.db.select({ total: count() }).from(crmConnections))[0]!.total).toBe(total);
  });

  it('issues a fresh state each time; a state expires after 10 minutes and any change breaks it', async () => {
    const { key } = await crmTenant();
    t.clock.freezeAt(Date.now());
    const a = (await (await t.request('/api/v1/crm/connect/oauth/start?provider=hubspot', { key })).json()).data;
    const b = (await (await t.request('/api/v1/crm/connect/oauth/start?provider=hubspot', { key })).json()).data;
    expect(a.state).not.toBe(b.state);
    const issued = t.clock.now();
    expect((await verifyOAuthState(a.state, DEVELOPMENT_WEBHOOK_SECRET_KEY, new Date(issued + 9 * 60_000))).ok).toBe(true);
    expect(await verifyOAuthState(a.state, DEVELOPMENT_WEBHOOK_SECRET_KEY, new Date(issued + 10 * 60_000 + 1_000))).toEqual({
      ok: false,
      reason: 'expired',
    });

    const [version, payload, mac] = a.state.split('.');
    const forged = JSON.parse(Buffer.from(payload, 'base64url').toString());
    forged.c = crypto.randomUUID();
    const altered = `${version}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`;
    expect(await verifyOAuthState(altered, DEVELOPMENT_WEBHOOK_SECRET_KEY, new Date(issued))).toEqual({ ok: false, reason: 'signature' });
    const otherKey = Buffer.alloc(32, 7).toString('base64');
    expect(await verifyOAuthState(a.state, otherKey, new Date(issued))).toEqual({ ok: false, reason: 'signature' });
    for (const bad of ['', 'v1.x', 'v2.a.b', `${version}.${payload}.!!`, 'a.b.c.d']) {
      expect((await verifyOAuthState(bad, DEVELOPMENT_WEBHOOK_SECRET_KEY, new Date(issued))).ok).toBe(false);
    }
  });

  it('refuses an unknown or empty provider (400 naming it)', async () => {
    const { key } = await crmTenant();
    for (const query of ['?provider=mailchimp', '?provider=', '?provider=HubSpot']) {
      const res = await t.request(`/api/v1/crm/connect/oauth/start${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(await res.json()), query).toContain('provider');
    }
  });

  const start = async (key: string, query = '') => {
    const res = await t.request(`/api/v1/crm/connect/oauth/start${query}`, { key });
    return { status: res.status, body: await res.json() };
  };

  it('without a provider: the first provider for a clinic with no connection, its connected provider otherwise', async () => {
    const { clinic, key, readKey } = await crmTenant();
    const fresh = await start(readKey);
    expect(fresh.status).toBe(200);
    expect(fresh.body.data.provider).toBe('hubspot');
    expect(new URL(fresh.body.data.authorizeUrl).origin).toBe('https://app.hubspot.com');
    const check = await verifyOAuthState(fresh.body.data.state, DEVELOPMENT_WEBHOOK_SECRET_KEY, new Date(t.clock.now()));
    expect(check).toMatchObject({ ok: true, payload: { clinicId: clinic.id, provider: 'hubspot' } });

    expect((await connect(key, { provider: 'pipedrive', apiKey: API_KEY })).status).toBe(200);
    const connected = await start(readKey);
    expect(connected.status).toBe(200);
    expect(connected.body.data.provider).toBe('pipedrive');
    expect(new URL(connected.body.data.authorizeUrl).origin).toBe('https://oauth.pipedrive.com');
    // A named provider wins over the connected one.
    expect((await start(readKey, '?provider=zoho')).body.data.provider).toBe('zoho');
    // Another clinic's connection is not this clinic's choice.
    expect((await start((await crmTenant()).readKey)).body.data.provider).toBe('hubspot');
  });

  it('in production without a provider: the first with an OAuth app configured; 503 when the default has none', async () => {
    const { key, readKey } = await crmTenant();
    const saved = { environment: t.config.environment, crmOAuth: t.config.crmOAuth };
    try {
      t.config.environment = 'production';
      t.config.crmOAuth = { redirectUrl: null, clientIds: {} };
      const none = await start(readKey);
      expect(none.status).toBe(503);
      expect(none.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'OAuth with HubSpot is not configured on this deployment' });

      t.config.crmOAuth = { redirectUrl: 'https://portal.example.com/crm/callback', clientIds: { zoho: 'zoho-app', salesforce: 'sf-app' } };
      const first = await start(readKey);
      expect(first.status).toBe(200);
      expect(first.body.data.provider).toBe('salesforce');
      expect(new URL(first.body.data.authorizeUrl).searchParams.get('client_id')).toBe('sf-app');

      // The connected provider is the clinic's choice: without its OAuth app, the deployment's 503.
      await connect(key, { provider: 'pipedrive', apiKey: API_KEY });
      expect(await start(readKey)).toMatchObject({
        status: 503,
        body: { message: 'OAuth with Pipedrive is not configured on this deployment' },
      });
    } finally {
      Object.assign(t.config, saved);
    }
  });
});
