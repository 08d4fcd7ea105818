// The subscriptions sweep (docs/billing.md, "Sweep").
import { and, asc, eq, inArray, lt } from 'drizzle-orm';
import { platformSubscriptions } from '../../../../drizzle/schema';
import type { Database } from '../../../platform/db/client';
import { isDevelopmentBillingId } from '../../../platform/providers/billing';
import type { Sweep } from '../../../platform/sweep';

const DAY_MS = 86_400_000;
/** A period end this long ago without a renewal recorded marks a processor-backed subscription stale. */
export const LAPSE_GRACE_MS = 3 * DAY_MS;
const SWEEP_BATCH = 500;

/** One calendar month later in UTC, the day clamped to the month's length (Jan 31 -> Feb 28/29). */
export function addMonthUtc(date: Date): Date {
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  const lastDay = new Date(Date.UTC(y, m + 2, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      y,
      m + 1,
      Math.min(date.getUTCDate(), lastDay),
      date.getUTCHours(),
      date.getUTCMinutes(),
      date.getUTCSeconds(),
      date.getUTCMilliseconds(),
    ),
  );
}

/**
 * The subscriptions sweep (docs/billing.md, "Sweep"): a development subscription (sub_dev_) whose period
 * ended is renewed period by period, as the processor would; a processor subscription whose period ended
 * more than 3 days ago without a renewal being recorded is marked expired and needsSync, so previews
 * and changes answer 409 until it is re-synced. Returns how many rows changed.
 */
export async function sweepPlatformSubscriptions(db: Database, now: Date): Promise<number> {
  const due = await db
    .select()
    .from(platformSubscriptions)
    .where(and(inArray(platformSubscriptions.status, ['active', 'past_due']), lt(platformSubscriptions.currentPeriodEnd, now)))
    .orderBy(asc(platformSubscriptions.currentPeriodEnd))
    .limit(SWEEP_BATCH);
  let changed = 0;
  for (const row of due) {
    if (row.processorSubscriptionId && isDevelopmentBillingId(row.processorSubscriptionId)) {
      let start = row.currentPeriodStart;
      let end = row.currentPeriodEnd;
      while (end.getTime() <= now.getTime()) {
        start = end;
        end = addMonthUtc(end);
      }
      await db
        .update(platformSubscriptions)
        .set({ currentPeriodStart: start, currentPeriodEnd: end, updatedAt: now })
        .where(eq(platformSubscriptions.id, row.id));
      changed++;
    } else if (row.currentPeriodEnd.getTime() < now.getTime() - LAPSE_GRACE_MS) {
      await db
        .update(platformSubscriptions)
        .set({ status: 'expired', needsSync: true, updatedAt: now })
        .where(eq(platformSubscriptions.id, row.id));
      changed++;
    }
  }
  return changed;
}

/** The cron sweep (src/scheduled.ts): renews development subscriptions, flags lapsed processor ones (docs/billing.md). */
export const platformSubscriptionsSweep: Sweep = async (db, now) => {
  await sweepPlatformSubscriptions(db, now);
};
