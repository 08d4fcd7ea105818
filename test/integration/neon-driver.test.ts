// The Neon serverless driver path (openDatabase(url, 'neon')) against a real PostgreSQL, through a local
// WebSocket-to-TCP proxy standing in for Neon's. Covers plain queries, interactive transactions (the
// reason the app uses the WebSocket Pool and not the HTTP driver) and the whole app with a database
// opened and closed per request, the way workerServices does it in the Worker.
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { plans, requestLogs } from '../../drizzle/schema';
import { createApp } from '../../src/app';
import { BackgroundTasks } from '../../src/platform/background';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/client';
import { MemoryRateLimiter } from '../../src/platform/rate-limit/memory';
import { RequestLogWriter } from '../../src/platform/request-log';
import type { ServicesFactory } from '../../src/platform/services';
import { testConfig, testServices } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { makeTenant } from '../helpers/factories';
import { type NeonWsProxy, startNeonWsProxy, useNeonWsProxy } from '../tooling/neon-ws-proxy';

let proxy: NeonWsProxy;
let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  proxy = await startNeonWsProxy();
  useNeonWsProxy(proxy.wsProxy);
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.close();
  await proxy?.close();
});

/** Opens the app's Neon database handle, runs `work`, and always closes it. */
async function withNeon<T>(work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = await openDatabase({ url: database.url, driver: 'neon' });
  try {
    return await work(handle);
  } finally {
    await handle.close();
  }
}

const planCodes = async (codes: string[]) =>
  (await database.db.select({ code: plans.code }).from(plans).where(inArray(plans.code, codes))).map((r) => r.code).sort();

describe('openDatabase(url, "neon") through the WebSocket proxy', () => {
  it('runs queries over the proxy', async () => {
    const before = proxy.totalConnections;
    const row = await withNeon(async ({ db }) => {
      const result = await db.execute(sql`select 40 + 2 as answer, current_database() as db`);
      return (result as unknown as { rows: { answer: number; db: string }[] }).rows[0];
    });
    expect(row).toEqual({ answer: 42, db: new URL(database.url).pathname.slice(1) });
    expect(proxy.totalConnections).toBeGreaterThan(before);
  });

  it('commits an interactive transaction', async () => {
    const codes = ['neon-commit-a', 'neon-commit-b'];
    await withNeon(({ db }) =>
      db.transaction(async (tx) => {
        await tx.insert(plans).values({ code: codes[0]!, name: 'Commit A' });
        // Read-your-writes inside the transaction proves both statements share one session.
        const [seen] = await tx.select({ n: sql<number>`count(*)::int` }).from(plans).where(eq(plans.code, codes[0]!));
        expect(seen!.n).toBe(1);
        await tx.insert(plans).values({ code: codes[1]!, name: 'Commit B' });
      }),
    );
    // Checked on a separate node-postgres connection: the rows really are committed.
    expect(await planCodes(codes)).toEqual(codes);
  });

  it('rolls back an interactive transaction', async () => {
    const codes = ['neon-rollback-a', 'neon-rollback-b'];
    const failure = new Error('abort this transaction');
    await expect(
      withNeon(({ db }) =>
        db.transaction(async (tx) => {
          await tx.insert(plans).values({ code: codes[0]!, name: 'Rollback A' });
          await tx.insert(plans).values({ code: codes[1]!, name: 'Rollback B' });
          const [seen] = await tx.select({ n: sql<number>`count(*)::int` }).from(plans).where(inArray(plans.code, codes));
          expect(seen!.n).toBe(2);
          throw failure;
        }),
      ),
    ).rejects.toBe(failure);
    expect(await planCodes(codes)).toEqual([]);

    // tx.rollback() (Drizzle's explicit rollback) leaves nothing behind either.
    await expect(
      withNeon(({ db }) =>
        db.transaction(async (tx) => {
          await tx.insert(plans).values({ code: 'neon-rollback-c', name: 'Rollback C' });
          tx.rollback();
        }),
      ),
    ).rejects.toThrow(/rollback/i);
    expect(await planCodes(['neon-rollback-c'])).toEqual([]);
  });

  it('close() ends the WebSocket tunnel', async () => {
    await withNeon(({ db }) => db.execute(sql`select 1`));
    await expect.poll(() => proxy.openConnections, { timeout: 5_000 }).toBe(0);
  });

  it('a connection the server drops closes its tunnel; the next handle works', async () => {
    const handle = await openDatabase({ url: database.url, driver: 'neon' });
    const result = await handle.db.execute(sql`select pg_backend_pid() as pid`);
    const { pid } = (result as unknown as { rows: { pid: number }[] }).rows[0]!;
    expect(proxy.openConnections).toBe(1);
    await database.db.execute(sql`select pg_terminate_backend(${pid})`);
    // TCP closed by PostgreSQL -> the proxy closes the WebSocket -> the driver drops the client; the
    // pool's error listener in openDatabase keeps that from becoming an uncaught error.
    await expect.poll(() => proxy.openConnections, { timeout: 5_000 }).toBe(0);
    await handle.close();
    expect(await withNeon(async ({ db }) => (await db.execute(sql`select 1 as one`)) !== undefined)).toBe(true);
  });

  it('refuses tunnels without a loopback address', async () => {
    const closeCode = (query: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`ws://${proxy.wsProxy}${query}`);
        ws.on('close', (code) => resolve(code));
        ws.on('error', reject);
      });
    expect(await closeCode('')).toBe(1008);
    expect(await closeCode('?address=203.0.113.7:5432')).toBe(1008);
  });
});

