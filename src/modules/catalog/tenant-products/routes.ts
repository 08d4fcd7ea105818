import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { planLimitError, selectionResult, tenantProduct, updatePriceBody, updateSelectionBody } from './schemas';
import { listTenantProducts, replaceSelection, updateTenantProductPrice } from './service';

const tags = ['Products and catalog'];

const tenantProducts = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/tenant-products',
    operationId: 'listTenantProducts',
    tags,
    summary: "The clinic's offerings of global products: facilitation fees, prices, placeholder fees",
    responses: { 200: jsonContent(successBody(z.array(tenantProduct)), 'Tenant products, by product name') },
  },
);

const updatePrice = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/tenant-products/update',
    operationId: 'updateTenantProductPrice',
    recordedValues: ['price'],
    tags,
    summary: "Set one tenant product's price (creates a payment-processor price)",
    description:
      'Creates a price at the payment processor (Stripe in production; sandbox keys always use the development processor) and stores it on the tenant product in the same transaction. The same price again creates nothing. docs/payments.md.',
    request: { body: jsonBody(updatePriceBody) },
    responses: {
      200: jsonContent(successBody(tenantProduct), 'The tenant product with its new price'),
      403: jsonContent(
        planLimitError,
        'KEY_KIND_NOT_ALLOWED, SANDBOX_NOT_ALLOWED, INSUFFICIENT_SCOPE, or PLAN_PRICE_CAP_EXCEEDED (data.maxPriceCents, data.tenantProductIds)',
      ),
      404: jsonContent(errorBody, 'Unknown, malformed or other-clinic tenantProductId'),
      502: jsonContent(errorBody, 'PAYMENT_PROCESSOR_ERROR: the processor refused the request; nothing was stored'),
      503: jsonContent(errorBody, 'PAYMENT_PROCESSOR_UNAVAILABLE (Retry-After) or the database is unavailable; nothing was stored'),
    },
  },
);

const updateSelection = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/tenant-products/update-selection',
    operationId: 'updateTenantProductSelection',
    recordedValues: ['products'],
    tags,
    summary: 'Replace which tenant products each questionnaire offers (plan limits apply)',
    description:
      "Replaces the clinic's whole selection in one transaction. Every productId must be one of the clinic's tenant products and every questionnaireId one of its questionnaires (400 naming each refused field). Plan limits: maxSelectedProducts distinct tenant products (403 PLAN_LIMIT_REACHED) and maxProductPriceCents per selected product (403 PLAN_PRICE_CAP_EXCEEDED). docs/payments.md.",
    request: { body: jsonBody(updateSelectionBody) },
    responses: {
      200: jsonContent(successBody(selectionResult), 'The new selection'),
      403: jsonContent(
        planLimitError,
        'KEY_KIND_NOT_ALLOWED, SANDBOX_NOT_ALLOWED, INSUFFICIENT_SCOPE, PLAN_LIMIT_REACHED (data.limit, data.requested) or PLAN_PRICE_CAP_EXCEEDED',
      ),
    },
  },
);

export const tenantProductRoutes = new OpenAPIHono<AppEnv>()
  .openapi(tenantProducts, async (c) => c.json(ok(await listTenantProducts(handlerContext(c))), 200))
  .openapi(updatePrice, async (c) => {
    const product = await updateTenantProductPrice(handlerContext(c), c.req.valid('json'));
    return c.json(ok(product, 'Price updated'), 200);
  })
  .openapi(updateSelection, async (c) => {
    const result = await replaceSelection(handlerContext(c), c.req.valid('json'));
    return c.json(ok(result, 'Selection updated'), 200);
  });
