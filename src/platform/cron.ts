import { lt, sql } from 'drizzle-orm';
import { requestLogs } from '../../drizzle/schema';
import { configFor, type AppConfig, type Env } from '../env';
import { runScheduledDeliveries } from '../modules/webhook-deliveries/engine';
import type { Database } from './db/client';
import { openDatabase } from './db/client';
import { describeError, logLine } from './log';

/** Request logs older than this are deleted by the scheduled sweep. */
export const REQUEST_LOG_RETENTION_DAYS = 90;
const DELETE_BATCH = 5_000;

export type Sweep = (db: Database, now: Date, config: AppConfig) => Promise<void>;

/** Deletes expired request logs in small batches, so no sweep holds long locks. */
export async function pruneRequestLogs(db: Database, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - REQUEST_LOG_RETENTION_DAYS * 86_400_000);
  let deleted = 0;
  for (;;) {
    const rows = await db
      .delete(requestLogs)
      .where(sql`${requestLogs.id} in (${db.select({ id: requestLogs.id }).from(requestLogs).where(lt(requestLogs.createdAt, cutoff)).limit(DELETE_BATCH)})`)
      .returning({ id: requestLogs.id });
    deleted += rows.length;
    if (rows.length < DELETE_BATCH) return deleted;
  }
}

/** Every periodic job; later areas (webhook retries, sandbox expiry, CRM sequences) add theirs. */
export const SWEEPS: Sweep[] = [
  async function requestLogRetention(db, now) {
    await pruneRequestLogs(db, now);
  },
  // Webhook deliveries (docs/webhooks.md, "Who sends"): with QStash, fan out and publish what is due or
  // overdue (the safety net); without it, the local dispatcher attempts what is due.
  async function webhookDeliveries(db, now, config) {
    await runScheduledDeliveries(db, now, config);
  },
];

/** The Worker's `scheduled` handler: one database for the run, every sweep, failures logged apart. */
export async function runScheduled(env: Env): Promise<void> {
  const config = configFor(env);
  const { database: target } = config;
  const database = await openDatabase({ url: target.url, driver: target.driver });
  try {
    for (const sweep of SWEEPS) {
      await sweep(database.db, new Date(), config).catch((error) =>
        logLine('error', 'scheduled sweep failed', { sweep: sweep.name, error: describeError(error) }),
      );
    }
  } finally {
    await database.close();
  }
}