describe('the app on the Neon driver, one database handle per request', () => {
  const rateLimiter = new MemoryRateLimiter();
  const requestLog = new RequestLogWriter();
  const finished: Promise<void>[] = [];
  let opened = 0;
  let closed = 0;

  // Mirrors workerServices: open per request, finish background work, then close the handle.
  const neonServices: ServicesFactory = async () => {
    const handle = await openDatabase({ url: database.url, driver: 'neon' });
    opened++;
    const background = new BackgroundTasks();
    return {
      services: testServices(
        {
          config: { ...testConfig(database.url), database: { ...testConfig(database.url).database, driver: 'neon' } },
          db: handle.db,
          rateLimiter,
          background: background.add,
          now: () => new Date(),
        },
        {},
        requestLog,
      ),
      finish() {
        finished.push(background.settled().finally(() => handle.close().then(() => void closed++)));
      },
    };
  };
  const app = createApp(neonServices);
  const settle = () => Promise.all(finished.splice(0));

  it('answers GET /healthz with the database checked', async () => {
    const res = await app.request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, message: 'OK', data: { status: 'ok', database: 'ok' } });
    await settle();
  });

  it('answers GET /api/v1/me for a key created over the Neon driver, request after request', async () => {
    const { clinic, key, keyRow } = await withNeon(({ db }) => makeTenant(db));
    const before = proxy.totalConnections;
    for (let i = 0; i < 2; i++) {
      const res = await app.request('/api/v1/me', { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { clinicId: string; keyPrefix: string } };
      expect(body.data).toMatchObject({ clinicId: clinic.id, keyPrefix: keyRow.keyPrefix });
    }
    await settle();
    // Each request used its own proxied connection, and the request log (background work) landed.
    expect(proxy.totalConnections - before).toBeGreaterThanOrEqual(2);
    const [logged] = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(requestLogs)
      .where(eq(requestLogs.apiKeyId, keyRow.id));
    expect(logged!.n).toBe(2);

    const bad = await app.request('/api/v1/me', { headers: { 'x-api-key': 'svc_live_not-a-real-key' } });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    await settle();
    expect(closed).toBe(opened);
    await expect.poll(() => proxy.openConnections, { timeout: 5_000 }).toBe(0);
  });
});
