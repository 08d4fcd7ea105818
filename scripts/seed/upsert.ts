import { sql } from 'drizzle-orm';

/**
 * The `set` of an idempotent seed upsert: every named column takes the value the seed just offered
 * (`excluded.<snake_case column>`), so re-seeding refreshes demo rows instead of duplicating them.
 */
export const refresh = (columns: string[]) =>
  Object.fromEntries(columns.map((c) => [c, sql.raw(`excluded.${c.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`)}`)]));
