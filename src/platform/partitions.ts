// The month partitions of request_logs and audit_events (migration 0022; docs/request-logs.md and
// docs/audit-log.md): made ahead and dropped past their retention by the cron sweep, in SQL functions of
// the migration (ensure_month_partitions, drop_month_partitions).
import { sql } from 'drizzle-orm';
import type { Queryable } from './db/client';
import { rowsOf } from './db/sql';
import { describeError, logLine } from './log';
import { REQUEST_LOG_RETENTION_DAYS } from './request-log';
import type { Sweep } from './sweep';

/** Audit rows are kept six years (HIPAA 164.316(b)(2)(i)); a month goes once all of it is older. */
export const AUDIT_RETENTION_YEARS = 6;

/** Partitions are made this many months past the current one, so a sweep that stops for a while costs nothing. */
export const PARTITION_MONTHS_AHEAD = 3;

/** The partitioned tables and how long they keep a month (a PostgreSQL interval). */
export const MONTH_PARTITIONED = [
  { table: 'request_logs', retention: `${REQUEST_LOG_RETENTION_DAYS} days` },
  { table: 'audit_events', retention: `${AUDIT_RETENTION_YEARS} years` },
] as const;

export interface PartitionChanges {
  table: string;
  made: number;
  dropped: string[];
}

/**
 * One statement per table: the partitions from `now`'s month to PARTITION_MONTHS_AHEAD after it (and of
 * any month with rows waiting in the DEFAULT partition) are made if missing, and every month whose end
 * is older than the retention is dropped. A table that fails (a lock not granted within lock_timeout)
 * is reported and left to the next run; the other is still maintained.
 */
export async function maintainMonthPartitions(db: Queryable, now: Date): Promise<PartitionChanges[]> {
  const changes: PartitionChanges[] = [];
  for (const { table, retention } of MONTH_PARTITIONED) {
    try {
      const [row] = await rowsOf<{ made: number; dropped: string[] | null }>(
        db,
        sql`select ensure_month_partitions(${table}::regclass, ${now.toISOString()}::timestamptz, ${PARTITION_MONTHS_AHEAD}::int) as made,
              (select array_agg(d) from drop_month_partitions(${table}::regclass, ${now.toISOString()}::timestamptz - ${retention}::interval) d) as dropped`,
      );
      changes.push({ table, made: row!.made, dropped: row!.dropped ?? [] });
    } catch (error) {
      logLine('error', 'partition maintenance failed', { table, error: describeError(error) });
    }
  }
  return changes;
}

/** The cron sweep (src/scheduled.ts): every run (a few catalog look-ups when there is nothing to do). */
export const partitionMaintenance: Sweep = async function partitionMaintenance(db, now) {
  await maintainMonthPartitions(db, now);
};
