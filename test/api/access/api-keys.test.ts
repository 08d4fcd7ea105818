import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiKeys, users } from '../../../drizzle/schema';
import { hashApiKey } from '../../../src/platform/auth/api-key-format';
import { issueToken } from '../../../src/platform/auth/jwt';
import { useTestApp } from '../../helpers/app';
import { makeClinic, makeKey, makeUser, TEST_PASSWORD } from '../../helpers/factories';

const t = useTestApp();

async function adminOf(options: Parameters<typeof makeClinic>[1] = {}, role: 'owner' | 'admin' | 'member' = 'owner') {
  const clinic = await makeClinic(t.db, options);
  const user = await makeUser(t.db, clinic.id, { role });
  const res = await t.request('/auth/signin', { body: { email: user.email, password: TEST_PASSWORD } });
  const { data } = await res.json();
  return { clinic, user, token: data.token as string };
}

const create = (token: string, body: unknown) => t.request('/api-keys', { token, body });

describe('POST /api-keys', () => {
  it('creates a read-only secret key expiring in a year, returns the raw key once and stores only its hash', async () => {
    const { clinic, user, token } = await adminOf();
    const res = await create(token, { name: 'Server' });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data.apiKey).toMatch(/^svc_live_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/);
    expect(data.kind).toBe('secret');
    expect(data.scopes).toEqual(['read']);
    expect(data.isSandbox).toBe(false);
    expect(data.keyPrefix).toBe(data.apiKey.slice(0, 17));
    const year = Date.now() + 365 * 86_400_000;
    expect(Math.abs(new Date(data.expiresAt).getTime() - year)).toBeLessThan(60_000);

    const [row] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, data.id));
    expect(row!.clinicId).toBe(clinic.id);
    expect(row!.createdByUserId).toBe(user.id);
    expect(row!.keyHash).toBe(await hashApiKey(data.apiKey));
    expect(JSON.stringify(row)).not.toContain(data.apiKey);

    const me = await t.request('/api/v1/me', { key: data.apiKey });
    expect((await me.json()).data).toMatchObject({ clinicId: clinic.id, keyName: 'Server', scopes: ['read'], kind: 'secret' });
  });

  it('honours scopes, expiresAt null (never) and an explicit future expiry', async () => {
    const { token } = await adminOf();
    const never = await (await create(token, { name: 'n', scopes: ['write', 'read', 'write'], expiresAt: null })).json();
    expect(never.data.scopes).toEqual(['read', 'write']);
    expect(never.data.expiresAt).toBeNull();
    const at = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const dated = await (await create(token, { name: 'd', expiresAt: at })).json();
    expect(dated.data.expiresAt).toBe(at);
  });

  it('refuses a past expiresAt with 400', async () => {
    const { token } = await adminOf();
    const res = await create(token, { name: 'old', expiresAt: '2020-01-01T00:00:00Z' });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain('expiresAt');
  });

  it('forces publishable keys to read+write and AI-connector keys to read', async () => {
    const { token } = await adminOf();
    const pk = (await (await create(token, { name: 'browser', kind: 'publishable', scopes: ['read'] })).json()).data;
    expect(pk.apiKey).toMatch(/^svc_pk_/);
    expect(pk.kind).toBe('publishable');
    expect(pk.scopes).toEqual(['read', 'write']);
    const ai = (await (await create(token, { name: 'assistant', kind: 'ai_connector', scopes: ['read', 'write'] })).json()).data;
    expect(ai.apiKey).toMatch(/^svc_ai_/);
    expect(ai.scopes).toEqual(['read']);
  });

  it('makes every key of a sandbox clinic a svc_test_ sandbox key', async () => {
    const { token } = await adminOf({ mode: 'sandbox' });
    const { data } = await (await create(token, { name: 'sandbox', scopes: ['read', 'write'] })).json();
    expect(data.apiKey).toMatch(/^svc_test_/);
    expect(data.isSandbox).toBe(true);
    const me = await (await t.request('/api/v1/me', { key: data.apiKey })).json();
    expect(me.data.isSandbox).toBe(true);
  });

  it('allows at most 5 active keys; revoked and expired ones do not count', async () => {
    const { clinic, token } = await adminOf();
    await makeKey(t.db, clinic.id, { revokedAt: new Date() });
    await makeKey(t.db, clinic.id, { expiresAt: new Date(Date.now() - 1000) });
    const created = [];
    for (let i = 0; i < 5; i++) {
      const res = await create(token, { name: `k${i}` });
      expect(res.status).toBe(201);
      created.push((await res.json()).data);
    }
    const sixth = await create(token, { name: 'k5' });
    expect(sixth.status).toBe(409);
    expect(await sixth.json()).toMatchObject({ success: false, code: 'ACTIVE_KEY_LIMIT_REACHED' });
    await t.request(`/api-keys/${created[0].id}`, { token, method: 'DELETE' });
    expect((await create(token, { name: 'k6' })).status).toBe(201);
  });

  it('holds the limit under concurrent creation', async () => {
    const { token } = await adminOf();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => create(token, { name: `c${i}` })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(3);
  });

  it('lets a key lower its own minute limit but not raise it', async () => {
    const { token } = await adminOf();
    const low = await create(token, { name: 'slow', rateLimitPerMin: 30 });
    expect((await low.json()).data.rateLimitPerMin).toBe(30);
    expect((await create(token, { name: 'fast', rateLimitPerMin: 1000 })).status).toBe(400);
  });

  it('validates the body: names the field, refuses unknown fields and kinds', async () => {
    const { token } = await adminOf();
    for (const body of [
      {},
      { name: '' },
      { name: 'x', kind: 'root' },
      { name: 'x', scopes: ['admin'] },
      { name: 'x', scopes: [] },
      { name: 'x', expiresAt: 'tomorrow' },
      { name: 'x', extra: 1 },
      [1, 2],
    ]) {
      const res = await create(token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).code).toBe('VALIDATION_ERROR');
    }
    const wrongType = await t.request('/api-keys', { token, body: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(wrongType.status).toBe(415);
  });
});

