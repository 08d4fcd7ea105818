import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { listEventsQuery, webhookEvent, webhookEventSummary } from './schemas';
import { getEvent, listEvents } from './service';

const tags = ['Webhooks'];
const read = { auth: 'key', scope: 'read' } as const;

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/events',
  operationId: 'listEvents',
  tags,
  summary: "List the clinic's events of the last 30 days, newest first (filter by type and creation time)",
  request: { query: listEventsQuery },
  responses: { 200: jsonContent(pagedBody(webhookEventSummary), 'Events, newest first') },
});

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/events/{id}',
  operationId: 'getEvent',
  tags,
  summary: 'One event as delivered, and per endpoint of the clinic whether it was delivered (kept 30 days)',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(webhookEvent), 'The event') },
});

export const eventRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listEvents(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(get, async (c) => {
    const event = await getEvent(handlerContext(c), c.req.valid('param').id);
    return c.json(ok(event), 200);
  });
