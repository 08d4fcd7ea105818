import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { catalogItem } from './schemas';
import { listCatalog } from './service';

const tags = ['Products and catalog'];
const catalogBody = jsonContent(successBody(z.array(catalogItem)), 'The global products the clinic offers, by name');
// The catalog holds the clinic's offerings and prices, no patient data: on the AI-connector allowlist.
const catalogAccess = { auth: 'key', scope: 'read', aiConnector: true } as const;

const getCatalog = defineRoute(catalogAccess, {
  method: 'get',
  path: '/api/v1/catalog',
  operationId: 'getCatalog',
  tags,
  summary: "The clinic's catalog: global products offered through active tenant products",
  responses: { 200: catalogBody },
});

const getBrandCatalog = defineRoute(catalogAccess, {
  method: 'get',
  path: '/api/v1/brand/product-catalog',
  operationId: 'getBrandProductCatalog',
  tags,
  summary: 'Alias of GET /api/v1/catalog (identical body)',
  responses: { 200: catalogBody },
});

/** One handler for the catalog and its alias, so the bodies cannot drift apart. */
async function catalogHandler(c: Context<AppEnv>) {
  return c.json(ok(await listCatalog(handlerContext(c))), 200);
}

export const productCatalogRoutes = new OpenAPIHono<AppEnv>().openapi(getCatalog, catalogHandler).openapi(getBrandCatalog, catalogHandler);
