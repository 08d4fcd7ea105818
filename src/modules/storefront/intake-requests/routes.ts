import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { createIntakeRequestBody, intakeRequest } from './schemas';
import { createIntakeRequest, listIntakeRequests } from './service';

const tags = ['Intake requests'];

const list = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/intake-requests',
    operationId: 'listIntakeRequests',
    tags,
    summary: "List the clinic's requests for new intake forms, newest first",
    request: { query: pageQuery },
    responses: { 200: jsonContent(pagedBody(intakeRequest), 'Intake requests') },
  },
);

const create = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/intake-requests',
    operationId: 'createIntakeRequest',
    tags,
    summary: 'Ask the platform for an intake form for a treatment',
    description: 'Created pending, with requestedByUserId null (made with a key, not by a staff user). docs/forms-and-intake.md.',
    request: { body: jsonBody(createIntakeRequestBody) },
    responses: { 201: jsonContent(successBody(intakeRequest), 'Created') },
  },
);

export const intakeRequestRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listIntakeRequests(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(create, async (c) => {
    return c.json(ok(await createIntakeRequest(handlerContext(c), c.req.valid('json')), 'Intake request created'), 201);
  });
