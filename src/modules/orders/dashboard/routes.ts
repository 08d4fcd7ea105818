import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import {
  recentActivity as activitySchema,
  revenueChart as chartSchema,
  earningsReport as earningsSchema,
  metrics as metricsSchema,
  overviewQuery,
  overview as overviewSchema,
  projectedRevenueQuery,
  projectedRevenue as projectedSchema,
  recentActivityQuery,
} from './schemas';
import { dashboardMetrics, dashboardOverview, earningsReport, projectedRevenue, recentActivity, revenueChart } from './service';
import { seriesQuery, windowQuery } from './window';

// Dashboard reads (docs/dashboard.md). The clinic is always the key's: a clinicId query parameter is
// accepted and ignored. Each read is one SQL statement after the key lookup.

const tags = ['Dashboard and analytics'];
const read = { auth: 'key', scope: 'read' } as const;
/** Aggregates without any order, patient or medication: on the AI-connector allowlist (docs/api-keys.md). */
const aggregate = { ...read, aiConnector: true } as const;

const overview = defineRoute(aggregate, {
  method: 'get',
  path: '/api/v1/dashboard/overview',
  operationId: 'getDashboardOverview',
  tags,
  summary: 'Top-line figures: revenue, orders, patients, balance and pending actions',
  request: { query: overviewQuery },
  responses: { 200: jsonContent(successBody(overviewSchema), 'The overview') },
});

const metrics = defineRoute(aggregate, {
  method: 'get',
  path: '/api/v1/dashboard/metrics',
  operationId: 'getDashboardMetrics',
  tags,
  summary: 'Metric tiles (orders, revenue, patients) for a window, with the change from the previous window',
  request: { query: windowQuery },
  responses: { 200: jsonContent(successBody(metricsSchema), 'The tiles (default window: the last 30 days)') },
});

const earnings = defineRoute(aggregate, {
  method: 'get',
  path: '/api/v1/dashboard/earnings-report',
  operationId: 'getDashboardEarningsReport',
  tags,
  summary: 'Earnings from the ledger over a window: gross, fees, refunds, disputes, net and payouts',
  request: { query: windowQuery },
  responses: { 200: jsonContent(successBody(earningsSchema), 'The report (default window: the last 30 days)') },
});

const activity = defineRoute(read, {
  method: 'get',
  path: '/api/v1/dashboard/recent-activity',
  operationId: 'listDashboardRecentActivity',
  tags,
  summary: 'The newest order events, payments, refunds and payouts (ids, types, amounts and times; no patient data)',
  request: { query: recentActivityQuery },
  responses: { 200: jsonContent(successBody(activitySchema), 'The feed, newest first') },
});

const chart = defineRoute(aggregate, {
  method: 'get',
  path: '/api/v1/dashboard/revenue-chart',
  operationId: 'getDashboardRevenueChart',
  tags,
  summary: 'Revenue as a time series of day, week or month buckets over a window',
  request: { query: seriesQuery },
  responses: { 200: jsonContent(successBody(chartSchema), 'The series (default window: the last 30 days)') },
});

const projected = defineRoute(aggregate, {
  method: 'get',
  path: '/api/v1/dashboard/projected-revenue',
  operationId: 'getDashboardProjectedRevenue',
  tags,
  summary: 'Expected charges of the active enrollments over the coming calendar months',
  request: { query: projectedRevenueQuery },
  responses: { 200: jsonContent(successBody(projectedSchema), 'The projection') },
});

export const dashboardRoutes = new OpenAPIHono<AppEnv>()
  .openapi(overview, async (c) => {
    return c.json(ok(await dashboardOverview(handlerContext(c))), 200);
  })
  .openapi(metrics, async (c) => {
    return c.json(ok(await dashboardMetrics(handlerContext(c), c.req.valid('query'))), 200);
  })
  .openapi(earnings, async (c) => {
    return c.json(ok(await earningsReport(handlerContext(c), c.req.valid('query'))), 200);
  })
  .openapi(activity, async (c) => {
    return c.json(ok(await recentActivity(handlerContext(c), c.req.valid('query').limit)), 200);
  })
  .openapi(chart, async (c) => {
    return c.json(ok(await revenueChart(handlerContext(c), c.req.valid('query'))), 200);
  })
  .openapi(projected, async (c) => {
    return c.json(ok(await projectedRevenue(handlerContext(c), c.req.valid('query').months)), 200);
  });
