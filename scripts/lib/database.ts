import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from '../../drizzle/schema';
import type { Database } from '../../src/platform/db/client';

/**
 * A node-postgres pool wrapped in Drizzle, for scripts and tests running in Node. `onQuery` sees the
 * SQL of every statement Drizzle sends (the tests count round trips with it).
 */
export function connect(url: string, max = 4, onQuery?: (sql: string) => void): { db: Database; pool: pg.Pool; close: () => Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max });
  const logger = onQuery ? { logQuery: (query: string) => onQuery(query) } : undefined;
  return { db: drizzle({ client: pool, schema, logger }) as unknown as Database, pool, close: () => pool.end() };
}

/** Creates the database named in `url` if it does not exist (connecting to its server's postgres db). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}
