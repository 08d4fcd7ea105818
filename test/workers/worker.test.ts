// The built Worker (src/index.ts through wrangler.toml) running inside workerd, talking to a real
// PostgreSQL over a loopback TCP socket (pg + pg-cloudflare + cloudflare:sockets). Requests go through
// exports.default.fetch, so each one is a real Worker invocation with its own ExecutionContext: the
// database is opened per request by workerServices and closed in ctx.waitUntil.
//
// Closing a pg connection in workerd makes pg-cloudflare's read loop fail with "Stream was cancelled."
// and re-emit it as an 'error' event on the already-ended client. pg-pool leaves its idle listener on
// clients it removes, so the error reaches the pool, whose no-op 'error' listener in openDatabase()
// absorbs it. A bare pg.Client with no 'error' listener would turn it into an unhandled rejection, which
// Vitest reports as a failed run, so these tests also guard that path.
import { env, exports } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiKeys, clinics, plans, requestLogs } from '../../drizzle/schema';
import { configFor } from '../../src/config';
import { generateApiKey, hashApiKey } from '../../src/platform/auth/api-key-format';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/client';

const seeded = inject('workersDatabase');

const call = (path: string, headers: Record<string, string> = {}) =>
  exports.default.fetch(new Request(`http://brand-admin.test${path}`, { headers }));

interface MeBody {
  success: boolean;
  message: string;
  data: { clinicId: string; keyPrefix: string; keyName: string; kind: string; scopes: string[]; isSandbox: boolean };
}

// The test's own connection (opened and closed within this file's context), for seeding and checks.
let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openDatabase({ url: env.DATABASE_URL!, driver: 'pg' });
});
afterAll(async () => {
  await handle?.close();
});

/** Connections to the test database other than this file's own. */
async function otherConnections(): Promise<number> {
  const result = await handle.db.execute(
    sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
  );
  return (result as unknown as { rows: { n: number }[] }).rows[0]!.n;
}

