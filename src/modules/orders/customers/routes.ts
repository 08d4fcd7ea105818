import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { customer, listCustomersQuery } from './schemas';
import { listCustomers } from './service';

const list = defineRoute(
  { auth: 'key', scope: 'read', patientData: { targetType: 'customer' } },
  {
    method: 'get',
    path: '/api/v1/customers',
    operationId: 'listCustomers',
    tags: ['Customers'],
    summary: "The clinic's patients with their order count, revenue, categories and subscription, newest first",
    request: { query: listCustomersQuery },
    responses: { 200: jsonContent(pagedBody(customer), 'A page of customers') },
  },
);

export const customerRoutes = new OpenAPIHono<AppEnv>().openapi(list, async (c) => {
  const { data, pagination } = await listCustomers(handlerContext(c), c.req.valid('query'));
  return c.json({ ...ok(data), pagination }, 200);
});
