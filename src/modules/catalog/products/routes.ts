import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pageQuery } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { pharmacyCoverageRoutes } from './pharmacy-coverages/routes';
import { createProductBody, product, productsPage, type UpdateProductBody, updateProductBody } from './schemas';
import { createProduct, getProduct, listProducts, listProductsPage, updateProduct } from './service';

const tags = ['Products and catalog'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/products',
  operationId: 'listProducts',
  tags,
  summary: "The clinic's own products (newest first) then the shared platform products (by name), not paged",
  responses: { 200: jsonContent(successBody(z.array(product)), 'Products') },
});

const create = defineRoute(write, {
  method: 'post',
  path: '/api/v1/products',
  operationId: 'createProduct',
  recordedValues: ['pharmacyPrice', 'isActive'],
  tags,
  summary: "Create one of the clinic's own products (slug generated from the name, unique within the clinic)",
  request: { body: jsonBody(createProductBody) },
  responses: { 201: jsonContent(successBody(product), 'Created') },
});

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/products/{id}',
  operationId: 'getProduct',
  tags,
  summary: 'A product of the clinic or a shared platform product, by id',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(product), 'The product') },
});

const updateResponses = {
  200: jsonContent(successBody(product), 'Updated'),
  409: jsonContent(errorBody, 'CONFLICT: another product of the clinic has this slug'),
};

const update = defineRoute(write, {
  method: 'put',
  path: '/api/v1/products/{id}',
  operationId: 'updateProduct',
  recordedValues: ['pharmacyPrice', 'isActive'],
  tags,
  summary: "Change fields of one of the clinic's own products (a platform product answers 404)",
  request: { params: idParam(), body: jsonBody(updateProductBody) },
  responses: updateResponses,
});

const managementList = defineRoute(read, {
  method: 'get',
  path: '/api/v1/products-management',
  operationId: 'listProductsManagement',
  tags,
  summary: 'The products of GET /api/v1/products, paged; pagination is inside data',
  request: { query: pageQuery },
  responses: { 200: jsonContent(successBody(productsPage), 'A page of products') },
});

const managementGet = defineRoute(read, {
  method: 'get',
  path: '/api/v1/products-management/{id}',
  operationId: 'getProductManagement',
  tags,
  summary: 'Alias of GET /api/v1/products/{id}',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(product), 'The product') },
});

const managementUpdate = defineRoute(write, {
  method: 'put',
  path: '/api/v1/products-management/{id}',
  operationId: 'updateProductManagement',
  recordedValues: ['pharmacyPrice', 'isActive'],
  tags,
  summary: 'Alias of PUT /api/v1/products/{id}',
  request: { params: idParam(), body: jsonBody(updateProductBody) },
  responses: updateResponses,
});

/** One handler per operation pair, shared by the path and its alias. */
async function readOne(c: Context<AppEnv>, id: string) {
  return c.json(ok(await getProduct(handlerContext(c), id)), 200);
}

async function writeOne(c: Context<AppEnv>, id: string, body: UpdateProductBody) {
  return c.json(ok(await updateProduct(handlerContext(c), id, body), 'Product updated'), 200);
}

const crudRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => c.json(ok(await listProducts(handlerContext(c))), 200))
  .openapi(create, async (c) => {
    const created = await createProduct(handlerContext(c), c.req.valid('json'));
    return c.json(ok(created, 'Product created'), 201);
  })
  .openapi(get, (c) => readOne(c, c.req.valid('param').id))
  .openapi(update, (c) => writeOne(c, c.req.valid('param').id, c.req.valid('json')))
  .openapi(managementList, async (c) => {
    const page = await listProductsPage(handlerContext(c), c.req.valid('query'));
    return c.json(ok(page), 200);
  })
  .openapi(managementGet, (c) => readOne(c, c.req.valid('param').id))
  .openapi(managementUpdate, (c) => writeOne(c, c.req.valid('param').id, c.req.valid('json')));

/** The products area: products, products-management, catalog, coverages, tenant products. */
export const productRoutes = new OpenAPIHono<AppEnv>().route('/', crudRoutes).route('/', pharmacyCoverageRoutes);
