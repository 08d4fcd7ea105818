import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { goLiveBody, goLiveStatus } from './schemas';
import { requestGoLive } from './service';

const goLive = defineRoute(
  { auth: 'key', scope: 'write', sandbox: 'only' },
  {
    method: 'post',
    path: '/api/v1/sandbox/go-live',
    operationId: 'requestGoLive',
    tags: ['Sandbox'],
    summary: 'Ask to turn the sandbox clinic into a live one; the signer is invited as admin to complete onboarding',
    description:
      'Needs a sandbox key (svc_test_) within the 30-day sandbox window (after it the key answers 401). ' +
      'A live key answers 403 SANDBOX_KEY_REQUIRED. A request while one is pending answers the same 202 without a second invitation. ' +
      'The clinic becomes live when the signer completes onboarding (docs/sandbox.md, docs/onboarding.md).',
    request: { body: jsonBody(goLiveBody) },
    responses: {
      202: jsonContent(successBody(goLiveStatus), 'Requested (or already requested)'),
      403: jsonContent(errorBody, 'SANDBOX_KEY_REQUIRED: a live key; also KEY_KIND_NOT_ALLOWED, INSUFFICIENT_SCOPE'),
      409: jsonContent(errorBody, 'CONFLICT: the clinic is already live'),
    },
  },
);

export const sandboxRoutes = new OpenAPIHono<AppEnv>().openapi(goLive, async (c) => {
  const result = await requestGoLive(handlerContext(c), c.req.valid('json'));
  return c.json(ok(result, 'Go-live requested'), 202);
});
