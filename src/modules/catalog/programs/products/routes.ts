import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { jsonBody, jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { defineRoute } from '../../../../platform/http/route';
import { idParam } from '../../../../platform/values/ids';
import { programAndProductParams } from '../schemas';
import {
  activateBody,
  activationStatus as activationStatusSchema,
  poolProduct,
  pricingRead,
  productActivation,
  productVisibility,
  replaceProductsBody,
  visibilityBody,
  visibilityStatus as visibilityStatusSchema,
} from './schemas';
import {
  activateProduct,
  activationStatus,
  getPricing,
  globalProductPool,
  replaceProducts,
  setProductVisibility,
  visibilityStatus,
} from './service';

const tags = ['Programs'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;

const globalProducts = defineRoute(read, {
  method: 'get',
  path: '/api/v1/programs/{id}/global-products',
  operationId: 'listProgramGlobalProducts',
  tags,
  summary: 'The fee-adjusted pool of global products the program has or can add',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(z.array(poolProduct)), 'Global products, by name') },
});

const pricing = defineRoute(read, {
  method: 'get',
  path: '/api/v1/programs/{id}/products',
  operationId: 'getProgramPricing',
  tags,
  summary: "The program's products with their resolved prices (the pricing read)",
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(pricingRead), 'Pricing read') },
});

const replace = defineRoute(write, {
  method: 'put',
  path: '/api/v1/programs/{id}/products',
  operationId: 'replaceProgramProducts',
  recordedValues: ['products'],
  tags,
  summary: 'Replace the product set (global product ids, in display order); products that stay keep their fees',
  request: { params: idParam(), body: jsonBody(replaceProductsBody) },
  responses: { 200: jsonContent(successBody(pricingRead), 'The pricing read after the change') },
});

const activation = defineRoute(read, {
  method: 'get',
  path: '/api/v1/programs/{id}/products/activation-status',
  operationId: 'getProgramProductActivationStatus',
  tags,
  summary: 'Per-product activation state',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(activationStatusSchema), 'Activation state of each product') },
});

const visibility = defineRoute(read, {
  method: 'get',
  path: '/api/v1/programs/{id}/products/visibility-status',
  operationId: 'getProgramProductVisibilityStatus',
  tags,
  summary: 'Per-product patient visibility',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(visibilityStatusSchema), 'Visibility of each product') },
});

const activate = defineRoute(write, {
  method: 'patch',
  path: '/api/v1/programs/{id}/products/{productId}/activate',
  operationId: 'setProgramProductActive',
  recordedValues: ['isActive'],
  tags,
  summary: 'Activate or deactivate a product of the program (productId: its global product id)',
  request: { params: programAndProductParams, body: jsonBody(activateBody) },
  responses: { 200: jsonContent(successBody(productActivation), 'The product after the change') },
});

const setVisibility = defineRoute(write, {
  method: 'patch',
  path: '/api/v1/programs/{id}/products/{productId}/visibility',
  operationId: 'setProgramProductVisibility',
  recordedValues: ['isPatientVisible'],
  tags,
  summary: 'Show or hide a product of the program to patients (productId: its global product id)',
  request: { params: programAndProductParams, body: jsonBody(visibilityBody) },
  responses: { 200: jsonContent(successBody(productVisibility), 'The product after the change') },
});

/** Static sub-paths (activation-status, visibility-status) are distinct from /products/{productId}/... by depth. */
export const programProductRoutes = new OpenAPIHono<AppEnv>()
  .openapi(globalProducts, async (c) => {
    return c.json(ok(await globalProductPool(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(pricing, async (c) => {
    return c.json(ok(await getPricing(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(replace, async (c) => {
    return c.json(ok(await replaceProducts(handlerContext(c), c.req.valid('param').id, c.req.valid('json')), 'Products replaced'), 200);
  })
  .openapi(activation, async (c) => {
    return c.json(ok(await activationStatus(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(visibility, async (c) => {
    return c.json(ok(await visibilityStatus(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(activate, async (c) => {
    const ctx = handlerContext(c);
    const { id, productId } = c.req.valid('param');
    return c.json(ok(await activateProduct(ctx, id, productId, c.req.valid('json').isActive), 'Product updated'), 200);
  })
  .openapi(setVisibility, async (c) => {
    const ctx = handlerContext(c);
    const { id, productId } = c.req.valid('param');
    return c.json(ok(await setProductVisibility(ctx, id, productId, c.req.valid('json').isPatientVisible), 'Product updated'), 200);
  });
