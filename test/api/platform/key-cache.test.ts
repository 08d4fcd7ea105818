// The key cache of the hot path (docs/api-keys.md, "Key cache"): a key looked up in the last 30 seconds
// is not looked up again, yet a revoked, rolled-and-ended or changed key is refused on its very next
// request in ANY isolate. Two apps sharing one rate-limit store stand for two isolates of the Worker:
// each has its own key cache, both read the store's markers. Statements are counted from the database.
import { eq, sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, plans } from '../../../drizzle/schema';
import { announceKeyChanges, KEY_CACHE_TTL_MS } from '../../../src/platform/auth/key-cache';
import { rowsOf } from '../../../src/platform/db/sql';
import { MemoryRateLimiter } from '../../../src/platform/rate-limit/memory';
import type { GatewayCheck } from '../../../src/platform/rate-limit/types';
import { buildTestApp, type TestApp, TestClock, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant, makeUser, TEST_PASSWORD } from '../../helpers/factories';
import { addProbeRoute } from '../../helpers/probe-routes';
import { countStatements, statementsOf } from '../../helpers/statements';

const t = useTestApp();
const clock = new TestClock();
const store = new MemoryRateLimiter(clock.now);
let first: TestApp;
let second: TestApp;

/** Statements that look a key up (the gateway's query joins api_keys, clinics and plans). */
const lookups = (all: string[]) => all.filter((sql) => sql.includes('"api_keys"') && sql.includes('"key_hash"')).length;

beforeAll(() => {
  first = buildTestApp(t.db, t.databaseUrl, { rateLimiter: store, clock, queries: t.queries });
  second = buildTestApp(t.db, t.databaseUrl, { rateLimiter: store, clock, queries: t.queries });
  for (const app of [first, second]) {
    addProbeRoute(app.app, { auth: 'key', scope: 'read', gate: 'crm_connect' }, 'get', '/api/v1/probe/crm-gated');
    addProbeRoute(app.app, { auth: 'key', scope: 'write' }, 'post', '/api/v1/probe/write', true);
  }
});

afterEach(() => clock.unfreeze());

