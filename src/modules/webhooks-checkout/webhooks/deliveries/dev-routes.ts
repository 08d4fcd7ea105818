// POST /_dev/webhooks/flush (development simulator only, like /_dev/orders/{id}/events in
// src/modules/orders/orders/lifecycle/dev-routes.ts): attempts every pending delivery of the key's clinic now,
// ignoring the retry schedule. Plain Hono, not in the OpenAPI document; without DEV_SIMULATOR="true"
// it answers the generic 404 of an unknown route (devSimulatorOnly, mounted in src/app.ts).
import { Hono } from 'hono';
import type { AppEnv } from '../../../../platform/context';
import { devSimulatorKey } from '../../../../platform/http/dev-simulator';
import { ok } from '../../../../platform/http/envelope';
import { flushClinicDeliveries } from './deliver';
import { deliveryOptions } from './dispatchers';

export const devWebhookRoutes = new Hono<AppEnv>().post('/_dev/webhooks/flush', async (c) => {
  const services = c.get('services');
  const key = await devSimulatorKey(c);
  const { attempted, succeeded, failed } = await flushClinicDeliveries(
    services.db,
    key.clinicId,
    services.now(),
    deliveryOptions(services),
  );
  return c.json(ok({ attempted, succeeded, failed }, `Attempted ${attempted} deliveries`), 200);
});
