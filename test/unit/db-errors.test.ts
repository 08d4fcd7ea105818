// classifyDatabaseError and describeError against real errors: provoked against the test PostgreSQL,
// a closed port, a server that never answers, and the Neon driver through a WebSocket proxy.
import { createServer, type Server, type Socket } from 'node:net';
import { neonConfig } from '@neondatabase/serverless';
import { sql } from 'drizzle-orm';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import pg from 'pg';
import { DatabaseError } from 'pg-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plans } from '../../drizzle/schema';
import { withClient } from '../../scripts/lib/database';
import { freePort } from '../../scripts/lib/embedded-postgres';
import { classifyDatabaseError } from '../../src/platform/db/errors';
import { describeError } from '../../src/platform/log';
import { createTestDatabase } from '../helpers/database';
import { type NeonWsProxy, startNeonWsProxy, useNeonWsProxy } from '../tooling/neon-ws-proxy';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let closedPort: number;
const servers: Server[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  closedPort = await freePort();
});

afterAll(async () => {
  for (const server of servers) server.close();
  await database?.close();
});

/** The rejection of `work`, which must fail. */
async function failure(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the work to fail');
}

/** A URL of the test server with another port (nothing listens there) or host. */
function urlAt(port: number, host = '127.0.0.1') {
  const url = new URL(database.url);
  url.hostname = host;
  url.port = String(port);
  return url.toString();
}