async function tokenFor(app: TestApp, clinicId: string) {
  const user = await makeUser(t.db, clinicId);
  const res = await app.request('/auth/signin', { body: { email: user.email, password: TEST_PASSWORD } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()).data.token as string;
}

describe('the key cache', () => {
  it('a warm request does not look the key up; the cache is per isolate', async () => {
    const { key } = await makeTenant(t.db);
    const cold = await statementsOf(first, () => first.request('/api/v1/me', { key }));
    expect(cold.status).toBe(200);
    expect(lookups(cold.all)).toBe(1);
    const warm = await statementsOf(first, () => first.request('/api/v1/me', { key }));
    expect(warm.status).toBe(200);
    expect(lookups(warm.all)).toBe(0);
    // The other isolate has not seen the key yet.
    expect(lookups((await statementsOf(second, () => second.request('/api/v1/me', { key }))).all)).toBe(1);
    // Past the TTL the key is looked up again.
    clock.advance(KEY_CACHE_TTL_MS);
    expect(lookups((await statementsOf(first, () => first.request('/api/v1/me', { key }))).all)).toBe(1);
  });

  it('a revoked key is refused on its very next request in every isolate that cached it', async () => {
    const { clinic, key, keyRow } = await makeTenant(t.db);
    const token = await tokenFor(first, clinic.id);
    for (const app of [first, second]) expect((await app.request('/api/v1/me', { key })).status).toBe(200);
    expect((await first.request(`/api-keys/${keyRow.id}`, { method: 'DELETE', token })).status).toBe(200);
    for (const app of [first, second]) expect((await app.request('/api/v1/me', { key })).status).toBe(401);
    // Reads that run alongside the store's answer are refused as well, their result thrown away.
    const customers = await second.request('/api/v1/customers', { key });
    expect(customers.status).toBe(401);
    expect(await customers.text()).not.toContain('"data"');
    // With the headers of the address's limit, counting this failed attempt, as on a cold request.
    expect(customers.headers.get('ratelimit-policy')).toBe('120;w=60');
    expect(customers.headers.get('ratelimit-remaining')).not.toBeNull();
  });

  it('a key rolled with expiresInSeconds 0 stops at once everywhere; one rolled with an overlap stops when it expires', async () => {
    const { clinic, key, keyRow } = await makeTenant(t.db);
    const token = await tokenFor(first, clinic.id);
    for (const app of [first, second]) expect((await app.request('/api/v1/me', { key })).status).toBe(200);
    const rolled = await first.request(`/api-keys/${keyRow.id}/roll`, { body: { expiresInSeconds: 0 }, token });
    expect(rolled.status).toBe(201);
    const successor = (await rolled.json()).data.apiKey as string;
    for (const app of [first, second]) {
      expect((await app.request('/api/v1/me', { key })).status).toBe(401);
      expect((await app.request('/api/v1/me', { key: successor })).status).toBe(200);
    }

    // Overlap of 100 s: cached again after the roll's marker lapsed (90 s), the key carries its new
    // expiresAt and stops there, while still cached (no lookup).
    const overlapping = await first.request('/api-keys', { token, body: { name: 'overlap' } });
    const other = (await overlapping.json()).data;
    expect((await first.request(`/api-keys/${other.id}/roll`, { body: { expiresInSeconds: 100 }, token })).status).toBe(201);
    clock.advance(KEY_CACHE_TTL_MS * 3);
    expect((await second.request('/api/v1/me', { key: other.apiKey })).status).toBe(200);
    clock.advance(100_000 - KEY_CACHE_TTL_MS * 3);
    const after = await statementsOf(second, () => second.request('/api/v1/me', { key: other.apiKey }));
    expect(after.status).toBe(401);
  });

  it('a roll of the successor, and a revocation of it, end its predecessor in grace at once in every isolate that cached it', async () => {
    const { clinic, key, keyRow } = await makeTenant(t.db);
    const token = await tokenFor(first, clinic.id);
    const rollOf = async (id: string) => {
      const res = await first.request(`/api-keys/${id}/roll`, { body: { expiresInSeconds: 3_600 }, token });
      expect(res.status).toBe(201);
      return (await res.json()).data as { id: string; apiKey: string };
    };
    const statuses = (raw: string) =>
      Promise.all([first, second].map(async (app) => (await app.request('/api/v1/me', { key: raw })).status));

    // Each key is cached in both isolates after the markers of its own roll lapsed (90 s), so only a
    // marker set for it by the later change can send its next request to the database.
    const successor = await rollOf(keyRow.id);
    clock.advance(KEY_CACHE_TTL_MS * 3);
    expect(await statuses(key)).toEqual([200, 200]);
    const tip = await rollOf(successor.id);
    expect(await statuses(key)).toEqual([401, 401]);
    clock.advance(KEY_CACHE_TTL_MS * 3);
    expect(await statuses(successor.apiKey)).toEqual([200, 200]);

    expect((await first.request(`/api-keys/${tip.id}`, { method: 'DELETE', token })).status).toBe(200);
    expect(await statuses(tip.apiKey)).toEqual([401, 401]);
    expect(await statuses(successor.apiKey)).toEqual([401, 401]);
  });

  it('a key that expires while cached is refused from its expiresAt on', async () => {
    const { clinic } = await makeTenant(t.db);
    const soon = await makeKey(t.db, clinic.id, { expiresAt: new Date(clock.now() + 10_000) });
    expect((await first.request('/api/v1/me', { key: soon.raw })).status).toBe(200);
    clock.advance(10_000);
    expect((await first.request('/api/v1/me', { key: soon.raw })).status).toBe(401);
  });

  it('a plan change announced on the clinic reaches cached keys at once (entitlements)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    expect((await first.request('/api/v1/probe/crm-gated', { key })).status).toBe(403);
    await t.db
      .update(plans)
      .set({ entitlements: ['crm_connect'] })
      .where(eq(plans.id, clinic.planId!));
    await announceKeyChanges(first.services, [], [clinic.id]);
    expect((await first.request('/api/v1/probe/crm-gated', { key })).status).toBe(200);
    await t.db.update(plans).set({ entitlements: [] }).where(eq(plans.id, clinic.planId!));
    await announceKeyChanges(first.services, [], [clinic.id]);
    expect((await first.request('/api/v1/probe/crm-gated', { key })).status).toBe(403);
  });

  it('a revocation or a roll the store cannot record is refused (503) and changes nothing', async () => {
    class Unmarkable extends MemoryRateLimiter {
      override async mark(): Promise<void> {
        throw new Error('store down');
      }
    }
    const app = buildTestApp(t.db, t.databaseUrl, { rateLimiter: new Unmarkable(clock.now), clock });
    const { clinic, key, keyRow } = await makeTenant(t.db);
    const token = await tokenFor(app, clinic.id);
    const res = await app.request(`/api-keys/${keyRow.id}`, { method: 'DELETE', token });
    expect(res.status).toBe(503);
    expect((await res.json()).code).toBe('SERVICE_UNAVAILABLE');
    const [row] = await t.db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, keyRow.id));
    expect(row!.revokedAt).toBeNull();
    expect((await app.request('/api/v1/me', { key })).status).toBe(200);

    // A roll that would end a predecessor in grace: nothing changes either (no new key, the
    // predecessor still in grace): the markers are set inside the transaction, before it commits.
    const successor = (await (await first.request(`/api-keys/${keyRow.id}/roll`, { body: {}, token })).json()).data;
    const keysOf = () =>
      t.db
        .select({ id: apiKeys.id, expiresAt: apiKeys.expiresAt, revokedAt: apiKeys.revokedAt, rolledToKeyId: apiKeys.rolledToKeyId })
        .from(apiKeys)
        .where(eq(apiKeys.clinicId, clinic.id))
        .orderBy(apiKeys.id);
    const before = await keysOf();
    const rolled = await app.request(`/api-keys/${successor.id}/roll`, { body: {}, token });
    expect(rolled.status).toBe(503);
    expect(await keysOf()).toEqual(before);
    for (const raw of [key, successor.apiKey]) expect((await app.request('/api/v1/me', { key: raw })).status).toBe(200);
  });

  it('when the store cannot say whether a marker is set, every request looks its key up (fail safe)', async () => {
    class Unanswering extends MemoryRateLimiter {
      override async check(request: GatewayCheck) {
        return { ...(await super.check(request)), marked: null };
      }
    }
    const app = buildTestApp(t.db, t.databaseUrl, { rateLimiter: new Unanswering(clock.now), clock, queries: t.queries });
    const { key, keyRow } = await makeTenant(t.db);
    for (let i = 0; i < 3; i++) {
      const res = await statementsOf(app, () => app.request('/api/v1/me', { key }));
      expect(res.status).toBe(200);
      expect(lookups(res.all)).toBe(1);
    }
    // Revoked straight in the database, with no marker at all: refused on the next request.
    await t.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, keyRow.id));
    expect((await app.request('/api/v1/me', { key })).status).toBe(401);
  });
});

