import { lt, sql } from 'drizzle-orm';
import { requestLogs } from '../../drizzle/schema';
import { configFor, type AppConfig, type Env } from '../config/index';
import { abandonStaleFormSessionsSweep } from '../modules/storefront/analytics/intake-events';
import { platformSubscriptionsSweep } from '../modules/organization/billing/sweeps';
import { sequenceSweep } from '../modules/crm/sequences/runner';
import { expireTeamInvitations } from '../modules/organization/team/sweeps';
import { teleformRemovalSweep } from '../modules/storefront/teleform-removals/service';
import { runScheduledDeliveries } from '../modules/webhooks-checkout/webhooks/deliveries/dispatchers';
import { deliverQueuedMessagesSweep } from './providers/messaging';
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
  platformSubscriptionsSweep, // renew development subscriptions, flag lapsed processor ones (docs/billing.md)
  sequenceSweep, // CRM sequences: enroll by trigger, run due steps (docs/crm-sequences.md)
  deliverQueuedMessagesSweep, // after the sequences: queued email/SMS go to the providers (docs/messaging.md)
  expireTeamInvitations, // pending invitations past expiresAt become expired (docs/team.md)
  teleformRemovalSweep, // due scheduled removals complete and deactivate their form (docs/forms-and-intake.md)
  abandonStaleFormSessionsSweep, // intake sessions idle 24 h: abandoned + intake.abandoned (docs/analytics.md)
  // Last, so events recorded by the sweeps above go out in the same run.
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
