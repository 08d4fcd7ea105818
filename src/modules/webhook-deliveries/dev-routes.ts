// POST /_dev/webhooks/flush (development simulator only, like /_dev/orders/{id}/events in
// src/modules/order-lifecycle/routes.ts): attempts every pending delivery of the key's clinic now,
// ignoring the retry schedule. Plain Hono, not in the OpenAPI document; without DEV_SIMULATOR="true"
// it answers the generic 404 of an unknown route.
import { Hono } from 'hono';
import type { AppEnv } from '../../platform/context';
import { findKeyPrincipal } from '../../platform/auth/key-auth';
import { onNotFound } from '../../platform/http/error-handler';
import { ok } from '../../platform/http/envelope';
import { unauthorized } from '../../platform/http/errors';
import { checkKeyAccess } from '../../platform/http/route';
import { flushClinicDeliveries } from '../../platform/webhooks/deliver';
import { deliveryOptions } from './engine';

export const devWebhookRoutes = new Hono<AppEnv>()
  .use('/_dev/webhooks/*', async (c, next) => {
    if (!c.get('services').config.devSimulator) return onNotFound(c);
    await next();
  })
  .post('/_dev/webhooks/flush', async (c) => {
    const { db, now, config } = c.get('services');
    const key = await findKeyPrincipal(db, c.req.header('x-api-key'), now());
    if (!key) throw unauthorized();
    checkKeyAccess(key, { auth: 'key', scope: 'write' }, c.req.path);
    const { attempted, succeeded, failed } = await flushClinicDeliveries(db, key.clinicId, now(), deliveryOptions(config));
    return c.json(ok({ attempted, succeeded, failed }, `Attempted ${attempted} deliveries`), 200);
  });
