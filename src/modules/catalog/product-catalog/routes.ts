import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pathId } from '../../../platform/http/ids';
import { defineRoute } from '../../../platform/http/route';
import { listCatalog, listDiscontinuedInUse, listPharmacyCoverages, listTenantProducts } from './service';
import { catalogItem, discontinuedInUse, pharmacyCoverage, tenantProduct } from '../products/schemas';

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

const coverages = defineRoute({ auth: 'key', scope: 'read' }, {
  method: 'get',
  path: '/api/v1/public/products/{productId}/pharmacy-coverages',
  operationId: 'listProductPharmacyCoverages',
  tags,
  summary: "Pharmacies filling a product (the clinic's own or a shared platform product), primary first",
  request: { params: z.object({ productId: pathId('productId') }) },
  responses: { 200: jsonContent(successBody(z.array(pharmacyCoverage)), 'Coverages') },
});

const tenantProducts = defineRoute({ auth: 'key', scope: 'read' }, {
  method: 'get',
  path: '/api/v1/tenant-products',
  operationId: 'listTenantProducts',
  tags,
  summary: "The clinic's offerings of global products: facilitation fees, prices, placeholder fees",
  responses: { 200: jsonContent(successBody(z.array(tenantProduct)), 'Tenant products, by product name') },
});

const discontinued = defineRoute({ auth: 'key', scope: 'read' }, {
  method: 'get',
  path: '/api/v1/global-products/discontinued-in-use',
  operationId: 'listDiscontinuedProductsInUse',
  tags,
  summary: "Discontinued global products still used by the clinic's programs (retired programs aside)",
  responses: { 200: jsonContent(successBody(z.array(discontinuedInUse)), 'Discontinued products and the programs using them') },
});

/** One handler for the catalog and its alias, so the bodies cannot drift apart. */
async function catalogHandler(c: Context<AppEnv>) {
  return c.json(ok(await listCatalog(c.get('services').db, c.get('apiKey').clinicId)), 200);
}

export const productCatalogRoutes = new OpenAPIHono<AppEnv>()
  .openapi(getCatalog, catalogHandler)
  .openapi(getBrandCatalog, catalogHandler)
  .openapi(coverages, async (c) => {
    const data = await listPharmacyCoverages(c.get('services').db, c.get('apiKey').clinicId, c.req.valid('param').productId);
    return c.json(ok(data), 200);
  })
  .openapi(tenantProducts, async (c) => c.json(ok(await listTenantProducts(c.get('services').db, c.get('apiKey').clinicId)), 200))
  .openapi(discontinued, async (c) =>
    c.json(ok(await listDiscontinuedInUse(c.get('services').db, c.get('apiKey').clinicId)), 200));