/** A TCP server that accepts connections and then does `onSocket` with them (never answers, resets). */
async function tcpServer(onSocket: (socket: Socket) => void): Promise<number> {
  const server = createServer(onSocket);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** Runs one query on a throwaway Drizzle pool and returns its error. */
async function queryError(url: string, options: { connectionTimeoutMillis?: number } = {}) {
  const pool = new pg.Pool({ connectionString: url, max: 1, ...options });
  pool.on('error', () => {});
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const db = drizzle({ client: pool });
  try {
    return await failure(() => db.execute(sql`select 1`));
  } finally {
    await pool.end().catch(() => {});
  }
}

const codeOf = (error: unknown) => (error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;

describe('classifyDatabaseError: data exceptions (class 22) are bad input', () => {
  it('a NUL in a parameter (22021), through DrizzleQueryError', async () => {
    const error = await failure(() => database.db.execute(sql`select ${'a\u0000b'}::text`));
    expect(error).toBeInstanceOf(DrizzleQueryError);
    expect(codeOf(error)).toBe('22021');
    expect(classifyDatabaseError(error)).toBe('bad_input');
  });

  it('an out-of-range date-time and a bad cast', async () => {
    const offset = await failure(() => database.db.execute(sql`select ${'9999-12-31T23:59:59-23:59'}::timestamptz`));
    expect(codeOf(offset)).toMatch(/^22/);
    expect(classifyDatabaseError(offset)).toBe('bad_input');
    const year = await failure(() => database.db.execute(sql`select ${'+010000-01-01T00:00:00Z'}::timestamptz`));
    expect(codeOf(year)).toMatch(/^22/);
    expect(classifyDatabaseError(year)).toBe('bad_input');
    const uuid = await failure(() => database.db.execute(sql`select ${'not-a-uuid'}::uuid`));
    expect(codeOf(uuid)).toBe('22P02');
    expect(classifyDatabaseError(uuid)).toBe('bad_input');
    const int = await failure(() => database.db.execute(sql`select ${'99999999999'}::int`));
    expect(codeOf(int)).toBe('22003');
    expect(classifyDatabaseError(int)).toBe('bad_input');
  });
});

describe('classifyDatabaseError: an unreachable or saturated database is unavailable', () => {
  it('a closed port: ECONNREFUSED (also as an AggregateError when localhost has two addresses)', async () => {
    const refused = await queryError(urlAt(closedPort));
    expect(JSON.stringify(describeError(refused))).toContain('ECONNREFUSED');
    expect(classifyDatabaseError(refused)).toBe('unavailable');
    const viaLocalhost = await queryError(urlAt(closedPort, 'localhost'));
    expect(classifyDatabaseError(viaLocalhost)).toBe('unavailable');
  });

  it("a server that never answers: pg's connection timeout", async () => {
    const silent = await tcpServer(() => {});
    const error = await queryError(urlAt(silent), { connectionTimeoutMillis: 150 });
    expect(JSON.stringify(describeError(error))).toMatch(/connection timeout|timeout exceeded/);
    expect(classifyDatabaseError(error)).toBe('unavailable');
    const client = new pg.Client({ connectionString: urlAt(silent), connectionTimeoutMillis: 150 });
    const direct = await failure(() => client.connect());
    expect((direct as Error).message).toBe('timeout expired');
    expect(classifyDatabaseError(direct)).toBe('unavailable');
  });

  it('a pool whose only connection is busy: "timeout exceeded when trying to connect"', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 1, connectionTimeoutMillis: 100 });
    try {
      const busy = pool.query('select pg_sleep(0.5)');
      const error = await failure(() => pool.query('select 1'));
      expect((error as Error).message).toBe('timeout exceeded when trying to connect');
      expect(classifyDatabaseError(error)).toBe('unavailable');
      await busy;
    } finally {
      await pool.end();
    }
  });

  it('a connection reset by the peer, and one closed mid-conversation', async () => {
    const resetting = await tcpServer((socket) => socket.resetAndDestroy());
    const reset = await queryError(urlAt(resetting));
    expect(classifyDatabaseError(reset)).toBe('unavailable');
    const closing = await tcpServer((socket) => socket.once('data', () => socket.end()));
    const closed = await queryError(urlAt(closing));
    expect(JSON.stringify(describeError(closed))).toContain('Connection terminated unexpectedly');
    expect(describeError(closed).name).toBe('DrizzleQueryError');
    expect(classifyDatabaseError(closed)).toBe('unavailable');
  });

  it('a terminated backend: 57P01, then a client that is not queryable', async () => {
    const client = new pg.Client({ connectionString: database.url });
    const events: unknown[] = [];
    client.on('error', (error) => events.push(error));
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    await withClient(database.url, (admin) => admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]));
    const error = await failure(async () => {
      for (let i = 0; i < 50; i++) {
        await client.query('select 1');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    // The FATAL 57P01 arrives either as the failed query's error or as the client's error event.
    const seen = [error, ...events];
    expect(seen.some((e) => (e as { code?: string }).code === '57P01')).toBe(true);
    for (const e of seen) expect(classifyDatabaseError(e)).toBe('unavailable');
    await client.end().catch(() => {});
  });

  it('too many connections (53300): a role whose connection limit is 0', async (context) => {
    const role = `limited_${process.pid}_${Date.now()}`;
    try {
      await withClient(database.url, (admin) => admin.query(`create role ${role} login connection limit 0 password '${role}'`));
    } catch (error) {
      context.skip(`cannot create a role on this server (${(error as Error).message})`);
    }
    try {
      const url = new URL(database.url);
      url.username = role;
      url.password = role;
      const error = await queryError(url.toString());
      if (codeOf(error) === '28P01' || codeOf(error) === '28000') context.skip('the server wants a password for new roles');
      expect(codeOf(error)).toBe('53300');
      expect(classifyDatabaseError(error)).toBe('unavailable');
    } finally {
      await withClient(database.url, (admin) => admin.query(`drop role if exists ${role}`));
    }
  });

  it('connection exceptions (class 08), server start-up (57P03), Hyperdrive (58000) and workerd socket failures as the drivers report them', () => {
    // Not practical to provoke against a running server: the driver's own error class with the codes.
    for (const code of ['08000', '08001', '08003', '08006', '08P01', '57P03', '53300']) {
      const error = Object.assign(new DatabaseError('connection failure', 0, 'error'), { code });
      expect(classifyDatabaseError(error), code).toBe('unavailable');
      expect(classifyDatabaseError(Object.assign(new Error('Failed query: select 1\nparams: '), { cause: error })), code).toBe(
        'unavailable',
      );
    }
    // Hyperdrive's own errors, which it sends with 58000 (its troubleshooting page).
    for (const message of ['Failed to acquire a connection from the pool.', 'Server connection attempt failed: connection_refused']) {
      const error = Object.assign(new DatabaseError(message, 0, 'error'), { code: '58000' });
      expect(classifyDatabaseError(new Error('Failed query: select 1\nparams: ', { cause: error })), message).toBe('unavailable');
    }
    // What node-postgres reports in workerd (the Worker, Hyperdrive) when its socket cannot be opened or
    // drops, as measured there (test/faults/database-outage.workers.test.ts): the socket's rejection, and a
    // write's, which workerd prefixes with "jsg.Error: ".
    for (const message of [
      'proxy request failed, cannot connect to the specified address',
      'jsg.Error: proxy request failed, cannot connect to the specified address',
      'proxy request failed, cannot connect to the specified address. It looks like you might be trying to connect to a HTTP-based service — consider using fetch instead',
      'connection attempt failed',
      'Network connection lost.',
    ]) {
      expect(classifyDatabaseError(new Error('Failed query: select 1\nparams: ', { cause: new Error(message) })), message).toBe(
        'unavailable',
      );
    }
  });
});

