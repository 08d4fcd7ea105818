import type { Sweep } from '../../../platform/sweep';
import { sweepPlatformSubscriptions } from './service';

/** The cron sweep (src/scheduled.ts): renews development subscriptions, flags lapsed processor ones (docs/billing.md). */
export const platformSubscriptionsSweep: Sweep = async (db, now) => {
  await sweepPlatformSubscriptions(db, now);
};
