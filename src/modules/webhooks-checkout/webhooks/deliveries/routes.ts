import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../../platform/http/pagination';
import { defineRoute } from '../../../../platform/http/route';
import { idParam } from '../../../../platform/values/ids';
import { devWebhookRoutes } from './dev-routes';
import { kickDeliveries } from './dispatcher-runs';
import { qstashCallbackRoutes } from './qstash-callback';
import { deliveryParams, webhookDelivery } from './schemas';
import { listDeliveries, replayDelivery } from './service';

const tags = ['Webhooks'];

const listWebhookDeliveries = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tags,
    summary: "List an endpoint's deliveries, newest first (status, attempts, timings, idempotency key)",
    request: { params: idParam(), query: pageQuery },
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
  // POST /_dev/webhooks/flush (development simulator only; not an API operation).
  .route('/', devWebhookRoutes)
  .route('/', qstashCallbackRoutes);
