// openDatabase's guard of its pool (src/platform/db/pool-guard.ts), in Node against the test PostgreSQL
// through the outage proxy (test/faults/pg-outage-proxy.ts): what a driver reports while connecting is
// marked unavailable whatever its wording; a connection lost in the middle of a transaction's BEGIN no
// longer keeps the handle from closing (nor its gate slot from coming back); a statement whose answer
// never comes ends after the answer timeout; an idle connection is never timed.
import { createServer, type Server } from 'node:net';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/platform/db/client';
import { ConnectionGate } from '../../src/platform/db/connection-gate';
import { classifyDatabaseError } from '../../src/platform/db/errors';
import { DatabaseAnswerTimeout, type GuardedPool, guardPool } from '../../src/platform/db/pool-guard';
import { outageApplicationName, type PgOutageProxy, startPgOutageProxy } from '../faults/pg-outage-proxy';
import { createTestDatabase } from '../helpers/database';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: PgOutageProxy;
let garbage: Server;
let garbagePort: number;

beforeAll(async () => {
  database = await createTestDatabase();
  proxy = await startPgOutageProxy(database.url);
  // A server that answers the startup with a message type PostgreSQL does not have.
  garbage = createServer((socket) => socket.once('data', () => socket.end(Buffer.from('X\0\0\0\x04'))));
  await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
  garbagePort = (garbage.address() as { port: number }).port;
});
afterAll(async () => {
  await proxy?.close();
  await new Promise((resolve) => garbage?.close(resolve));
  await database?.close();
});

const through = (fault: Parameters<typeof outageApplicationName>[0], at: number, tag: string) => {
  const url = new URL(database.url);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  url.searchParams.set('application_name', outageApplicationName(fault, at, tag));
  return url.toString();
};

/** What `work` rejects with; it must reject. */
const failure = (work: () => PromiseLike<unknown>) =>
  Promise.resolve(work()).then(
    () => expect.fail('expected the work to fail'),
    (error: unknown) => error,
  );

/** Whether `promise` settles within `ms`. */
const settlesWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe('errors while connecting are marked unavailable, whatever they say', () => {
  it('a server that answers the startup with nonsense: unavailable through openDatabase, undecided from a bare pool', async () => {
    const url = `postgres://postgres@127.0.0.1:${garbagePort}/nothing`;
    const handle = await openDatabase({ url, driver: 'pg' });
    const error = await failure(() => handle.db.execute(sql`select 1`));
    await handle.close();
    expect(classifyDatabaseError(error)).toBe('unavailable');
    // The same failure from a pool openDatabase did not make: nothing in it says "unavailable".
    const bare = new pg.Pool({ connectionString: url, max: 1 });
    const raw = await failure(() => bare.query('select 1'));
    await bare.end().catch(() => {});
    expect((raw as Error).message).toMatch(/invalid response/);
    expect(classifyDatabaseError(raw)).toBeNull();
  });

  it('PostgreSQL refusing with a SQLSTATE keeps it: an unknown database (3D000) is not an outage', async () => {
    const url = new URL(database.url);
    url.pathname = '/no_such_database';
    const handle = await openDatabase({ url: url.toString(), driver: 'pg' });
    const error = await failure(() => handle.db.execute(sql`select 1`));
    await handle.close();
    expect((error as { cause?: { code?: string } }).cause?.code).toBe('3D000');
    expect(classifyDatabaseError(error)).toBeNull();
  });
});

describe('a connection lost while a request holds it', () => {
  it('at the BEGIN of a transaction: the handle closes and gives its gate slot back; the next statement opens a new connection', async () => {
    const gate = new ConnectionGate(1);
    const handle = await openDatabase({ url: through('reset', 1, 'begin-lost'), driver: 'pg', gate });
    const error = await failure(() => handle.db.transaction(async (tx) => tx.execute(sql`select 1`)));
    expect(classifyDatabaseError(error)).toBe('unavailable');
    // Drizzle never hands back the client of a transaction whose BEGIN failed: with a pool of one, the next
    // statement waited for it (5 s, "timeout exceeded when trying to connect") and close() for ever.
    const started = Date.now();
    const next = await failure(() => handle.db.execute(sql`select 1`));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((next as { cause?: Error }).cause?.message).not.toMatch(/timeout exceeded/);
    expect(proxy.stats.get('begin-lost')?.connections).toBe(2);
    expect(await settlesWithin(handle.close(), 2_000), 'close() finished').toBe(true);
    expect(gate.inUse).toBe(0);
  });
});

