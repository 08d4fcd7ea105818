import { and, eq, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import { notFound } from '../values/errors';
import { isUuid } from '../values/ids';
import type { Queryable } from './client';

/** A table whose rows belong to one clinic. */
export type ClinicOwnedTable = PgTable & { id: AnyPgColumn; clinicId: AnyPgColumn };

/**
 * Queries on clinic-owned rows, with the clinic filter already applied. Handlers get one of these
 * from the key's clinic, so forgetting the filter takes effort. Malformed, unknown and other-clinic
 * ids all end in the same NOT_FOUND error.
 */
export function forClinic(db: Queryable, clinicId: string) {
  return {
    clinicId,

    /** The clinic filter and any further conditions, for selects this helper does not cover. */
    where(table: ClinicOwnedTable, ...conditions: (SQL | undefined)[]): SQL {
      return and(eq(table.clinicId, clinicId), ...conditions)!;
    },

    /** Rows of the clinic matching the conditions (limit checks; the total of a page past the end). */
    count(table: ClinicOwnedTable, ...conditions: (SQL | undefined)[]): Promise<number> {
      return db.$count(table, and(eq(table.clinicId, clinicId), ...conditions));
    },

    async findById<T extends ClinicOwnedTable>(table: T, id: string, resource: string): Promise<T['$inferSelect']> {
      if (!isUuid(id)) throw notFound(resource);
      const [row] = await db
        .select()
        .from(table as PgTable)
        .where(and(eq(table.clinicId, clinicId), eq(table.id, id)))
        .limit(1);
      if (!row) throw notFound(resource);
      return row as T['$inferSelect'];
    },

    async updateById<T extends ClinicOwnedTable>(
      table: T,
      id: string,
      values: Partial<T['$inferInsert']>,
      resource: string,
      ...conditions: (SQL | undefined)[]
    ): Promise<T['$inferSelect']> {
      if (!isUuid(id)) throw notFound(resource);
      const [row] = await db
        .update(table as PgTable)
        .set(values as never)
        .where(and(eq(table.clinicId, clinicId), eq(table.id, id), ...conditions))
        .returning();
      if (!row) throw notFound(resource);
      return row as T['$inferSelect'];
    },

    async insert<T extends ClinicOwnedTable>(table: T, values: Omit<T['$inferInsert'], 'clinicId'>): Promise<T['$inferSelect']> {
      const [row] = await db
        .insert(table as PgTable)
        .values({ ...values, clinicId } as never)
        .returning();
      return row as T['$inferSelect'];
    },
  };
}

export type ClinicScope = ReturnType<typeof forClinic>;
