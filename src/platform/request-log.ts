import { lt, sql } from 'drizzle-orm';
import { apiKeys, requestLogs } from '../../drizzle/schema';
import type { Database, Queryable } from './db/client';
import { sleep } from './db/connection-gate';
import { describeError } from './log';
import type { Sweep } from './sweep';

export type RequestLogEntry = Required<
  Pick<typeof requestLogs.$inferInsert, 'apiKeyId' | 'clinicId' | 'requestId' | 'method' | 'route' | 'status' | 'durationMs'>
>;

/** Rows per insert; a burst larger than this is written in several statements by the same flush. */
const MAX_ROWS_PER_INSERT = 500;

/**
 * Every request made with a valid key is logged (spec, Authentication 9) after its response.
 * Entries are buffered per isolate. A request's flush waits for a write already running, then writes
 * everything still waiting in one statement (which also moves the keys' lastUsedAt). So one request
 * costs at most one insert, a burst of concurrent requests costs a few, and no request ends with its
 * own row unwritten (it is written by that request or by one that was still running).
 */
export class RequestLogWriter {
  private pending: RequestLogEntry[] = [];
  private writing: Promise<void> | null = null;

  add(entry: RequestLogEntry): void {
    this.pending.push(entry);
  }

  get size(): number {
    return this.pending.length;
  }

  /** Writes what is waiting on `db`. A failed write is reported and its rows dropped, never retried into a loop. */
  async flush(db: Queryable): Promise<number> {
    let written = 0;
    for (;;) {
      // Polled, not awaited: in workerd, awaiting another request's promise would resume this one in
      // that request's context, where this request's connection may not be used.
      while (this.writing) await sleep(2);
      if (this.pending.length === 0) return written;
      const batch = this.pending.splice(0, MAX_ROWS_PER_INSERT);
      this.writing = writeBatch(db, batch)
        .then(
          () => {
            written += batch.length;
          },
          (error: unknown) => reportFailure(batch, error),
        )
        .finally(() => {
          this.writing = null;
        });
    }
  }
}

function reportFailure(batch: RequestLogEntry[], error: unknown): void {
  console.error(
    JSON.stringify({
      level: 'error',
      msg: 'request log write failed',
      rows: batch.length,
      requestIds: batch.slice(0, 5).map((entry) => entry.requestId),
      error: describeError(error),
    }),
  );
}

/**
 * The rows and the keys' lastUsedAt in one statement. lastUsedAt moves at most once a minute, so a
 * busy key does not turn every request into a write on the same api_keys row.
 */
async function writeBatch(db: Queryable, batch: RequestLogEntry[]): Promise<void> {
  const rows = sql.join(
    batch.map(
      (e) =>
        sql`(${e.apiKeyId}::uuid, ${e.clinicId}::uuid, ${e.requestId}, ${e.method}, ${e.route}, ${e.status}::int, ${e.durationMs}::int)`,
    ),
    sql`, `,
  );
  const keyIds = sql.join(
    [...new Set(batch.map((e) => e.apiKeyId))].map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  await db.execute(sql`
    with logged as (
      insert into ${requestLogs} (api_key_id, clinic_id, request_id, method, route, status, duration_ms)
      values ${rows}
    )
    update ${apiKeys} set last_used_at = now()
    where id in (${keyIds}) and (last_used_at is null or last_used_at < now() - interval '1 minute')`);
}

/** Request logs older than this are deleted by the scheduled sweep. */
export const REQUEST_LOG_RETENTION_DAYS = 90;
const DELETE_BATCH = 5_000;

/** Deletes expired request logs in small batches, so no sweep holds long locks. */
export async function pruneRequestLogs(db: Database, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - REQUEST_LOG_RETENTION_DAYS * 86_400_000);
  let deleted = 0;
  for (;;) {
    const rows = await db
      .delete(requestLogs)
      .where(
        sql`${requestLogs.id} in (${db.select({ id: requestLogs.id }).from(requestLogs).where(lt(requestLogs.createdAt, cutoff)).limit(DELETE_BATCH)})`,
      )
      .returning({ id: requestLogs.id });
    deleted += rows.length;
    if (rows.length < DELETE_BATCH) return deleted;
  }
}

/** The cron sweep of request-log retention (src/scheduled.ts). */
export const requestLogRetention: Sweep = async function requestLogRetention(db, now) {
  await pruneRequestLogs(db, now);
};
