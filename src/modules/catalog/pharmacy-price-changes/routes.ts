import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { acknowledgedAlert, alertIdParam, alertList, listAlertsQuery } from './schemas';
import { acknowledgeAlert, listAlerts } from './service';

const tags = ['Pharmacy price-change alerts'];

const list = defineRoute(
  { auth: 'key', scope: 'read', aiConnector: true },
  {
    method: 'get',
    path: '/api/v1/pharmacy-price-changes/alerts',
    operationId: 'listPriceChangeAlerts',
    tags,
    summary: 'Pharmacy price changes that affect the clinic (open ones by default)',
    request: { query: listAlertsQuery },
    responses: { 200: jsonContent(successBody(alertList), 'data { count, alerts }, newest first') },
  },
);

const acknowledge = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/pharmacy-price-changes/alerts/{alertId}/acknowledge',
    operationId: 'acknowledgePriceChangeAlert',
    tags,
    summary: 'Acknowledge a price-change alert (idempotent)',
    request: { params: alertIdParam },
    responses: { 200: jsonContent(successBody(acknowledgedAlert), 'data { id, status }') },
  },
);

export const priceAlertRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    return c.json(ok(await listAlerts(handlerContext(c), c.req.valid('query'))), 200);
  })
  .openapi(acknowledge, async (c) => {
    const result = await acknowledgeAlert(handlerContext(c), c.req.valid('param').alertId);
    return c.json(ok(result, 'Alert acknowledged'), 200);
  });