describe('classifyDatabaseError: the Neon serverless driver', () => {
  let proxy: NeonWsProxy;
  beforeAll(async () => {
    proxy = await startNeonWsProxy();
    useNeonWsProxy(proxy.wsProxy);
  });
  afterAll(() => proxy?.close());

  async function neonError(wsProxy: string, url: string) {
    neonConfig.wsProxy = wsProxy;
    const { Pool } = await import('@neondatabase/serverless');
    const { drizzle } = await import('drizzle-orm/neon-serverless');
    const pool = new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 2000 });
    pool.on('error', () => {});
    try {
      return await failure(() => drizzle({ client: pool }).execute(sql`select 1`));
    } finally {
      await pool.end().catch(() => {});
    }
  }

  it('no WebSocket proxy listening: the WebSocket error event', async () => {
    const error = await neonError(`127.0.0.1:${closedPort}/v1`, database.url);
    expect(classifyDatabaseError(error)).toBe('unavailable');
  });

  it('a proxy whose database refuses the connection: the connection ends unexpectedly', async () => {
    const error = await neonError(proxy.wsProxy, urlAt(closedPort));
    expect(classifyDatabaseError(error)).toBe('unavailable');
  });

  it('a data exception over the Neon driver is bad input too', async () => {
    neonConfig.wsProxy = proxy.wsProxy;
    const { Pool } = await import('@neondatabase/serverless');
    const { drizzle } = await import('drizzle-orm/neon-serverless');
    const pool = new Pool({ connectionString: database.url, max: 1 });
    try {
      const error = await failure(() => drizzle({ client: pool }).execute(sql`select ${'a\u0000b'}::text`));
      expect(codeOf(error)).toBe('22021');
      expect(classifyDatabaseError(error)).toBe('bad_input');
    } finally {
      await pool.end();
    }
  });
});

describe('classifyDatabaseError: everything else is not decided', () => {
  it('a unique violation, an unknown table, a plain error, non-errors', async () => {
    const code = `dup-${process.pid}-${Date.now()}`;
    await database.db.insert(plans).values({ code, name: 'first' });
    const duplicate = await failure(() => database.db.insert(plans).values({ code, name: 'second' }));
    expect(codeOf(duplicate)).toBe('23505');
    expect(classifyDatabaseError(duplicate)).toBeNull();
    const missing = await failure(() => database.db.execute(sql`select * from no_such_table`));
    expect(codeOf(missing)).toBe('42P01');
    expect(classifyDatabaseError(missing)).toBeNull();
    expect(classifyDatabaseError(new Error('boom'))).toBeNull();
    expect(classifyDatabaseError(new TypeError('x is undefined'))).toBeNull();
    for (const value of [undefined, null, 'ECONNREFUSED', 42, {}]) expect(classifyDatabaseError(value)).toBeNull();
  });

  it('survives a cause cycle', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(classifyDatabaseError(a)).toBeNull();
    expect(describeError(a).cause?.cause?.cause?.cause).toBeDefined();
  });
});

describe('databaseErrorState / isUniqueViolation', () => {
  it('finds the SQLSTATE and constraint on the error or down its cause chain, and nothing else', async () => {
    const { databaseErrorState, isUniqueViolation } = await import('../../src/platform/db/errors');
    const wrapped = Object.assign(new Error('Failed query'), { cause: { code: '23505', constraint: 'coupons_clinic_id_code_key' } });
    expect(databaseErrorState({ code: '23505' })).toEqual({ code: '23505', constraint: undefined });
    expect(databaseErrorState(wrapped)).toEqual({ code: '23505', constraint: 'coupons_clinic_id_code_key' });
    expect(isUniqueViolation(wrapped)).toBe(true);
    expect(isUniqueViolation(wrapped, 'coupons_clinic_id_code_key')).toBe(true);
    expect(isUniqueViolation(wrapped, 'another_key')).toBe(false);
    for (const other of [{ code: 'ECONNRESET' }, null, '23505', { code: '23503' }]) expect(isUniqueViolation(other)).toBe(false);
    expect(databaseErrorState('23505')).toEqual({});
  });
});
