import { sql } from 'drizzle-orm';
import { apiKeys, requestLogs } from '../../drizzle/schema';
import type { Queryable } from './db/client';
import { sleep } from './db/connection-gate';
import { describeError } from './log';

/** A request's log row: what every row has, and the details of issue 30 (absent: null, or false for the flags). */
export type RequestLogEntry = Required<
  Pick<typeof requestLogs.$inferInsert, 'apiKeyId' | 'clinicId' | 'requestId' | 'method' | 'route' | 'status' | 'durationMs'>
> &
  Pick<
    typeof requestLogs.$inferInsert,
    | 'createdAt'
    | 'path'
    | 'errorCode'
    | 'idempotencyKey'
    | 'idempotentReplayed'
    | 'rateLimited'
    | 'rateLimitRemaining'
    | 'clientIp'
    | 'userAgent'
    | 'clientRequestId'
  >;

/** Rows per insert; a burst larger than this is written in several statements by the same flush. */
const MAX_ROWS_PER_INSERT = 500;

export interface RequestLogBatching {
  /** A batch is written once it holds this many rows... */
  flushRows: number;
  /** ...or once its oldest row has waited this long (ms). */
  flushAfterMs: number;
}

/** The Worker's batching: one insert per isolate every 200 ms at most, or per 100 rows. */
export const WORKER_BATCHING: RequestLogBatching = { flushRows: 100, flushAfterMs: 200 };

/**
 * Every request made with a valid key is logged (spec, Authentication 9) after its response, off the
 * request's path: rows wait in a batch of the isolate, written in ONE multi-row insert (which also
 * moves the keys' lastUsedAt) when the batch is full or its oldest row has waited flushAfterMs.
 *
 * The request that puts the first row into an empty batch is its writer: its flush (in waitUntil)
 * waits until the batch is due, takes every row then waiting and writes them on its own connection.
 * Every other request's flush returns at once: its row is in a batch whose writer's waitUntil is still
 * running, so no row is left behind when requests end normally. Rows added after the writer took its
 * batch start the next one, with their own writer. What is lost if the isolate dies (crash, CPU limit,
 * eviction before waitUntil ends): the rows of the batch not yet written, at most flushAfterMs of them.
 */
export class RequestLogWriter {
  private pending: RequestLogEntry[] = [];
  private oldestAt = 0;
  private writer = false;

  constructor(private readonly batching: RequestLogBatching = { flushRows: 1, flushAfterMs: 0 }) {}

  add(entry: RequestLogEntry): void {
    if (this.pending.length === 0) this.oldestAt = Date.now();
    this.pending.push(entry);
  }

  get size(): number {
    return this.pending.length;
  }

  /**
   * The request's part in writing the log: the batch's writer waits until it is due and writes it on
   * `db`; anyone else returns 0 at once. A failed write is reported and its rows dropped, never retried into a loop.
   */
  async flush(db: Queryable): Promise<number> {
    if (this.writer || this.pending.length === 0) return 0;
    this.writer = true;
    let batch: RequestLogEntry[];
    try {
      // Polled, not awaited: in workerd, awaiting another request's promise would resume this one in
      // that request's context, where this request's connection may not be used.
      while (this.pending.length < this.batching.flushRows && Date.now() - this.oldestAt < this.batching.flushAfterMs) {
        await sleep(Math.max(1, Math.min(10, this.batching.flushAfterMs - (Date.now() - this.oldestAt))));
      }
      batch = this.pending;
      this.pending = [];
    } finally {
      this.writer = false;
    }
    let written = 0;
    for (let from = 0; from < batch.length; from += MAX_ROWS_PER_INSERT) {
      const rows = batch.slice(from, from + MAX_ROWS_PER_INSERT);
      try {
        await writeBatch(db, rows);
        written += rows.length;
      } catch (error) {
        reportFailure(rows, error);
      }
    }
    return written;
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
 * A value the client chose (a path it typed, a header), as PostgreSQL's text takes it: a NUL (a path
 * with %00 arrives decoded) would fail the whole batch's insert, losing every other request's row.
 */
function text(value: string | null | undefined): string | null {
  return value == null ? null : value.replaceAll('\u0000', '\uFFFD');
}

/**
 * The rows and the keys' lastUsedAt in one statement. lastUsedAt moves at most once a minute, so a
 * busy key does not turn every request into a write on the same api_keys row.
 */
async function writeBatch(db: Queryable, batch: RequestLogEntry[]): Promise<void> {
  const rows = sql.join(
    batch.map(
      (e) =>
        sql`(${e.apiKeyId}::uuid, ${e.clinicId}::uuid, ${text(e.requestId)}, ${e.method}, ${e.route}, ${e.status}::int, ${e.durationMs}::int, coalesce(${e.createdAt ?? null}::timestamptz, now()), ${text(e.path)}, ${e.errorCode ?? null}, ${text(e.idempotencyKey)}, ${e.idempotentReplayed ?? false}::boolean, ${e.rateLimited ?? false}::boolean, ${e.rateLimitRemaining ?? null}::int, ${text(e.clientIp)}, ${text(e.userAgent)}, ${text(e.clientRequestId)})`,
    ),
    sql`, `,
  );
  const keyIds = sql.join(
    [...new Set(batch.map((e) => e.apiKeyId))].map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  await db.execute(sql`
    with logged as (
      insert into ${requestLogs} (api_key_id, clinic_id, request_id, method, route, status, duration_ms, created_at, path, error_code,
        idempotency_key, idempotent_replayed, rate_limited, rate_limit_remaining, client_ip, user_agent, client_request_id)
      values ${rows}
    )
    update ${apiKeys} set last_used_at = now()
    where id in (${keyIds}) and (last_used_at is null or last_used_at < now() - interval '1 minute')`);
}

/** How far back GET /api/v1/request-logs reaches; older rows stay for operators until the retention below. */
export const REQUEST_LOG_API_DAYS = 30;

/**
 * Request logs are kept this long: a month partition of request_logs is dropped once its whole month is
 * older (src/platform/partitions.ts), so a row lives 90 to 121 days.
 */
export const REQUEST_LOG_RETENTION_DAYS = 90;