describe('bearer token checks', () => {
  it('answers 401 without a valid brand-admin token, 403 for a member', async () => {
    const { clinic } = await adminOf();
    for (const headers of [{}, { authorization: 'Bearer nonsense' }, { authorization: 'Basic abc' }] as Record<string, string>[]) {
      const res = await t.request('/api-keys', { headers });
      expect(res.status).toBe(401);
    }
    const otherSecret = await issueToken({ userId: crypto.randomUUID(), clinicId: clinic.id, role: 'owner' }, 'another-secret', new Date());
    expect((await t.request('/api-keys', { token: otherSecret.token })).status).toBe(401);
    const expired = await issueToken(
      { userId: crypto.randomUUID(), clinicId: clinic.id, role: 'owner' },
      t.config.jwtSecret,
      new Date(Date.now() - 13 * 3600_000),
    );
    expect((await t.request('/api-keys', { token: expired.token })).status).toBe(401);
    const member = await adminOf({}, 'member');
    const res = await t.request('/api-keys', { token: member.token });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('FORBIDDEN');
  });

  it('stops a token when its user is deactivated', async () => {
    const { user, token } = await adminOf();
    expect((await t.request('/api-keys', { token })).status).toBe(200);
    await t.db.update(users).set({ isActive: false }).where(eq(users.id, user.id));
    expect((await t.request('/api-keys', { token })).status).toBe(401);
  });

  it('does not accept an API key in place of a token', async () => {
    const { clinic } = await adminOf();
    const { raw } = await makeKey(t.db, clinic.id);
    expect((await t.request('/api-keys', { key: raw })).status).toBe(401);
  });
});

describe('GET /api-keys', () => {
  it('lists metadata newest first, never a secret, only the own clinic', async () => {
    const { clinic, token } = await adminOf();
    const other = await adminOf();
    await makeKey(t.db, other.clinic.id);
    const a = (await (await create(token, { name: 'first' })).json()).data;
    const b = (await (await create(token, { name: 'second' })).json()).data;
    await t.request('/api/v1/me', { key: a.apiKey });
    await t.flush();
    const res = await t.request('/api-keys', { token });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });
    expect(body.data.map((k: { name: string }) => k.name)).toEqual(['second', 'first']);
    const listed = body.data[1];
    expect(Object.keys(listed).sort()).toEqual(
      [
        'createdAt',
        'expiresAt',
        'id',
        'isSandbox',
        'keyPrefix',
        'kind',
        'lastUsedAt',
        'name',
        'rateLimitPerMin',
        'revokedAt',
        'rolledToKeyId',
        'scopes',
      ].sort(),
    );
    expect(listed.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(body)).not.toContain(a.apiKey);
    expect(JSON.stringify(body)).not.toContain(b.apiKey);
    expect(body.data.every((k: { id: string }) => k.id !== other.clinic.id)).toBe(true);
    void clinic;
  });

  it('pages with page and limit, and reports totals', async () => {
    const { clinic, token } = await adminOf();
    for (let i = 0; i < 7; i++) await makeKey(t.db, clinic.id, { name: `k${i}`, revokedAt: new Date() });
    const page2 = await (await t.request('/api-keys?page=2&limit=3', { token })).json();
    expect(page2.pagination).toEqual({ page: 2, limit: 3, total: 7, totalPages: 3 });
    expect(page2.data).toHaveLength(3);
    const past = await (await t.request('/api-keys?page=9&limit=3', { token })).json();
    expect(past.data).toEqual([]);
    expect(past.pagination).toEqual({ page: 9, limit: 3, total: 7, totalPages: 3 });
    const max = await t.request('/api-keys?limit=200', { token });
    expect(max.status).toBe(200);
    for (const query of ['limit=201', 'limit=0', 'page=0', 'page=abc', 'limit=2.5']) {
      const res = await t.request(`/api-keys?${query}`, { token });
      expect(res.status, query).toBe(400);
    }
  });
});

describe('DELETE /api-keys/{id}', () => {
  it('revokes immediately', async () => {
    const { token } = await adminOf();
    const key = (await (await create(token, { name: 'temp' })).json()).data;
    expect((await t.request('/api/v1/me', { key: key.apiKey })).status).toBe(200);
    const res = await t.request(`/api-keys/${key.id}`, { token, method: 'DELETE' });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.revokedAt).not.toBeNull();
    expect(data).not.toHaveProperty('apiKey');
    expect((await t.request('/api/v1/me', { key: key.apiKey })).status).toBe(401);
    // Revoking again changes nothing.
    const again = await (await t.request(`/api-keys/${key.id}`, { token, method: 'DELETE' })).json();
    expect(again.data.revokedAt).toBe(data.revokedAt);
  });

  it("answers the same 404 for an unknown, a malformed and another clinic's key id", async () => {
    const { token } = await adminOf();
    const other = await adminOf();
    const foreign = await makeKey(t.db, other.clinic.id);
    const bodies = new Set<string>();
    for (const id of [crypto.randomUUID(), 'not-a-uuid', foreign.row.id, "1' or '1'='1"]) {
      const res = await t.request(`/api-keys/${encodeURIComponent(id)}`, { token, method: 'DELETE' });
      expect(res.status).toBe(404);
      bodies.add(await res.text());
    }
    expect(bodies.size).toBe(1);
    expect((await t.request('/api/v1/me', { key: foreign.raw })).status).toBe(200);
  });
});
