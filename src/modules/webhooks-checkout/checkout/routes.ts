import { OpenAPIHono } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { type AppEnv, handlerContext, systemContext } from '../../../platform/context';
import { devSimulatorBody, devSimulatorKey } from '../../../platform/http/dev-simulator';
import { errorBody, jsonBody, jsonContent, NO_STORE_HEADERS, ok, secretJsonContent, successBody } from '../../../platform/http/envelope';
import { validationError } from '../../../platform/http/error-handler';
import { platformRequestJson, verifyPlatformRequest } from '../../../platform/http/platform-request';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { completeSession } from './complete-session';
import { CHECKOUT_SESSIONS_PATH, checkoutPreflight } from './cors';
import { completeSessionBody, createdSession, createSessionBody, sessionRead } from './schemas';
import { createSession, getSession } from './service';

const tags = ['Checkout sessions'];

const created = secretJsonContent(successBody(createdSession), 'Created (Cache-Control: no-store: the body holds the session token)');

const createCheckoutSession = defineRoute(
  { auth: 'key', scope: 'write', publishable: true },
  {
    method: 'post',
    path: '/api/v1/checkout/sessions',
    operationId: 'createCheckoutSession',
    tags,
    summary: 'Create a checkout session for one program (the one call a publishable key may make; CORS-enabled)',
    description:
      'Browsers may call this operation directly (CORS: any origin; the preflight allows POST with x-api-key and content-type). The token is returned once. Sessions expire after 30 minutes.',
    request: { body: jsonBody(createSessionBody) },
    responses: {
      201: {
        ...created,
        headers: {
          ...created.headers,
          'Access-Control-Allow-Origin': {
            description: '*: browsers on any origin may read the answer (errors too).',
            schema: { type: 'string' as const, enum: ['*'] },
          },
        },
      },
      404: jsonContent(errorBody, "NOT_FOUND: the program is unknown, malformed, another clinic's, or not offered (not live and active)"),
    },
  },
);

const getCheckoutSession = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/checkout/sessions/{id}',
    operationId: 'getCheckoutSession',
    tags,
    summary: 'Read a checkout session: its status and, once completed, its order',
    request: { params: idParam() },
    responses: { 200: jsonContent(successBody(sessionRead), 'The session') },
  },
);

/**
 * POST /_dev/checkout/sessions/{id}/complete: the development simulator's patient checkout. Mounted
 * as /_dev/orders/... is (src/modules/orders/orders/lifecycle/dev-routes.ts): without DEV_SIMULATOR="true" it is
 * the generic 404 of an unknown route; a secret key of the session's clinic with the write scope;
 * not an API operation and not in the OpenAPI document.
 */
const checkoutDevRoutes = new Hono<AppEnv>().post('/_dev/checkout/sessions/:id/complete', async (c) => {
  const key = await devSimulatorKey(c, { sandbox: false });
  const parsed = completeSessionBody.safeParse(await devSimulatorBody(c, { optional: true }));
  if (!parsed.success) throw validationError(parsed.error, 'json');
  // The simulator plays the platform taking the patient's payment for the key's clinic.
  const ctx = systemContext(c.get('services'), key.clinicId, 'dev-simulator');
  const result = await completeSession(ctx, c.req.param('id'), parsed.data);
  return c.json(ok(result, 'Checkout session completed'), 200);
});

/** POST /internal/platform/checkout/sessions/{id}/complete: the platform's own completion, signed (docs/webhooks.md). */
const checkoutPlatformRoutes = new Hono<AppEnv>().post('/internal/platform/checkout/sessions/:id/complete', async (c) => {
  const { ctx, body } = await verifyPlatformRequest(c);
  const parsed = completeSessionBody.safeParse(platformRequestJson(body, { optional: true }));
  if (!parsed.success) throw validationError(parsed.error, 'json');
  const result = await completeSession(ctx, c.req.param('id'), parsed.data);
  return c.json(ok(result, 'Checkout session completed'), 200);
});

export const checkoutRoutes = new OpenAPIHono<AppEnv>();
// The CORS preflight (OPTIONS, no key: the gateway lets exactly this one through) answers here; it is
// a middleware, not an operation, so it stays out of the OpenAPI document and the route table.
checkoutRoutes.use(CHECKOUT_SESSIONS_PATH, checkoutPreflight);
checkoutRoutes
  .openapi(createCheckoutSession, async (c) => {
    const session = await createSession(handlerContext(c), c.req.valid('json'));
    return c.json(ok(session, 'Checkout session created; the token is not shown again'), 201, NO_STORE_HEADERS);
  })
  .openapi(getCheckoutSession, async (c) => {
    return c.json(ok(await getSession(handlerContext(c), c.req.valid('param').id)), 200);
  });
checkoutRoutes.route('/', checkoutDevRoutes);
checkoutRoutes.route('/', checkoutPlatformRoutes);
