// The error handler's backstop for database failures (503 when the database is unavailable, 400 when
// PostgreSQL refuses a value) and what error log lines say about failed queries.
import { createServer, type Server } from 'node:net';
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as schema from '../../../drizzle/schema';
import { plans } from '../../../drizzle/schema';
import { connect, withClient } from '../../../scripts/lib/database';
import { freePort } from '../../../scripts/lib/embedded-postgres';
import { generateApiKey } from '../../../src/platform/auth/api-key-format';
import { issueToken } from '../../../src/platform/auth/jwt';
import { BackgroundTasks } from '../../../src/platform/background';
import type { Database } from '../../../src/platform/db/client';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../../src/platform/db/errors';
import { ok } from '../../../src/platform/http/envelope';
import { defineRoute } from '../../../src/platform/http/route';
import { RequestLogWriter } from '../../../src/platform/request-log';
import type { Sweep } from '../../../src/platform/sweep';
import { pathId } from '../../../src/platform/values/ids';
import { runScheduled, SWEEPS } from '../../../src/scheduled';
import { buildTestApp, type TestApp, useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();
const closed: { url: string; connection: ReturnType<typeof connect> } = {} as never;
let silentServer: Server;
let silentUrl: string;

/** A URL of the test server with another port. */
function urlAt(port: number) {
  const url = new URL(t.databaseUrl);
  url.port = String(port);
  return url.toString();
}

/** Declares GET /api/v1/probe/db/<name>, which runs `query` and answers 200. */
function probeQuery(app: TestApp['app'], name: string, query: (db: Database, value: string) => Promise<unknown>) {
  const route = defineRoute(
    { auth: 'key', scope: 'read' },
    {
      method: 'get',
      path: `/api/v1/probe/db/${name}`,
      operationId: `probeDb${name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`,
      request: { query: z.object({ value: z.string().optional() }) },
      responses: { 200: { description: 'reached' } },
    },
  );
  app.openapi(route, async (c) => {
    await query(c.get('services').db, c.req.valid('query').value ?? '');
    return c.json(ok({ reached: true }), 200);
  });
}

beforeAll(async () => {
  closed.url = urlAt(await freePort());
  closed.connection = connect(closed.url, 1);
  silentServer = createServer(() => {});
  await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve));
  silentUrl = urlAt((silentServer.address() as { port: number }).port);

  probeQuery(t.app, 'timestamptz', (db, value) => db.execute(sql`select ${value}::timestamptz`));
  probeQuery(t.app, 'text', (db, value) => db.execute(sql`select ${value}::text`));
  probeQuery(t.app, 'unreachable', () => closed.connection.db.execute(sql`select 1`));
  probeQuery(t.app, 'duplicate', async (db, value) => {
    await db.insert(plans).values({ code: value, name: 'first' });
    await db.insert(plans).values({ code: value, name: 'second' });
  });
});

afterAll(async () => {
  await closed.connection?.close();
  silentServer?.close();
});

afterEach(() => vi.restoreAllMocks());

function expectUnavailable(res: Response, body: { success: boolean; code: string; retryAfterSeconds?: number }) {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe(String(DATABASE_RETRY_AFTER_SECONDS));
  expect(body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS });
}

describe('an unavailable database answers 503 SERVICE_UNAVAILABLE with Retry-After', () => {
  it('when nothing listens (ECONNREFUSED): key routes, sign-in and key management', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const down = buildTestApp(closed.connection.db, closed.url);
    const { raw } = await generateApiKey('secret', false);
    const me = await down.request('/api/v1/me', { key: raw });
    expectUnavailable(me, await me.json());
    const signIn = await down.request('/auth/signin', { body: { email: 'a@b.test', password: 'x' } });
    expectUnavailable(signIn, await signIn.json());
    const { token } = await issueToken(
      { userId: crypto.randomUUID(), clinicId: crypto.randomUUID(), role: 'owner' },
      down.config.jwtSecret,
      new Date(),
    );
    const keys = await down.request('/api-keys', { token });
    expectUnavailable(keys, await keys.json());
    const health = await down.request('/healthz');
    expectUnavailable(health, await health.json());
  });

  it('when the server accepts but never answers (connection timeout)', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const pool = new pg.Pool({ connectionString: silentUrl, max: 1, connectionTimeoutMillis: 200 });
    pool.on('error', () => {});
    try {
      const hung = buildTestApp(drizzle({ client: pool, schema }) as unknown as Database, silentUrl);
      const res = await hung.request('/auth/signin', { body: { email: 'a@b.test', password: 'x' } });
      expectUnavailable(res, await res.json());
    } finally {
      await pool.end().catch(() => {});
    }
  });

  it('when PostgreSQL has too many clients (53300)', async (context) => {
    const role = `limited_http_${process.pid}_${Date.now()}`;
    try {
      await withClient(t.databaseUrl, (admin) => admin.query(`create role ${role} login connection limit 0 password '${role}'`));
    } catch (error) {
      context.skip(`cannot create a role on this server (${(error as Error).message})`);
    }
    const url = new URL(t.databaseUrl);
    url.username = role;
    url.password = role;
    const connection = connect(url.toString(), 1);
    try {
      const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const limited = buildTestApp(connection.db, url.toString());
      const res = await limited.request('/auth/signin', { body: { email: 'a@b.test', password: 'x' } });
      expectUnavailable(res, await res.json());
      expect(warned.mock.calls.map(String).join('\n')).toContain('53300');
    } finally {
      await connection.close().catch(() => {});
      await withClient(t.databaseUrl, (admin) => admin.query(`drop role if exists ${role}`));
    }
  });

  it('logs the route pattern and the path with only its ids, never a path parameter as typed (issue 37)', async () => {
    const route = defineRoute(
      { auth: 'key', scope: 'read' },
      {
        method: 'get',
        path: '/api/v1/probe/db/unreachable-item/{id}',
        operationId: 'probeDbUnreachableItem',
        request: { params: z.object({ id: pathId('id') }) },
        responses: { 200: { description: 'reached' } },
      },
    );
    t.app.openapi(route, async (c) => {
      await closed.connection.db.execute(sql`select 1`);
      return c.json(ok({ reached: true }), 200);
    });
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { key } = await makeTenant(t.db);
    const id = crypto.randomUUID();
    for (const typed of ['tess.dunn.40@demo-patients.test', id]) {
      expect((await t.request(`/api/v1/probe/db/unreachable-item/${typed}`, { key })).status).toBe(503);
    }
    const lines = warned.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('database unavailable'));
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      route: '/api/v1/probe/db/unreachable-item/{id}',
      path: '/api/v1/probe/db/unreachable-item/{id}',
    });
    expect(lines[0]).not.toContain('tess.dunn');
    expect(JSON.parse(lines[1]!)).toMatchObject({ path: `/api/v1/probe/db/unreachable-item/${id}` });
  });

  it("when a handler's own query cannot connect (a declared route)", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { key } = await makeTenant(t.db);
    const res = await t.request('/api/v1/probe/db/unreachable', { key });
    expectUnavailable(res, await res.json());
  });
});