describe('the Worker in workerd', () => {
  it('runs with the test bindings, not wrangler.toml production vars', () => {
    expect(env.ENVIRONMENT).toBe('test');
    expect(new URL(env.DATABASE_URL!).hostname).toBe('127.0.0.1');
    expect(env.JWT_SECRET).toBeTruthy();
  });

  it('GET /healthz answers 200 after checking the database', async () => {
    const res = await call('/healthz');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual({ success: true, message: 'OK', data: { status: 'ok', database: 'ok' } });
  });

  it('GET /api/v1/me answers 200 for the key seeded from Node', async () => {
    const res = await call('/api/v1/me', { 'x-api-key': seeded.apiKey });
    expect(res.status).toBe(200);
    const body = (await res.json()) as MeBody;
    expect(body).toMatchObject({ success: true, message: 'OK' });
    expect(body.data).toMatchObject({ clinicId: seeded.clinicId, keyPrefix: seeded.keyPrefix, kind: 'secret', isSandbox: false });
  });

  it('hashes keys in workerd exactly as Node did', async () => {
    const [row] = await handle.db.select({ keyHash: apiKeys.keyHash }).from(apiKeys).where(eq(apiKeys.keyPrefix, seeded.keyPrefix));
    expect(await hashApiKey(seeded.apiKey)).toBe(row!.keyHash);
  });

  it('GET /api/v1/me answers 200 for a clinic and key inserted from inside workerd', async () => {
    const suffix = crypto.randomUUID().slice(0, 8);
    const [plan] = await handle.db
      .insert(plans)
      .values({ code: `wk-plan-${suffix}`, name: `Plan ${suffix}` })
      .returning();
    const [clinic] = await handle.db
      .insert(clinics)
      .values({ name: `Workerd Clinic ${suffix}`, slug: `workerd-${suffix}`, planId: plan!.id })
      .returning();
    const key = await generateApiKey('secret', false); // SHA-256 through workerd's WebCrypto
    await handle.db.insert(apiKeys).values({
      clinicId: clinic!.id,
      name: `workerd-key-${suffix}`,
      kind: 'secret',
      keyPrefix: key.keyPrefix,
      keyHash: key.keyHash,
      scopes: ['read'],
    });

    const res = await call('/api/v1/me', { 'x-api-key': key.raw });
    expect(res.status).toBe(200);
    const body = (await res.json()) as MeBody;
    expect(body.data).toMatchObject({ clinicId: clinic!.id, keyName: `workerd-key-${suffix}`, keyPrefix: key.keyPrefix, scopes: ['read'] });
  });

  it('answers 401 with the JSON error envelope for a bad or missing key', async () => {
    const attempts: Record<string, string>[] = [{ 'x-api-key': 'svc_live_this-key-does-not-exist' }, { 'x-api-key': 'not-a-key' }, {}];
    for (const headers of attempts) {
      const res = await call('/api/v1/me', headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({
        success: false,
        message: 'Invalid or missing API key',
        code: 'UNAUTHORIZED',
        requestId: res.headers.get('x-request-id'),
      });
    }
  });

  it('opens and closes a connection per request: sequential requests keep working', async () => {
    const [key] = await handle.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyPrefix, seeded.keyPrefix));
    const logged = async () =>
      (await handle.db.select({ n: sql<number>`count(*)::int` }).from(requestLogs).where(eq(requestLogs.apiKeyId, key!.id)))[0]!.n;
    const before = await logged();

    for (let i = 0; i < 3; i++) {
      const health = await call('/healthz');
      expect(health.status).toBe(200);
      await health.arrayBuffer();
      const me = await call('/api/v1/me', { 'x-api-key': seeded.apiKey });
      expect(me.status).toBe(200);
      expect(((await me.json()) as MeBody).data.clinicId).toBe(seeded.clinicId);
    }

    // Each request's waitUntil wrote its request log, then closed that request's connection. (At least
    // 3 more: an earlier test's batched log row may land after `before` was read.)
    await expect.poll(logged, { timeout: 10_000 }).toBeGreaterThanOrEqual(before + 3);
    await expect.poll(otherConnections, { timeout: 10_000 }).toBe(0);
  });
});

describe('the Hyperdrive binding', () => {
  it('is how the Worker reaches PostgreSQL (node-postgres on its local connection string)', async () => {
    expect(configFor(env).database).toMatchObject({ source: 'hyperdrive', driver: 'pg' });
    expect(new URL(env.HYPERDRIVE!.connectionString).hostname).toMatch(/\.hyperdrive\.local$/);
    expect((await call('/healthz')).status).toBe(200);
  });
});

describe('a burst larger than the connection gate', () => {
  it('answers 110 concurrent requests with one key without a 5xx: 100 pass the burst cap, 10 get 429', async () => {
    const suffix = crypto.randomUUID().slice(0, 8);
    const key = await generateApiKey('secret', false);
    await handle.db.insert(apiKeys).values({
      clinicId: seeded.clinicId,
      name: `burst-${suffix}`,
      kind: 'secret',
      keyPrefix: key.keyPrefix,
      keyHash: key.keyHash,
      scopes: ['read'],
    });
    // Fire inside one 10-second burst window (the workerd clock cannot be frozen), so the cap is exactly 100.
    const left = () => 10_000 - (Date.now() % 10_000);
    if (left() < 6_000) await new Promise((resolve) => setTimeout(resolve, left() + 50));
    const responses = await Promise.all(Array.from({ length: 110 }, () => call('/api/v1/me', { 'x-api-key': key.raw })));
    const counts: Record<number, number> = {};
    for (const res of responses) {
      counts[res.status] = (counts[res.status] ?? 0) + 1;
      await res.arrayBuffer();
    }
    expect(counts).toEqual({ 200: 100, 429: 10 });
    await expect.poll(otherConnections, { timeout: 10_000 }).toBe(0);
  });
});
