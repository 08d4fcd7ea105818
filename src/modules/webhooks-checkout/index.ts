// Webhooks and checkout (spec: "Webhooks", "Checkout sessions", "Events"): endpoints and their signing
// secrets, delivery of the outbox's events (attempts, retries, QStash), and checkout sessions.
import type { Sweep } from '../../platform/sweep';
import { eventRetention } from './events/retention';
import { runScheduledDeliveries } from './webhooks/deliveries/dispatcher-runs';
import { testDeliveryRetention } from './webhooks/deliveries/test-send';

/** The area's routes, imported on its first request (docs/architecture.md, "Startup"). */
export const loadRoutes = () => import('./routes');

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
