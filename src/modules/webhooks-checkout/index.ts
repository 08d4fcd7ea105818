// Webhooks and checkout (spec: "Webhooks", "Checkout sessions", "Events"): endpoints and their signing
// secrets, delivery of the outbox's events (attempts, retries, QStash), and checkout sessions.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import type { Sweep } from '../../platform/sweep';
import { checkoutRoutes } from './checkout/routes';
import { eventRetention } from './events/retention';
import { eventRoutes } from './events/routes';
import { runScheduledDeliveries } from './webhooks/deliveries/dispatcher-runs';
import { webhookDeliveryRoutes } from './webhooks/deliveries/routes';
import { testDeliveryRetention } from './webhooks/deliveries/test-send';
import { webhookRoutes } from './webhooks/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', webhookRoutes)
  .route('/', webhookDeliveryRoutes)
  .route('/', eventRoutes)
  .route('/', checkoutRoutes);

/**
 * Event retention (30 days, docs/webhooks.md "Events API"), test deliveries past their 30 days, then
 * webhook deliveries (docs/webhooks.md, "Who sends"); src/scheduled.ts runs them last.
 */
export const sweeps: Record<string, Sweep> = { eventRetention, testDeliveryRetention, runScheduledDeliveries };

// The platform's entry point when a patient's payment for a checkout succeeded (not an API operation).
export { completePaidSession } from './checkout/complete-session';
// What the app attaches around every request.
export { applyCheckoutCors } from './checkout/cors';
export { drainLocalDispatcher, kickDeliveries } from './webhooks/deliveries/dispatcher-runs';
// The drain measurement (scripts/bench/webhook-drain.ts): a recover as the route makes it, an endpoint's secret.
export { recoverDeliveries } from './webhooks/deliveries/recover';
export { registerWebhookEvents } from './webhooks/openapi';
export { insertSigningSecret } from './webhooks/secrets';