describe('the rate limits alongside the handler', () => {
  it('a read refused by its limits answers 429 without any of the data its handler fetched', async () => {
    const { clinic } = await makeTenant(t.db);
    const limited = await makeKey(t.db, clinic.id, { rateLimitPerMin: 1 });
    expect((await first.request('/api/v1/customers', { key: limited.raw })).status).toBe(200);
    const refused = await first.request('/api/v1/customers', { key: limited.raw });
    expect(refused.status).toBe(429);
    const body = await refused.json();
    expect(body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(body).not.toHaveProperty('data');
    expect(body).not.toHaveProperty('pagination');
    expect(refused.headers.get('retry-after')).not.toBeNull();
  });

  it('a write runs alongside the limits but commits only once let through: refused, it rolls back and leaves nothing', async () => {
    const { clinic } = await makeTenant(t.db);
    const limited = await makeKey(t.db, clinic.id, { rateLimitPerMin: 1, scopes: ['read', 'write'] });
    const create = () => first.request('/api/v1/programs', { key: limited.raw, body: { name: 'Weight care' } });
    const allowed = await countStatements(first, create);
    expect(allowed.status).toBe(201);
    expect(allowed.count).toBeGreaterThan(1); // the lookup and the handler's statements
    // The key is cached now (statementsOf keeps the cache): the handler runs beside the refusing store,
    // and its transaction, waiting for the verdict before COMMIT, rolls back.
    const refused = await statementsOf(first, create);
    expect(refused.status).toBe(429);
    const sent = refused.all.filter((sql) => !sql.includes('"request_logs"')).map((sql) => sql.trim().toLowerCase());
    expect(sent[0]).toMatch(/^begin/);
    expect(sent).toContainEqual(expect.stringMatching(/^insert into "?programs"? /));
    expect(sent).not.toContain('commit');
    expect(sent.at(-1)).toBe('rollback');
    const programs = await rowsOf(t.db, sql`select id from programs where clinic_id = ${clinic.id}`);
    expect(programs).toHaveLength(1);
  });
});
