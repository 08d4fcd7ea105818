// POST /_dev/webhooks/flush (development simulator only, like /_dev/orders/{id}/events in
// src/modules/orders/orders/lifecycle/dev-routes.ts): attempts every pending delivery of the key's clinic now,
// ignoring the retry schedule. Plain Hono, not in the OpenAPI document; without DEV_SIMULATOR="true"
// it answers the generic 404 of an unknown route (devSimulatorOnly, mounted in src/app.ts).
import { Hono } from 'hono';
import { type AppEnv, systemContext } from '../../../../platform/context';
import { devSimulatorKey } from '../../../../platform/http/dev-simulator';
import { ok } from '../../../../platform/http/envelope';
import { flushClinicDeliveries } from './deliver';
import { deliveryOptions } from './dispatcher-runs';

export const devWebhookRoutes = new Hono<AppEnv>().post('/_dev/webhooks/flush', async (c) => {
  const key = await devSimulatorKey(c);
  // The simulator's key is checked by devSimulatorKey, not the route guard (no apiKey variable is set),
  // so the context is the platform acting for the key's clinic.
  const ctx = systemContext(c.get('services'), key.clinicId, 'dev-simulator', key.isSandbox);
  const { attempted, succeeded, failed } = await flushClinicDeliveries(ctx, deliveryOptions(ctx));
  return c.json(ok({ attempted, succeeded, failed }, `Attempted ${attempted} deliveries`), 200);
});