describe('a value PostgreSQL refuses answers 400 VALIDATION_ERROR, never 500', () => {
  it('an out-of-range date-time (22009 / 22008) and a NUL (22021) that reached a query', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { key } = await makeTenant(t.db);
    for (const path of [
      `/api/v1/probe/db/timestamptz?value=${encodeURIComponent('9999-12-31T23:59:59-23:59')}`,
      `/api/v1/probe/db/timestamptz?value=${encodeURIComponent('+010000-01-01T00:00:00Z')}`,
      '/api/v1/probe/db/text?value=a%00b',
    ]) {
      const res = await t.request(path, { key });
      expect(res.status, path).toBe(400);
      expect(await res.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    }
  });
});

describe('error logs name the cause and never carry query parameters', () => {
  const lines = (spy: { mock: { calls: unknown[][] } }) => spy.mock.calls.map((call) => String(call[0]));

  it('an unhandled failed query (unique violation): SQLSTATE and the cause message, not the value', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { key } = await makeTenant(t.db);
    const secret = `recognisable-${crypto.randomUUID()}`;
    const res = await t.request(`/api/v1/probe/db/duplicate?value=${secret}`, { key });
    expect(res.status).toBe(500);
    const line = lines(logged).find((l) => l.includes('unhandled error'))!;
    expect(line).toContain('"code":"23505"');
    expect(line).toContain('duplicate key value violates unique constraint');
    expect(line).toContain('DrizzleQueryError');
    expect(line).toContain(res.headers.get('x-request-id')!);
    expect(line).not.toContain(secret);
    expect(line).not.toContain('params');
  });

  it('a refused value: the warning names 22021 and not the value; a quoted value in the message is redacted', async () => {
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { key } = await makeTenant(t.db);
    const secret = `recognisable-${crypto.randomUUID()}`;
    await t.request(`/api/v1/probe/db/text?value=${secret}%00`, { key });
    const nul = lines(warned).find((l) => l.includes('database refused input'))!;
    expect(nul).toContain('22021');
    expect(nul).toContain('invalid byte sequence for encoding');
    expect(nul).not.toContain(secret);
    warned.mockClear();
    // 22007 quotes the input: 'invalid input syntax for type timestamp with time zone: "<value>"'.
    await t.request(`/api/v1/probe/db/timestamptz?value=${secret}`, { key });
    const cast = lines(warned).find((l) => l.includes('database refused input'))!;
    expect(cast).toContain('22007');
    expect(cast).toContain('invalid input syntax');
    expect(cast).not.toContain(secret);
  });

  it('background work, the request-log writer and scheduled sweeps log the same way', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const secret = `recognisable-${crypto.randomUUID()}`;
    const tasks = new BackgroundTasks();
    tasks.add(t.db.execute(sql`select ${secret}::uuid`));
    await tasks.settled();
    const background = lines(logged).find((l) => l.includes('background task failed'))!;
    expect(background).toContain('22P02');
    expect(background).not.toContain(secret);

    logged.mockClear();
    const writer = new RequestLogWriter();
    writer.add({ apiKeyId: secret, clinicId: secret, requestId: 'r-1', method: 'GET', route: '/api/v1/me', status: 200, durationMs: 1 });
    await writer.flush(t.db);
    const requestLog = lines(logged).find((l) => l.includes('request log write failed'))!;
    expect(requestLog).toContain('22P02');
    expect(requestLog).not.toContain(secret);

    logged.mockClear();
    const failing: Sweep = async function failingSweep(db) {
      await db.execute(sql`select ${secret}::int`);
    };
    SWEEPS.failingSweep = failing;
    try {
      await runScheduled({ ENVIRONMENT: 'test', DATABASE_URL: t.databaseUrl });
    } finally {
      delete SWEEPS.failingSweep;
    }
    const sweep = lines(logged).find((l) => l.includes('scheduled sweep failed'))!;
    expect(sweep).toContain('failingSweep');
    expect(sweep).toContain('22P02');
    expect(sweep).not.toContain(secret);
  });

  it('/healthz logs why the database did not answer', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const down = buildTestApp(closed.connection.db, closed.url);
    const res = await down.request('/healthz');
    expect(res.status).toBe(503);
    expect(lines(logged).find((l) => l.includes('health check failed'))).toContain('ECONNREFUSED');
  });
});
