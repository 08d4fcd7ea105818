import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { cancelTeleformRemovalBody, listTeleformRemovalsQuery, teleformRemoval } from './schemas';
import { cancelTeleformRemoval, listTeleformRemovals } from './service';

const tags = ['Teleform removals'];

const list = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/teleform-removals',
    operationId: 'listTeleformRemovals',
    tags,
    summary: "List the scheduled, completed and cancelled removals of the clinic's intake forms, newest first",
    request: { query: listTeleformRemovalsQuery },
    responses: { 200: jsonContent(pagedBody(teleformRemoval), 'Teleform removals') },
  },
);

const cancel = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/teleform-removals/{id}/cancel',
    operationId: 'cancelTeleformRemoval',
    tags,
    summary: 'Cancel a scheduled removal (the form stays on the storefront)',
    description:
      'reason is required (400 when missing or blank). Only a scheduled removal can be cancelled: a cancelled or completed one answers 409. docs/forms-and-intake.md.',
    request: { params: idParam(), body: jsonBody(cancelTeleformRemovalBody) },
    responses: {
      200: jsonContent(successBody(teleformRemoval), 'Cancelled'),
      409: jsonContent(errorBody, 'CONFLICT: the removal is already cancelled or completed'),
    },
  },
);

export const teleformRemovalRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listTeleformRemovals(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(cancel, async (c) => {
    const cancelled = await cancelTeleformRemoval(handlerContext(c), c.req.valid('param').id, c.req.valid('json').reason);
    return c.json(ok(cancelled, 'Teleform removal cancelled'), 200);
  });
