import type { PoolConfig } from 'pg';
import type { parse as parseConnectionString } from 'pg-connection-string';
import type { DatabaseDriver } from '../../config';
import type { ConnectionGate } from './connection-gate';
import { type GuardedPool, guardPool } from './pool-guard';
import { type NodePgDriver, type PipelineParts, pipelineTransactions } from './request-transaction';
import type { Database } from './types';

export type { Database, Queryable, Schema, Transaction } from './types';

export interface DatabaseHandle {
  db: Database;
  /** Ends the connection(s); in workerd this must run inside the request that opened them. */
  close(): Promise<void>;
}

/** Give up on a TCP/TLS/WebSocket connect after this long (the error handler answers 503). */
export const CONNECT_TIMEOUT_MS = 5_000;
/**
 * A request's statement whose answer has not started after this long closes its connection (503):
 * a database that stops answering mid-request (a frozen server, a network that drops packets without a
 * reset) would otherwise hold the request and its gate slot for good. Far above any statement of this
 * API (docs/orders.md: milliseconds at 100,000 orders); a lock wait counts too. The cron has none.
 */
export const QUERY_ANSWER_TIMEOUT_MS = 10_000;

export interface OpenDatabaseOptions {
  url: string;
  driver: DatabaseDriver;
  /** Caps the connections of this isolate; the handle takes a slot on its first query, frees it on close. */
  gate?: ConnectionGate;
  /** Close a connection whose answer does not start within this many ms of a statement (pool-guard.ts). */
  answerTimeoutMs?: number;
}

/** The events of pg's (and Neon's) Pool that openDatabase listens to itself. */
interface PoolEvents {
  on(event: 'connect', listener: (client: { connection?: { stream?: CorkableStream } }) => void): unknown;
}

/** The part of a socket that pg writes to; cork/uncork are optional (pg checks for them). */
export interface CorkableStream {
  write(data: Uint8Array | string, ...rest: unknown[]): boolean;
  cork?(): void;
  uncork?(): void;
}

/**
 * pg corks its socket around the messages of a statement with parameters (Parse, Bind, Describe,
 * Execute, Sync) so that they leave in one write. pg-cloudflare's socket, which pg uses in workerd, has
 * no cork: each message was its own write into the runtime, five per statement (measured in
 * `npm run bench -- --profile`: the socket writes were the largest single cost of a request after
 * connecting). This gives such a socket a cork that buffers the messages and sends them together on
 * uncork, in order; writes made uncorked, or with a callback or a string, are sent as before (after
 * whatever is buffered). Sockets that have a cork (Node's) are left alone.
 */
export function coalesceWrites(stream: CorkableStream): void {
  if (typeof stream.cork === 'function') return;
  const write = stream.write.bind(stream);
  let depth = 0;
  let buffered: Uint8Array[] = [];
  const release = () => {
    if (buffered.length === 0) return;
    const parts = buffered;
    buffered = [];
    write(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
  };
  stream.cork = () => {
    depth++;
  };
  stream.uncork = () => {
    if (depth > 0 && --depth === 0) release();
  };
  stream.write = (data, ...rest) => {
    if (depth > 0 && rest.length === 0 && typeof data !== 'string') {
      buffered.push(data);
      return true;
    }
    release();
    return write(data, ...rest);
  };
}

/** pg's clients in workerd: one write per statement (coalesceWrites). Neon's socket coalesces by itself. */
function coalescePoolWrites(pool: PoolEvents): void {
  pool.on('connect', (client) => {
    const stream = client.connection?.stream;
    if (stream) coalesceWrites(stream);
  });
}

/**
 * The connection settings of a URL, parsed once per isolate: pg parses a connectionString again for
 * every client (with the URL parser), that is for every request here. The same parser, the same result.
 */
const parsedUrls = new Map<string, ReturnType<typeof parseConnectionString>>();
function connectionSettings(url: string, parse: typeof parseConnectionString): ReturnType<typeof parseConnectionString> {
  let settings = parsedUrls.get(url);
  if (!settings) {
    if (parsedUrls.size >= 8) parsedUrls.clear(); // a handful of URLs per isolate; never unbounded
    settings = parse(url);
    parsedUrls.set(url, settings);
  }
  return settings;
}

/**
 * Opens a database for one request. Nothing connects until the first query, so a request that never
 * touches the database costs nothing. In workerd, sockets belong to the request that opened them:
 * never keep the handle at module level.
 */
export async function openDatabase({ url, driver, gate, answerTimeoutMs }: OpenDatabaseOptions): Promise<DatabaseHandle> {
  // __DATABASE_DRIVER__ is a literal in a wrangler build (wrangler.toml [define]), so these conditions
  // fold and the bundler drops the driver that build does not carry; readDatabaseConfig has already
  // refused a configuration that needs it. Read directly: esbuild folds no constant across modules.
  if ((typeof __DATABASE_DRIVER__ === 'undefined' || __DATABASE_DRIVER__ === 'neon') && driver === 'neon') {
    const [{ Pool }, { drizzle }] = await Promise.all([import('@neondatabase/serverless'), import('drizzle-orm/neon-serverless')]);
    // The WebSocket pool (not the HTTP driver) so that interactive transactions work.
    const pool = new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    const { close } = guardPool(pool as unknown as GuardedPool, { gate, answerTimeoutMs });
    return { db: drizzle({ client: pool }) as unknown as Database, close };
  }
  if (typeof __DATABASE_DRIVER__ === 'undefined' || __DATABASE_DRIVER__ === 'pg') {
    const [{ default: pg }, driverModule, { parse }] = await Promise.all([
      import('pg'),
      import('drizzle-orm/node-postgres'),
      import('pg-connection-string'),
    ]);
    // The URL's settings last: pg lets a connectionString override the other options. pipeline: a
    // request transaction sends BEGIN with its first statement and COMMIT with its last (request-transaction.ts).
    const pool = new pg.Pool({
      max: 1,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      pipeline: true,
      ...connectionSettings(url, parse),
    } as PoolConfig);
    coalescePoolWrites(pool as unknown as PoolEvents);
    const { close } = guardPool(pool as unknown as GuardedPool, { gate, answerTimeoutMs, settleWrites: true });
    // No `schema` here: with it, drizzle() rebuilds the relational-query config of every table on each
    // call, 0.5-1 ms of CPU per request (measured), for `db.query.*`, which no request uses. Request
    // databases therefore have no `db.query` (the typed builders, select/insert/update/delete/execute, work).
    const db = driverModule.drizzle({ client: pool }) as unknown as Database;
    pipelineTransactions(db, { pool: pool as unknown as PipelineParts['pool'], driver: driverModule as unknown as NodePgDriver });
    return { db, close };
  }
  throw new Error(`This Worker was built without the ${driver} driver`);
}
