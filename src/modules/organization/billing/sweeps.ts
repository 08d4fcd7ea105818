import type { Sweep } from '../../../platform/cron';
import { sweepPlatformSubscriptions } from './service';

/** For SWEEPS in src/platform/cron.ts: renews development subscriptions, flags lapsed processor ones (docs/billing.md). */
export const platformSubscriptionsSweep: Sweep = async (db, now) => {
  await sweepPlatformSubscriptions(db, now);
};
