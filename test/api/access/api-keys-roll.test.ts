// POST /api-keys/{id}/roll (docs/api-keys.md, "Rolling a key").
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiKeys } from '../../../drizzle/schema';
import { MAX_ACTIVE_KEYS } from '../../../src/modules/access/api-keys/service';
import { useTestApp } from '../../helpers/app';
import { makeClinic, makeUser, TEST_PASSWORD } from '../../helpers/factories';

const t = useTestApp();

async function adminOf(role: 'owner' | 'admin' | 'member' = 'owner', clinicId?: string) {
  const clinic = clinicId ? { id: clinicId } : await makeClinic(t.db);
  const user = await makeUser(t.db, clinic.id, { role });
  const res = await t.request('/auth/signin', { body: { email: user.email, password: TEST_PASSWORD } });
  return { clinicId: clinic.id, token: (await res.json()).data.token as string };
}

async function createKey(token: string, body: Record<string, unknown> = {}) {
  const res = await t.request('/api-keys', { token, body: { name: 'Server', scopes: ['read', 'write'], ...body } });
  expect(res.status).toBe(201);
  return (await res.json()).data as { id: string; apiKey: string; expiresAt: string | null; createdAt: string };
}

const roll = (token: string, id: string, body?: unknown) => t.request(`/api-keys/${id}/roll`, { token, method: 'POST', body });
const me = (key: string) => t.request('/api/v1/me', { key });

describe('POST /api-keys/{id}/roll', () => {
  it('answers a new raw key once with the same name, kind and scopes; the old key works for 24 hours, then not', async () => {
    const { token } = await adminOf();
    const old = await createKey(token, { rateLimitPerMin: 100 });
    const res = await roll(token, old.id);
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { data } = await res.json();
    expect(data.apiKey).toMatch(/^svc_live_/);
    expect(data.apiKey).not.toBe(old.apiKey);
    expect(data).toMatchObject({ name: 'Server', kind: 'secret', scopes: ['read', 'write'], rateLimitPerMin: 100, rolledToKeyId: null });
    expect(data.previousKey).toMatchObject({ id: old.id, rolledToKeyId: data.id, revokedAt: null });
    expect(data.previousKey.apiKey).toBeUndefined();
    const day = Date.now() + 86_400_000;
    expect(Math.abs(new Date(data.previousKey.expiresAt).getTime() - day)).toBeLessThan(60_000);
    // The new key lives as long as the old one was meant to (a year, from now).
    expect(Math.abs(new Date(data.expiresAt).getTime() - (Date.now() + 365 * 86_400_000))).toBeLessThan(60_000);

    expect((await me(old.apiKey)).status).toBe(200);
    expect((await me(data.apiKey)).status).toBe(200);
    t.clock.freezeAt(Date.now() + 86_400_000 + 60_000);
    expect((await me(old.apiKey)).status).toBe(401);
    expect((await me(data.apiKey)).status).toBe(200);

    // The list shows both, the old one pointing at its successor; the raw keys never.
    const list = await (await t.request('/api-keys', { token })).json();
    const listed = list.data.find((k: { id: string }) => k.id === old.id);
    expect(listed.rolledToKeyId).toBe(data.id);
    expect(JSON.stringify(list)).not.toContain(data.apiKey);
  });

  it("takes expiresInSeconds: 0 ends the old key now; never beyond 7 days or the old key's own expiry", async () => {
    const { token } = await adminOf();
    const now = await createKey(token);
    const res = await roll(token, now.id, { expiresInSeconds: 0 });
    expect(res.status).toBe(201);
    expect((await me(now.apiKey)).status).toBe(401);
    expect((await me((await res.json()).data.apiKey)).status).toBe(200);

    const soon = await createKey(token, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    const { data } = await (await roll(token, soon.id, { expiresInSeconds: 7 * 86_400 })).json();
    expect(data.previousKey.expiresAt).toBe(soon.expiresAt);

    const never = await createKey(token, { expiresAt: null });
    const rolled = (await (await roll(token, never.id)).json()).data;
    expect(rolled.expiresAt).toBeNull();

    for (const bad of [{ expiresInSeconds: -1 }, { expiresInSeconds: 7 * 86_400 + 1 }, { expiresInSeconds: 1.5 }, { other: 1 }]) {
      expect((await roll(token, rolled.id, bad)).status).toBe(400);
    }
  });

  it('counts the old key against the five-key cap until it expires (a key in grace is active)', async () => {
    const { token } = await adminOf();
    const keys = [];
    for (let i = 0; i < MAX_ACTIVE_KEYS - 1; i++) keys.push(await createKey(token));
    expect((await roll(token, keys[0]!.id)).status).toBe(201);
    // Five working keys now (the old one in its grace): a sixth creation and a roll with a grace are refused.
    expect((await t.request('/api-keys', { token, body: { name: 'Sixth' } })).status).toBe(409);
    expect((await roll(token, keys[1]!.id, { expiresInSeconds: 60 })).status).toBe(409);
    expect((await roll(token, keys[1]!.id, { expiresInSeconds: 0 })).status).toBe(201);
  });

  it("refuses to roll a revoked, expired or already rolled key (409), and answers 404 for another clinic's or an unknown id", async () => {
    const { token } = await adminOf();
    const revoked = await createKey(token);
    await t.request(`/api-keys/${revoked.id}`, { token, method: 'DELETE' });
    expect((await roll(token, revoked.id)).status).toBe(409);
    const rolled = await createKey(token);
    expect((await roll(token, rolled.id)).status).toBe(201);
    const again = await roll(token, rolled.id);
    expect(again.status).toBe(409);
    expect((await again.json()).message).toMatch(/already rolled/);
    const expired = await createKey(token, { expiresAt: new Date(Date.now() + 1_000).toISOString() });
    t.clock.freezeAt(Date.now() + 5_000);
    expect((await roll(token, expired.id)).status).toBe(409);
    t.clock.unfreeze();

    const stranger = await adminOf();
    const foreign = await createKey(stranger.token);
    for (const id of [foreign.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await roll(token, id);
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe('NOT_FOUND');
    }
    const [untouched] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, foreign.id));
    expect(untouched!.rolledToKeyId).toBeNull();
  });

  it('needs a brand-admin token: none is 401, a member is 403, an API key is 401', async () => {
    const { token, clinicId } = await adminOf();
    const key = await createKey(token);
    expect((await roll('', key.id)).status).toBe(401);
    const member = await adminOf('member', clinicId);
    expect((await roll(member.token, key.id)).status).toBe(403);
    expect((await t.request(`/api-keys/${key.id}/roll`, { key: key.apiKey, method: 'POST' })).status).toBe(401);
  });
});
