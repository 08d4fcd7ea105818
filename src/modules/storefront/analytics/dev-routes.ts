// The development simulator's intake (docs/analytics.md, "Intake events"): a patient starting an
// intake form, and moving through it. Plain Hono routes, not API operations and not in the OpenAPI
// document; like /_dev/orders/{id}/events (src/modules/orders/orders/lifecycle/dev-routes.ts) they exist only
// with DEV_SIMULATOR="true" (devSimulatorOnly on /_dev/* in src/app.ts answers the generic 404
// otherwise) and take a secret key of the clinic with the write scope.
import { type Context, Hono } from 'hono';
import { type AppEnv, type KeyPrincipal, systemContext } from '../../../platform/context';
import { devSimulatorBody, devSimulatorKey } from '../../../platform/http/dev-simulator';
import { ok } from '../../../platform/http/envelope';
import { validationError } from '../../../platform/http/error-handler';
import { platformRequestJson, verifyPlatformRequest } from '../../../platform/http/platform-request';
import { advanceFormSession, advanceSessionBody, startFormSession, startSessionBody } from './intake-events';

/**
 * The simulator acts as the platform's patient-facing intake would (a system actor) for the clinic of
 * the key it checked itself: these routes have no key guard, so handlerContext(c) has no caller.
 */
const simulatorContext = (c: Context<AppEnv>, key: KeyPrincipal) =>
  systemContext(c.get('services'), key.clinicId, 'dev-simulator', key.isSandbox);

export const intakeDevRoutes = new Hono<AppEnv>()
  .post('/_dev/intake/sessions', async (c) => {
    const key = await devSimulatorKey(c);
    const parsed = startSessionBody.safeParse(await devSimulatorBody(c));
    if (!parsed.success) throw validationError(parsed.error, 'json');
    const { session, outboxEventId } = await startFormSession(simulatorContext(c, key), parsed.data);
    return c.json(ok({ ...session, event: { id: outboxEventId, eventType: 'intake.started' } }, 'Form session started'), 201);
  })
  .post('/_dev/intake/sessions/:id/progress', async (c) => {
    const key = await devSimulatorKey(c);
    const parsed = advanceSessionBody.safeParse(await devSimulatorBody(c));
    if (!parsed.success) throw validationError(parsed.error, 'json');
    const session = await advanceFormSession(simulatorContext(c, key), c.req.param('id'), parsed.data);
    return c.json(ok(session, session.status === 'completed' ? 'Form session completed' : 'Form session moved on'), 200);
  });

/**
 * The same two operations for the platform's patient-facing intake itself, in every environment,
 * signed instead of keyed (src/platform/http/platform-request.ts, docs/webhooks.md):
 * POST /internal/platform/intake/sessions and POST /internal/platform/intake/sessions/{id}/progress.
 */
export const intakePlatformRoutes = new Hono<AppEnv>()
  .post('/internal/platform/intake/sessions', async (c) => {
    const { ctx, body } = await verifyPlatformRequest(c);
    const parsed = startSessionBody.safeParse(platformRequestJson(body));
    if (!parsed.success) throw validationError(parsed.error, 'json');
    const { session, outboxEventId } = await startFormSession(ctx, parsed.data);
    return c.json(ok({ ...session, event: { id: outboxEventId, eventType: 'intake.started' } }, 'Form session started'), 201);
  })
  .post('/internal/platform/intake/sessions/:id/progress', async (c) => {
    const { ctx, body } = await verifyPlatformRequest(c);
    const parsed = advanceSessionBody.safeParse(platformRequestJson(body));
    if (!parsed.success) throw validationError(parsed.error, 'json');
    const session = await advanceFormSession(ctx, c.req.param('id'), parsed.data);
    return c.json(ok(session, session.status === 'completed' ? 'Form session completed' : 'Form session moved on'), 200);
  });
