import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { PoolConfig } from 'pg';
import type { parse as parseConnectionString } from 'pg-connection-string';
import type * as schema from '../../../drizzle/schema';
import type { DatabaseDriver } from '../../config';
import type { ConnectionGate } from './connection-gate';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything a query can run on: the database or an open transaction. */
export type Queryable = Database | Transaction;

export interface DatabaseHandle {
  db: Database;
  /** Ends the connection(s); in workerd this must run inside the request that opened them. */
  close(): Promise<void>;
}

/** Give up on a TCP/TLS/WebSocket connect after this long (the error handler answers 503). */
export const CONNECT_TIMEOUT_MS = 5_000;
/** Wait at most this long for a free slot of the connection gate (503 after). */
export const GATE_WAIT_MS = 5_000;

export interface OpenDatabaseOptions {
  url: string;
  driver: DatabaseDriver;
  /** Caps the connections of this isolate; the handle takes a slot on its first query, frees it on close. */
  gate?: ConnectionGate;
}

/** The part of pg's (and Neon's) Pool that the gate wraps. */
interface PoolLike {
  connect(...args: unknown[]): unknown;
  end(): Promise<void>;
}

/** The events of pg's (and Neon's) Pool that openDatabase listens to. */
interface PoolEvents {
  on(event: 'error', listener: (error: unknown) => void): unknown;
  on(event: 'connect', listener: (client: PooledClient) => void): unknown;
}

/** A connected client of pg's Pool, as far as openDatabase touches it. */
interface PooledClient {
  on(event: 'error', listener: (error: unknown) => void): unknown;
  /** pg's Connection; its stream is a net.Socket in Node, pg-cloudflare's CloudflareSocket in workerd. */
  connection?: { stream?: CorkableStream };
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

/**
 * A connection lost while a request holds it (the server restarted or killed the backend, the network
 * dropped) between two statements is reported as an `error` event of that client, and pg-pool listens
 * only while the client is idle in the pool: unheard, the event would be an uncaught exception that
 * takes the isolate down with every request in it. The loss needs no handling here: the client is
 * unusable from then on, so the request's next statement fails with a connection error (503) and
 * PostgreSQL rolls back whatever transaction was open.
 */
function survivePoolErrors(pool: PoolEvents): void {
  pool.on('error', () => {}); // an idle client dropped by the server
  pool.on('connect', (client) => client.on('error', () => {})); // a client a request holds
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
 * Makes a pool wait for a gate slot before it connects. Both Drizzle paths go through pool.connect:
 * transactions call it directly, plain queries through pool.query. Patched on the instance, so
 * Drizzle's `instanceof Pool` check still holds.
 */
function gatePool(pool: PoolLike, gate: ConnectionGate): void {
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  const end = pool.end.bind(pool);
  let slot: Promise<() => void> | undefined;
  pool.connect = (callback?: unknown) => {
    slot ??= gate.acquire(GATE_WAIT_MS);
    const connected = slot.then(() => connect());
    if (typeof callback !== 'function') return connected;
    connected.then(
      (client) => callback(undefined, client, (client as { release(): void }).release.bind(client)),
      (error: unknown) => callback(error),
    );
    return undefined;
  };
  pool.end = async () => {
    try {
      await end();
    } finally {
      // A slot whose wait timed out was never taken, so there is nothing to give back then.
      if (slot)
        await slot.then(
          (release) => release(),
          () => {},
        );
    }
  };
}

/**
 * Opens a database for one request. Nothing connects until the first query, so a request that never
 * touches the database costs nothing. In workerd, sockets belong to the request that opened them:
 * never keep the handle at module level.
 */
export async function openDatabase({ url, driver, gate }: OpenDatabaseOptions): Promise<DatabaseHandle> {
  // __DATABASE_DRIVER__ is a literal in a wrangler build (wrangler.toml [define]), so these conditions
  // fold and the bundler drops the driver that build does not carry; readDatabaseConfig has already
  // refused a configuration that needs it. Read directly: esbuild folds no constant across modules.
  if ((typeof __DATABASE_DRIVER__ === 'undefined' || __DATABASE_DRIVER__ === 'neon') && driver === 'neon') {
    const [{ Pool }, { drizzle }] = await Promise.all([import('@neondatabase/serverless'), import('drizzle-orm/neon-serverless')]);
    // The WebSocket pool (not the HTTP driver) so that interactive transactions work.
    const pool = new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    survivePoolErrors(pool as unknown as PoolEvents);
    if (gate) gatePool(pool as unknown as PoolLike, gate);
    return { db: drizzle({ client: pool }) as unknown as Database, close: () => pool.end() };
  }
  if (typeof __DATABASE_DRIVER__ === 'undefined' || __DATABASE_DRIVER__ === 'pg') {
    const [{ default: pg }, { drizzle }, { parse }] = await Promise.all([
      import('pg'),
      import('drizzle-orm/node-postgres'),
      import('pg-connection-string'),
    ]);
    // The URL's settings last: pg lets a connectionString override the other options.
    const pool = new pg.Pool({ max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, ...connectionSettings(url, parse) } as PoolConfig);
    survivePoolErrors(pool as unknown as PoolEvents);
    coalescePoolWrites(pool as unknown as PoolEvents);
    if (gate) gatePool(pool as unknown as PoolLike, gate);
    // No `schema` here: with it, drizzle() rebuilds the relational-query config of every table on each
    // call, 0.5-1 ms of CPU per request (measured), for `db.query.*`, which no request uses. Request
    // databases therefore have no `db.query` (the typed builders, select/insert/update/delete/execute, work).
    return { db: drizzle({ client: pool }) as unknown as Database, close: () => pool.end() };
  }
  throw new Error(`This Worker was built without the ${driver} driver`);
}
