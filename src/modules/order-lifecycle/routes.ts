// The development simulator: POST /_dev/orders/{id}/events applies one platform event to one order.
// Development only (docs/order-lifecycle.md, "Development simulator"): when config.devSimulator is
// false (DEV_SIMULATOR is not "true"; production never sets it) the first middleware answers exactly
// the generic 404 of an unknown route, so the route does not exist. Registered with plain Hono
// methods: it is not an API operation and is not in the OpenAPI document.
import { Hono } from 'hono';
import type { AppEnv } from '../../platform/context';
import { findKeyPrincipal } from '../../platform/auth/key-auth';
import { onNotFound, validationError } from '../../platform/http/error-handler';
import { ok } from '../../platform/http/envelope';
import { ApiError, notFound, unauthorized } from '../../platform/http/errors';
import { isUuid } from '../../platform/http/ids';
import { checkKeyAccess } from '../../platform/http/route';
import { applyPlatformEvent } from './apply';
import { PLATFORM_EVENT } from './events';
import { readLifecycleState } from './state';

export const devSimulatorRoutes = new Hono<AppEnv>()
  .use('/_dev/*', async (c, next) => {
    if (!c.get('services').config.devSimulator) return onNotFound(c);
    await next();
  })
  .post('/_dev/orders/:id/events', async (c) => {
    const { db, now } = c.get('services');
    // A secret key of the order's clinic with the write scope; sandbox keys are refused as on /orders.
    const key = await findKeyPrincipal(db, c.req.header('x-api-key'), now());
    if (!key) throw unauthorized();
    checkKeyAccess(key, { auth: 'key', scope: 'write', sandbox: false }, c.req.path);

    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new ApiError(400, 'INVALID_JSON', 'Request body is not valid JSON');
    }
    const parsed = PLATFORM_EVENT.safeParse(body);
    if (!parsed.success) throw validationError(parsed.error, 'json');

    const orderId = c.req.param('id');
    if (!isUuid(orderId)) throw notFound('Order');
    const at = now();
    const result = await db.transaction(async (tx) => {
      const applied = await applyPlatformEvent(tx, key.clinicId, orderId, parsed.data, { now: at });
      return { applied, state: await readLifecycleState(tx, key.clinicId, orderId) };
    });
    const event = { id: result.applied.orderEventId, eventType: result.applied.eventType, fromStatus: result.applied.fromStatus, toStatus: result.applied.toStatus, occurredAt: at.toISOString() };
    return c.json(ok({ ...result.state!, event }, `Applied ${parsed.data.event}`), 200);
  });
