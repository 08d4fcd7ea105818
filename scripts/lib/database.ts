import * as nodePg from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from '../../drizzle/schema';
import type { Database } from '../../src/platform/db/client';
import { type NodePgDriver, type PipelineParts, pipelineTransactions } from '../../src/platform/db/request-transaction';

/**
 * A node-postgres pool wrapped in Drizzle, for scripts and tests running in Node. `onQuery` sees the
 * SQL of every statement Drizzle sends (the tests count round trips with it).
 */
export function connect(
  url: string,
  max = 4,
  onQuery?: (sql: string) => void,
): { db: Database; pool: pg.Pool; close: () => Promise<void> } {
  // pipeline: request transactions run as in the Worker (src/platform/db/request-transaction.ts).
  const pool = new pg.Pool({ connectionString: url, max, pipeline: true } as pg.PoolConfig);
  // An idle client killed by the server (a test database dropped "with (force)" while a client is
  // still closing, a restart) is reported here; without a listener it would crash the process.
  pool.on('error', () => {});
  const logger = onQuery ? { logQuery: (query: string) => onQuery(query) } : undefined;
  const db = nodePg.drizzle({ client: pool, schema, logger }) as unknown as Database;
  pipelineTransactions(db, { pool: pool as unknown as PipelineParts['pool'], driver: nodePg as unknown as NodePgDriver, logger });
  return { db, pool, close: () => pool.end() };
}

/** The same server's URL with another database name. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` on a single short-lived connection (for statements a pool cannot run, like CREATE DATABASE). */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates the database named in `url` if it does not exist (connecting to its server's postgres db). */
export async function ensureDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  await withClient(databaseUrl(url, 'postgres'), async (client) => {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database "${name.replace(/"/g, '""')}"`);
  });
}
