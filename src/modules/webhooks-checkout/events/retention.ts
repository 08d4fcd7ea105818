// Events are kept 30 days (docs/webhooks.md, "Events API"): the cron sweep deletes older ones, with
// their deliveries and attempts (foreign keys cascade), in bounded batches.
import { asc, lt, sql } from 'drizzle-orm';
import { outboxEvents } from '../../../../drizzle/schema';
import type { Database } from '../../../platform/db/client';
import type { Sweep } from '../../../platform/sweep';
import { keptSince } from './service';

/** Events deleted per statement (each with its deliveries and their attempts). */
export const EVENT_DELETE_BATCH = 500;
/** Batches one sweep run deletes at most; what is left goes in the next minute's run. */
export const EVENT_DELETE_BATCHES_PER_RUN = 20;

/**
 * Deletes events created before `now - 30 days`, oldest first, `batch` per statement and at most
 * `maxBatches` statements per call, so a large backlog never holds one long transaction or one long
 * run. Returns the events deleted.
 */
export async function pruneExpiredEvents(
  db: Database,
  now: Date,
  batch = EVENT_DELETE_BATCH,
  maxBatches = EVENT_DELETE_BATCHES_PER_RUN,
): Promise<number> {
  const cutoff = keptSince(now);
  let deleted = 0;
  for (let i = 0; i < maxBatches; i++) {
    const oldest = db
      .select({ id: outboxEvents.id })
      .from(outboxEvents)
      .where(lt(outboxEvents.createdAt, cutoff))
      .orderBy(asc(outboxEvents.createdAt))
      .limit(batch);
    const rows = await db.delete(outboxEvents).where(sql`${outboxEvents.id} in (${oldest})`).returning({ id: outboxEvents.id });
    deleted += rows.length;
    if (rows.length < batch) break;
  }
  return deleted;
}

/** The cron sweep of event retention (the area's `sweeps`, run by src/scheduled.ts). */
export const eventRetention: Sweep = async function eventRetention(db, now) {
  await pruneExpiredEvents(db, now);
};
