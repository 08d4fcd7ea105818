import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { needsAttention, orderStats, orderSummary } from './reports';
import {
  labStatus,
  listOrdersQuery,
  needsAttention as needsAttentionBody,
  orderDetail,
  orderEvents,
  orderListItem,
  orderStats as orderStatsBody,
  orderSummary as orderSummaryBody,
  visitStatus,
  windowQuery,
} from './schemas';
import { getOrder, getOrderEvents, listOrders } from './service';
import { getLabStatus, getVisitStatus } from './status';

// GET /api/v1/orders and its sub-resources. Static paths (stats, summary, needs-attention) are
// registered before /orders/{id}. Orders are sandbox-blocked by their path (route.ts).

const tags = ['Orders'];
const read = { auth: 'key', scope: 'read' } as const;

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/orders',
  operationId: 'listOrders',
  tags,
  summary: "The clinic's orders, newest first, each with its fee breakdown",
  request: { query: listOrdersQuery },
  responses: {
    200: jsonContent(pagedBody(orderListItem), 'A page of orders', {
      data: [{ status: 'delivered', shippedAt: '2026-03-05T16:20:00.000Z', deliveredAt: '2026-03-07T11:02:00.000Z' }],
    }),
  },
});

const stats = defineRoute(
  { ...read, aiConnector: true },
  {
    method: 'get',
    path: '/api/v1/orders/stats',
    operationId: 'getOrderStats',
    tags,
    summary: 'Order and earnings totals over a window of order creation',
    request: { query: windowQuery },
    responses: { 200: jsonContent(successBody(orderStatsBody), 'Totals') },
  },
);

const summary = defineRoute(
  { ...read, aiConnector: true },
  {
    method: 'get',
    path: '/api/v1/orders/summary',
    operationId: 'getOrdersSummary',
    tags,
    summary: 'Anonymous counts and sums of orders (no order, date, patient or medication)',
    request: { query: windowQuery },
    responses: { 200: jsonContent(successBody(orderSummaryBody), 'The summary') },
  },
);

const attention = defineRoute(read, {
  method: 'get',
  path: '/api/v1/orders/needs-attention',
  operationId: 'listOrdersNeedingAttention',
  tags,
  summary: 'Orders whose latest payment failed',
  responses: { 200: jsonContent(successBody(needsAttentionBody), 'The failed-payment queue') },
});

const detail = defineRoute(
  { ...read, patientData: { targetType: 'order' } },
  {
    method: 'get',
    path: '/api/v1/orders/{id}',
    operationId: 'getOrder',
    tags,
    summary: 'One order with its patient, items, latest payment, address and shipments',
    request: { params: idParam() },
    responses: {
      200: jsonContent(successBody(orderDetail), 'The order', {
        data: { status: 'delivered', shippedAt: '2026-03-05T16:20:00.000Z', deliveredAt: '2026-03-07T11:02:00.000Z' },
      }),
    },
  },
);

const events = defineRoute(read, {
  method: 'get',
  path: '/api/v1/orders/{id}/events',
  operationId: 'listOrderEvents',
  tags,
  summary: "The order's history, oldest first",
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(orderEvents), 'Events') },
});

const lab = defineRoute(read, {
  method: 'get',
  path: '/api/v1/orders/{id}/lab-status',
  operationId: 'getOrderLabStatus',
  tags,
  summary: "Where the order's lab leg is (no result content)",
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(labStatus), 'Lab status') },
});

const visit = defineRoute(read, {
  method: 'get',
  path: '/api/v1/orders/{id}/visit-status',
  operationId: 'getOrderVisitStatus',
  tags,
  summary: "The order's visit status",
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(visitStatus), 'Visit status') },
});

export const orderRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listOrders(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(stats, async (c) => c.json(ok(await orderStats(handlerContext(c), c.req.valid('query'))), 200))
  .openapi(summary, async (c) => c.json(ok(await orderSummary(handlerContext(c), c.req.valid('query'))), 200))
  .openapi(attention, async (c) => c.json(ok(await needsAttention(handlerContext(c))), 200))
  .openapi(detail, async (c) => c.json(ok(await getOrder(handlerContext(c), c.req.valid('param').id)), 200))
  .openapi(events, async (c) => c.json(ok(await getOrderEvents(handlerContext(c), c.req.valid('param').id)), 200))
  .openapi(lab, async (c) => c.json(ok(await getLabStatus(handlerContext(c), c.req.valid('param').id)), 200))
  .openapi(visit, async (c) => c.json(ok(await getVisitStatus(handlerContext(c), c.req.valid('param').id)), 200));
