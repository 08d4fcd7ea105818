import { type SQL, sql } from 'drizzle-orm';
import type { Queryable } from './client';

/** Rows of a raw statement (node-postgres and Neon both answer { rows }). */
export async function rowsOf<T>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/** A timestamptz expression as an ISO 8601 UTC string with milliseconds, formatted in SQL (null stays null). */
export const isoTimestamp = (column: SQL) => sql`to_char((${column}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A count or sum from SQL (bigint and numeric arrive as strings) as a number; null reads as 0. */
export const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

/** `value` as a literal ILIKE substring pattern (its %, _ and \ match themselves). */
export const likePattern = (value: string) => `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A patient (table or alias `patient`) whose full name ("Ada Lovelace") or email contains `value`,
 * ignoring case: GET /customers and GET /contacts. The full name holds every substring of the first
 * and of the last name, so these two expressions are the whole search, each with its trigram index
 * (migration list_search_indexes: the expression must stay the indexed one).
 */
export const patientMatches = (patient: SQL, value: string) => {
  const pattern = likePattern(value);
  return sql`((${patient}.first_name || ' ' || ${patient}.last_name) ilike ${pattern} or ${patient}.email ilike ${pattern})`;
};
