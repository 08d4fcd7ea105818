import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { defineRoute } from '../../../../platform/http/route';
import { pathId } from '../../../../platform/values/ids';
import { pharmacyCoverage } from './schemas';
import { listPharmacyCoverages } from './service';

const tags = ['Products and catalog'];

const coverages = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/public/products/{productId}/pharmacy-coverages',
    operationId: 'listProductPharmacyCoverages',
    tags,
    summary: "Pharmacies filling a product (the clinic's own or a shared platform product), primary first",
    request: { params: z.object({ productId: pathId('productId') }) },
    responses: { 200: jsonContent(successBody(z.array(pharmacyCoverage)), 'Coverages') },
  },
);

export const pharmacyCoverageRoutes = new OpenAPIHono<AppEnv>().openapi(coverages, async (c) => {
  const data = await listPharmacyCoverages(handlerContext(c), c.req.valid('param').productId);
  return c.json(ok(data), 200);
});
