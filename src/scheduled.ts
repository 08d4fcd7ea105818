// The cron composition root (wrangler.toml [triggers], every minute): every area's sweeps, in order,
// on one database for the run, each failure logged apart so one broken sweep never stops the others.
import { configFor, type Env } from './config';
import * as access from './modules/access';
import * as catalog from './modules/catalog';
import * as crm from './modules/crm';
import * as orders from './modules/orders';
import * as organization from './modules/organization';
import * as storefront from './modules/storefront';
import * as webhooksCheckout from './modules/webhooks-checkout';
import { openDatabase } from './platform/db/client';
import { idempotencyKeyRetention } from './platform/http/idempotency';
import { describeError, logLine } from './platform/log';
import { partitionMaintenance } from './platform/partitions';
import { providersFor } from './platform/providers';
import { deliverQueuedMessagesSweep } from './platform/providers/messaging';
import type { Sweep } from './platform/sweep';

/**
 * Every periodic job by name (the name its failures are logged under: a function's own name does not
 * survive minification), in the order they run (each area's sweeps are listed in its index.ts).
 */
export const SWEEPS: Record<string, Sweep> = {
  partitionMaintenance, // month partitions of request_logs and audit_events: made ahead, dropped past retention
  idempotencyKeyRetention, // Idempotency-Key answers older than 24 hours
  ...access.sweeps,
  ...catalog.sweeps,
  ...orders.sweeps,
  ...organization.sweeps,
  ...crm.sweeps,
  ...storefront.sweeps,
  // After every sweep that queues email or SMS (the CRM's sequences): queued messages go to the providers.
  deliverQueuedMessagesSweep,
  // Last, so events recorded by the sweeps above go out in the same run: with QStash, fan out and publish
  // what is due or overdue (the safety net); without it, the local dispatcher attempts what is due.
  ...webhooksCheckout.sweeps,
};

/** The Worker's `scheduled` handler: one database for the run, every sweep, failures logged apart. */
export async function runScheduled(env: Env): Promise<void> {
  const config = configFor(env);
  const { database: target } = config;
  const database = await openDatabase({ url: target.url, driver: target.driver });
  try {
    // Object.assign keeps the providers lazy: a run builds only what its sweeps use.
    const services = Object.assign(providersFor(config, env, database.db), { config });
    for (const [name, sweep] of Object.entries(SWEEPS)) {
      await sweep(database.db, new Date(), services).catch((error) =>
        logLine('error', 'scheduled sweep failed', { sweep: name, error: describeError(error) }),
      );
    }
  } finally {
    await database.close();
  }
}
