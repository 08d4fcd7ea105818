import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { discontinuedInUse } from './schemas';
import { listDiscontinuedInUse } from './service';

const tags = ['Products and catalog'];

const discontinued = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/global-products/discontinued-in-use',
    operationId: 'listDiscontinuedProductsInUse',
    tags,
    summary: "Discontinued global products still used by the clinic's programs (retired programs aside)",
    responses: { 200: jsonContent(successBody(z.array(discontinuedInUse)), 'Discontinued products and the programs using them') },
  },
);

export const globalProductRoutes = new OpenAPIHono<AppEnv>().openapi(discontinued, async (c) =>
  c.json(ok(await listDiscontinuedInUse(handlerContext(c))), 200),
);
