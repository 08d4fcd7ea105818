// The development simulator: POST /_dev/orders/{id}/events applies one platform event to one order.
// Development only (docs/order-lifecycle.md, "Development simulator"): when config.devSimulator is
// false (DEV_SIMULATOR is not "true"; production refuses it in readConfig) devSimulatorOnly, mounted on /_dev/* in
// src/app.ts, answers exactly the generic 404 of an unknown route, so the route does not exist. Registered with plain Hono
// methods: it is not an API operation and is not in the OpenAPI document.
import { Hono } from 'hono';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { devSimulatorBody, devSimulatorKey } from '../../../../platform/http/dev-simulator';
import { ok } from '../../../../platform/http/envelope';
import { validationError } from '../../../../platform/http/error-handler';
import { platformRequestJson, verifyPlatformRequest } from '../../../../platform/http/platform-request';
import { PLATFORM_EVENT } from './platform-events';
import { simulatePlatformEvent } from './simulate';

export const devSimulatorRoutes = new Hono<AppEnv>().post('/_dev/orders/:id/events', async (c) => {
  // A secret key of the order's clinic with the write scope; sandbox keys are refused as on /orders.
  const key = await devSimulatorKey(c, { sandbox: false });
  const parsed = PLATFORM_EVENT.safeParse(await devSimulatorBody(c));
  if (!parsed.success) throw validationError(parsed.error, 'json');
  // Not behind the key gateway: the key the simulator checked is the caller the handler context is built for.
  c.set('apiKey', key);
  const state = await simulatePlatformEvent(handlerContext(c), c.req.param('id'), parsed.data);
  return c.json(ok(state, `Applied ${parsed.data.event}`), 200);
});

/**
 * POST /internal/platform/orders/{id}/events: the same operation for the platform itself, in every
 * environment, signed instead of keyed (src/platform/http/platform-request.ts, docs/webhooks.md).
 */
export const platformOrderEventRoutes = new Hono<AppEnv>().post('/internal/platform/orders/:id/events', async (c) => {
  const { ctx, body } = await verifyPlatformRequest(c);
  const parsed = PLATFORM_EVENT.safeParse(platformRequestJson(body));
  if (!parsed.success) throw validationError(parsed.error, 'json');
  const state = await simulatePlatformEvent(ctx, c.req.param('id'), parsed.data);
  return c.json(ok(state, `Applied ${parsed.data.event}`), 200);
});
