import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, NO_STORE_HEADERS, ok, secretJsonContent, successBody } from '../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { kickDeliveries } from './deliveries/dispatcher-runs';
import {
  createdWebhook,
  createWebhookBody,
  DEFAULT_GRACE_PERIOD_SECONDS,
  deletedWebhook,
  rotatedSecret,
  rotateSecretBody,
  updateWebhookBody,
  webhookEndpoint,
} from './schemas';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from './service';

const tags = ['Webhooks'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;

/** Create and update resolve the URL's name (docs/webhooks.md, "What stops a webhook URL reaching our network"). */
const resolverUnavailable = jsonContent(
  errorBody,
  "DNS_RESOLVER_UNAVAILABLE (Retry-After: 5): the URL's addresses could not be checked, or the database is unavailable; nothing was changed",
);

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/webhooks',
  operationId: 'listWebhooks',
  tags,
  summary: "List the clinic's webhook endpoints (never a secret), newest first",
  request: { query: pageQuery },
  responses: { 200: jsonContent(pagedBody(webhookEndpoint), 'Webhook endpoints (deleted ones are not listed)') },
});

const create = defineRoute(write, {
  method: 'post',
  path: '/api/v1/webhooks',
  operationId: 'createWebhook',
  recordedValues: ['events'],
  tags,
  summary: 'Register a webhook endpoint (its signing secret is returned once, in data.secret)',
  request: { body: jsonBody(createWebhookBody) },
  responses: {
    201: secretJsonContent(successBody(createdWebhook), 'Created (Cache-Control: no-store: the body holds the signing secret)'),
    409: jsonContent(errorBody, 'WEBHOOK_ENDPOINT_LIMIT_REACHED: the clinic already has 20 endpoints'),
    503: resolverUnavailable,
  },
});

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/webhooks/{id}',
  operationId: 'getWebhook',
  tags,
  summary: 'Get a webhook endpoint (never its secret)',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(webhookEndpoint), 'The endpoint') },
});

const update = defineRoute(write, {
  method: 'patch',
  path: '/api/v1/webhooks/{id}',
  operationId: 'updateWebhook',
  recordedValues: ['isActive', 'events'],
  tags,
  summary:
    'Change url or events, or turn the endpoint off or back on (isActive: true resets consecutiveFailures; pending and held deliveries then go out)',
  request: { params: idParam(), body: jsonBody(updateWebhookBody) },
  responses: { 200: jsonContent(successBody(webhookEndpoint), 'Updated'), 503: resolverUnavailable },
});

const remove = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/webhooks/{id}',
  operationId: 'deleteWebhook',
  tags,
  summary: 'Delete a webhook endpoint (its pending deliveries stop)',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(deletedWebhook), 'Deleted') },
});

const rotate = defineRoute(write, {
  method: 'post',
  path: '/api/v1/webhooks/{id}/rotate-secret',
  operationId: 'rotateWebhookSecret',
  recordedValues: ['gracePeriodSeconds'],
  tags,
  summary: 'Replace the signing secret (the new one is returned once); the previous one keeps signing for the grace period',
  request: {
    params: idParam(),
    body: { content: { 'application/json': { schema: rotateSecretBody } }, required: false },
  },
  responses: {
    200: secretJsonContent(successBody(rotatedSecret), 'Rotated (Cache-Control: no-store: the body holds the new signing secret)'),
  },
});

export const webhookRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listWebhooks(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(create, async (c) => {
    const created = await createWebhook(handlerContext(c), c.req.valid('json'));
    return c.json(ok(created, 'Webhook endpoint created; store the secret now, it is not shown again'), 201, NO_STORE_HEADERS);
  })
  .openapi(get, async (c) => {
    const endpoint = await getWebhook(handlerContext(c), c.req.valid('param').id);
    return c.json(ok(endpoint), 200);
  })
  .openapi(update, async (c) => {
    const ctx = handlerContext(c);
    const body = c.req.valid('json');
    const endpoint = await updateWebhook(ctx, c.req.valid('param').id, body);
    // Turned on: what it holds and what waited is due now; send it without waiting for the cron.
    if (body.isActive === true) kickDeliveries(ctx);
    return c.json(ok(endpoint, 'Webhook endpoint updated'), 200);
  })
  .openapi(remove, async (c) => {
    const deleted = await deleteWebhook(handlerContext(c), c.req.valid('param').id);
    return c.json(ok(deleted, 'Webhook endpoint deleted'), 200);
  })
  .openapi(rotate, async (c) => {
    const grace = c.req.valid('json').gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
    const rotated = await rotateWebhookSecret(handlerContext(c), c.req.valid('param').id, grace);
    return c.json(ok(rotated, 'Signing secret rotated; store the new secret now, it is not shown again'), 200, NO_STORE_HEADERS);
  });
