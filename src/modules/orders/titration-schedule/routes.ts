import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok } from '../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { heldSchedule } from './schemas';
import { listHeldSchedules } from './service';

const listHeld = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/titration-schedule/fulfillment-held',
    operationId: 'listFulfillmentHeldTitrationSchedules',
    tags: ['Program templates and titration'],
    summary: "The clinic's titration schedules whose fulfilment waits for a revisit, longest held first",
    request: { query: pageQuery },
    responses: { 200: jsonContent(pagedBody(heldSchedule), 'A page of held schedules') },
  },
);

export const titrationScheduleRoutes = new OpenAPIHono<AppEnv>().openapi(listHeld, async (c) => {
  const { data, pagination } = await listHeldSchedules(handlerContext(c), c.req.valid('query'));
  return c.json({ ...ok(data), pagination }, 200);
});
