import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { DatabaseDriver } from '../../env';
import * as schema from '../../../drizzle/schema';

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

/**
 * Opens a database for one request. Nothing connects until the first query, so a request that never
 * touches the database costs nothing. In workerd, sockets belong to the request that opened them:
 * never keep the handle at module level.
 */
export async function openDatabase(url: string, driver: DatabaseDriver): Promise<DatabaseHandle> {
  if (driver === 'neon') {
    const [{ Pool }, { drizzle }] = await Promise.all([
      import('@neondatabase/serverless'),
      import('drizzle-orm/neon-serverless'),
    ]);
    // The WebSocket pool (not the HTTP driver) so that interactive transactions work.
    const pool = new Pool({ connectionString: url, max: 1 });
    pool.on('error', () => {}); // an idle socket dropped by the server must not crash the isolate
    return { db: drizzle({ client: pool, schema }) as unknown as Database, close: () => pool.end() };
  }
  const [{ default: pg }, { drizzle }] = await Promise.all([import('pg'), import('drizzle-orm/node-postgres')]);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => {});
  return { db: drizzle({ client: pool, schema }) as unknown as Database, close: () => pool.end() };
}
