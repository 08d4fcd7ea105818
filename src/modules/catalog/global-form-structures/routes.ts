import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { sharedCatalogueAccess } from '../program-templates/routes';
import { formStructure } from './schemas';
import { listFormStructures } from './service';

const listForms = defineRoute(sharedCatalogueAccess, {
  method: 'get',
  path: '/api/v1/global-form-structures',
  operationId: 'listGlobalFormStructures',
  tags: ['Products and catalog'],
  summary: 'The shared form-builder structure catalogue',
  responses: { 200: jsonContent(successBody(z.array(formStructure)), 'Form structures') },
});

export const globalFormStructureRoutes = new OpenAPIHono<AppEnv>().openapi(listForms, async (c) =>
  c.json(ok(await listFormStructures(handlerContext(c))), 200),
);