describe('the answer watchdog', () => {
  it('a statement that gets no answer ends with DatabaseAnswerTimeout after answerTimeoutMs, in a transaction too', async () => {
    for (const inTransaction of [false, true]) {
      const gate = new ConnectionGate(1);
      const handle = await openDatabase({ url: through('hang', 1, `hang-${inTransaction}`), driver: 'pg', gate, answerTimeoutMs: 300 });
      const started = Date.now();
      const error = await failure(() =>
        inTransaction ? handle.db.transaction(async (tx) => tx.execute(sql`select 1`)) : handle.db.execute(sql`select 1`),
      );
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(290);
      expect(took).toBeLessThan(2_000);
      expect(String((error as { cause?: unknown }).cause ?? error)).toContain('did not answer within 300 ms');
      expect(classifyDatabaseError(error)).toBe('unavailable');
      expect(await settlesWithin(handle.close(), 2_000)).toBe(true);
      expect(gate.inUse).toBe(0);
    }
  });

  it('never times an idle connection: a request may keep it between two statements, in a transaction too', async () => {
    const handle = await openDatabase({ url: database.url, driver: 'pg', answerTimeoutMs: 150 });
    try {
      await handle.db.execute(sql`select 1`);
      await new Promise((resolve) => setTimeout(resolve, 400));
      await handle.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await new Promise((resolve) => setTimeout(resolve, 400));
        await tx.execute(sql`select 2`);
      });
      // A statement that answers after a while, but starts answering in time, is not timed out either.
      await handle.db.execute(sql`select pg_sleep(0.1)`);
    } finally {
      await handle.close();
    }
  });

  it('a statement slower than the timeout is ended: the timeout is the answer budget, not an idle limit', async () => {
    const handle = await openDatabase({ url: database.url, driver: 'pg', answerTimeoutMs: 200 });
    const error = await failure(() => handle.db.execute(sql`select pg_sleep(1)`));
    await handle.close();
    expect((error as { cause?: unknown }).cause).toBeInstanceOf(DatabaseAnswerTimeout);
    expect(classifyDatabaseError(error)).toBe('unavailable');
  });
});

describe('close() and the connection’s last write', () => {
  /**
   * A pool whose socket calls a write's callback only when told: as in workerd, where the server may
   * close the connection on reading Terminate (pg's end() then resolves) before the write is settled.
   */
  const poolWithLateWrites = () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const late: (() => void)[] = [];
    // Registered before the guard's listener: this wrapper is the socket's own write, under the guard's.
    pool.on('connect', (client) => {
      const stream = (client as unknown as { connection: { stream: { write(data: unknown, ...rest: unknown[]): boolean } } }).connection
        .stream;
      const write = stream.write.bind(stream);
      stream.write = (data, ...rest) => {
        const callback = rest[rest.length - 1];
        if (typeof callback === 'function') rest[rest.length - 1] = (...args: unknown[]) => late.push(() => callback(...args));
        return write(data, ...rest);
      };
    });
    return { pool, late };
  };

  it('waits for pg’s Terminate write to be called back (settleWrites): a request that ended before it leaked the client in workerd', async () => {
    const { pool, late } = poolWithLateWrites();
    const gate = new ConnectionGate(1);
    const { close } = guardPool(pool as unknown as GuardedPool, { gate, settleWrites: true });
    await pool.query('select 1');
    const closing = close();
    expect(await settlesWithin(closing, 500), 'close() before the write settled').toBe(false);
    expect(late).toHaveLength(1); // Terminate
    expect(gate.inUse, 'the gate slot is back meanwhile').toBe(0);
    for (const callback of late.splice(0)) callback();
    expect(await settlesWithin(closing, 2_000), 'close() once it settled').toBe(true);
  });

  it('without settleWrites (Neon’s socket, which never calls that callback) close() does not wait for it', async () => {
    const { pool, late } = poolWithLateWrites();
    const { close } = guardPool(pool as unknown as GuardedPool);
    await pool.query('select 1');
    expect(await settlesWithin(close(), 2_000)).toBe(true);
    // The socket's callback, held back, came (or comes) after close() had finished.
    await vi.waitFor(() => expect(late).toHaveLength(1));
    for (const callback of late.splice(0)) callback();
  });
});
