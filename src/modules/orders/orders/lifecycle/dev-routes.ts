// The development simulator: POST /_dev/orders/{id}/events applies one platform event to one order.
// Development only (docs/order-lifecycle.md, "Development simulator"): when config.devSimulator is
// false (DEV_SIMULATOR is not "true"; production refuses it in readConfig) devSimulatorOnly, mounted on /_dev/* in
// src/app.ts, answers exactly the generic 404 of an unknown route, so the route does not exist. Registered with plain Hono
// methods: it is not an API operation and is not in the OpenAPI document.
import { Hono } from 'hono';
import type { AppEnv } from '../../../../platform/context';
import { devSimulatorBody, devSimulatorKey } from '../../../../platform/http/dev-simulator';
import { ok } from '../../../../platform/http/envelope';
import { validationError } from '../../../../platform/http/error-handler';
import { notFound } from '../../../../platform/http/errors';
import { isUuid } from '../../../../platform/http/ids';
import { applyPlatformEvent } from './apply';
import { PLATFORM_EVENT } from './platform-events';
import { readLifecycleState } from './state';

export const devSimulatorRoutes = new Hono<AppEnv>().post('/_dev/orders/:id/events', async (c) => {
  const { db, now } = c.get('services');
  // A secret key of the order's clinic with the write scope; sandbox keys are refused as on /orders.
  const key = await devSimulatorKey(c, { sandbox: false });
  const parsed = PLATFORM_EVENT.safeParse(await devSimulatorBody(c));
  if (!parsed.success) throw validationError(parsed.error, 'json');

  const orderId = c.req.param('id');
  if (!isUuid(orderId)) throw notFound('Order');
  const at = now();
  const result = await db.transaction(async (tx) => {
    const applied = await applyPlatformEvent(tx, key.clinicId, orderId, parsed.data, { now: at });
    return { applied, state: await readLifecycleState(tx, key.clinicId, orderId) };
  });
  const event = {
    id: result.applied.orderEventId,
    eventType: result.applied.eventType,
    fromStatus: result.applied.fromStatus,
    toStatus: result.applied.toStatus,
    occurredAt: at.toISOString(),
  };
  return c.json(ok({ ...result.state!, event }, `Applied ${parsed.data.event}`), 200);
});
