import type { AppConfig } from '../../env';
import type { Services } from '../../platform/context';
import type { Database } from '../../platform/db/client';
import { runDueDeliveries, type DeliveryOptions } from '../../platform/webhooks/deliver';
import { signingSecretsFor } from '../webhooks/secrets';

/** Deliveries one dispatcher run (cron sweep, post-request kick) attempts at most. */
export const DISPATCH_LIMIT = 200;

/** The delivery options of this deployment: secrets decrypted with WEBHOOK_SECRET_KEY, global fetch. */
export const deliveryOptions = (config: AppConfig): DeliveryOptions => ({ secrets: signingSecretsFor(config.webhookSecretKey) });

/** The local dispatcher's run: fan out the outbox, then attempt what is due. */
export const runLocalDispatcher = (db: Database, now: Date, config: AppConfig) => runDueDeliveries(db, now, DISPATCH_LIMIT, deliveryOptions(config));

/**
 * After a request that recorded events (or queued a replay), run the local dispatcher in
 * ctx.waitUntil. Development only: in production QStash carries deliveries, and tests drive the
 * dispatcher themselves with a simulated clock.
 */
export function kickDeliveries(services: Services): void {
  if (services.config.environment !== 'development') return;
  services.background(runLocalDispatcher(services.db, services.now(), services.config));
}
