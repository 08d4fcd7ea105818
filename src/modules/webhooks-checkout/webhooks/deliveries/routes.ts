import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { jsonBody, jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { pagedBody } from '../../../../platform/http/pagination';
import { enforceRateLimits } from '../../../../platform/http/rate-limits';
import { defineRoute } from '../../../../platform/http/route';
import { idParam } from '../../../../platform/values/ids';
import { devWebhookRoutes } from './dev-routes';
import { deliveryOptions, kickDeliveries } from './dispatcher-runs';
import { qstashCallbackRoutes } from './qstash-callback';
import { recoverDeliveries } from './recover';
import {
  deliveryParams,
  listDeliveriesQuery,
  recoverBody,
  recoverResult,
  testSendBody,
  testSendResult,
  webhookAttempt,
  webhookDelivery,
} from './schemas';
import { listAttempts, listDeliveries, replayDelivery } from './service';
import { sendTestDelivery, TEST_SEND_LIMIT, testableEndpoint } from './test-send';

const tags = ['Webhooks'];

const listWebhookDeliveries = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tags,
    summary:
      "List an endpoint's deliveries, newest first (status, attempts, timings, idempotency key); filter by status, event and creation time",
    request: { params: idParam(), query: listDeliveriesQuery },
    responses: { 200: jsonContent(pagedBody(webhookDelivery), 'Deliveries, newest first') },
  },
);

const replayWebhookDelivery = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/deliveries/{deliveryId}/replay',
    operationId: 'replayWebhookDelivery',
    tags,
    summary: 'Send a delivery again: a new pending delivery of the same event with the same idempotency key',
    request: { params: deliveryParams },
    responses: { 202: jsonContent(successBody(webhookDelivery), 'Accepted: the replay is queued') },
  },
);

const listWebhookDeliveryAttempts = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/webhooks/{id}/deliveries/{deliveryId}/attempts',
    operationId: 'listWebhookDeliveryAttempts',
    tags,
    summary: "Every attempt of a delivery, first to last: time, the receiver's status and answer (its first 1 KiB), duration, error",
    request: { params: deliveryParams },
    responses: { 200: jsonContent(successBody(z.array(webhookAttempt)), 'Attempts, first to last') },
  },
);

const sendWebhookTest = defineRoute(
  // Sandbox keys included (webhooks are not a sandbox-blocked area): a test send carries no real data.
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/test',
    operationId: 'sendWebhookTest',
    recordedValues: ['event'],
    tags,
    summary:
      'Send one signed example of an event now ("test": true in the body), recorded in the deliveries marked test; answers its outcome. Allowed on an endpoint that is off; changes neither isActive nor consecutiveFailures. At most 10 per endpoint per minute',
    request: { params: idParam(), body: jsonBody(testSendBody) },
    responses: {
      200: jsonContent(successBody(testSendResult), "Sent (or refused before sending): the test delivery and its attempt's outcome"),
    },
  },
);

const recoverWebhookDeliveries = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/recover',
    operationId: 'recoverWebhookDeliveries',
    recordedValues: ['since', 'until'],
    tags,
    summary:
      'Send again every event of a window (since, until) that the endpoint is subscribed to and has not received: one new delivery per event with its original idempotency key (the event id); calling it again queues nothing more',
    request: { params: idParam(), body: jsonBody(recoverBody) },
    responses: { 202: jsonContent(successBody(recoverResult), 'Accepted: the deliveries are queued') },
  },
);

export const webhookDeliveryRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listWebhookDeliveries, async (c) => {
    const { data, pagination } = await listDeliveries(handlerContext(c), c.req.valid('param').id, c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(replayWebhookDelivery, async (c) => {
    const ctx = handlerContext(c);
    const { id, deliveryId } = c.req.valid('param');
    const delivery = await replayDelivery(ctx, id, deliveryId);
    kickDeliveries(ctx);
    return c.json(ok(delivery, 'Replay queued'), 202);
  })
  .openapi(recoverWebhookDeliveries, async (c) => {
    const ctx = handlerContext(c);
    const result = await recoverDeliveries(ctx, c.req.valid('param').id, c.req.valid('json'));
    if (result.queued > 0) kickDeliveries(ctx);
    return c.json(ok(result, `${result.queued} deliveries queued`), 202);
  })
  .openapi(listWebhookDeliveryAttempts, async (c) => {
    const { id, deliveryId } = c.req.valid('param');
    return c.json(ok(await listAttempts(handlerContext(c), id, deliveryId)), 200);
  })
  .openapi(sendWebhookTest, async (c) => {
    const ctx = handlerContext(c);
    const endpoint = await testableEndpoint(ctx, c.req.valid('param').id);
    await enforceRateLimits(c, [TEST_SEND_LIMIT], `webhook-test:${ctx.clinicId}:${endpoint.id}`);
    const result = await sendTestDelivery(ctx, endpoint, c.req.valid('json').event, deliveryOptions(ctx));
    const message = result.attempt.error === null ? 'Test delivery succeeded' : `Test delivery failed (${result.attempt.error})`;
    return c.json(ok(result, message), 200);
  })
  // POST /_dev/webhooks/flush (development simulator only; not an API operation).
  .route('/', devWebhookRoutes)
  .route('/', qstashCallbackRoutes);
