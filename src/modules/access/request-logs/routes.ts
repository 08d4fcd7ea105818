import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { listRequestLogsQuery, requestIdParam, requestLog } from './schemas';
import { getRequestLog, listRequestLogs } from './service';

const tags = ['Auth and key management'];
const read = { auth: 'key', scope: 'read' } as const;

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/request-logs',
  operationId: 'listRequestLogs',
  tags,
  summary:
    "The clinic's requests of the last 30 days, newest first (filters: status code or class, method, route, apiKeyId, createdGte, createdLte)",
  description:
    "Every request made with one of the clinic's keys, as the API answered it. Never a body, a query string or a header value that can carry patient data or a secret. " +
    'Rows are written in batches after the answer: a request shows up within about a second. docs/request-logs.md.',
  request: { query: listRequestLogsQuery },
  responses: { 200: jsonContent(pagedBody(requestLog), 'Request logs') },
});

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/request-logs/{requestId}',
  operationId: 'getRequestLog',
  tags,
  summary: 'One request of the clinic by its request id (X-Request-Id); the newest when a client sent the same id twice',
  request: { params: requestIdParam },
  responses: { 200: jsonContent(successBody(requestLog), 'The request') },
});

export const requestLogRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const page = await listRequestLogs(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(page.data), pagination: page.pagination }, 200);
  })
  .openapi(get, async (c) => c.json(ok(await getRequestLog(handlerContext(c), c.req.valid('param').requestId)), 200));
