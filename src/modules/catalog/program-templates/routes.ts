import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute, type RouteAccess } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { programTemplate, programTemplateDetail, templateGlobalProduct } from './schemas';
import { getProgramTemplate, listProgramTemplates, listTemplateGlobalProducts } from './service';

// A shared catalogue: no clinic filter, no patient data, so AI-connector keys may read it (docs/api-keys.md).
export const sharedCatalogueAccess: RouteAccess = { auth: 'key', scope: 'read', aiConnector: true };
const tags = ['Program templates and titration'];

const listTemplates = defineRoute(sharedCatalogueAccess, {
  method: 'get',
  path: '/api/v1/program-templates',
  operationId: 'listProgramTemplates',
  tags,
  summary: 'List the shared program templates (active ones, by name)',
  responses: { 200: jsonContent(successBody(z.array(programTemplate)), 'Templates') },
});

const getTemplate = defineRoute(sharedCatalogueAccess, {
  method: 'get',
  path: '/api/v1/program-templates/{id}',
  operationId: 'getProgramTemplate',
  tags,
  summary: 'One shared program template with its products',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(programTemplateDetail), 'The template') },
});

const templateProducts = defineRoute(sharedCatalogueAccess, {
  method: 'get',
  path: '/api/v1/program-templates/{id}/global-products',
  operationId: 'listProgramTemplateGlobalProducts',
  tags,
  summary: "The template's global products, in display order, with the template's fees",
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(z.array(templateGlobalProduct)), 'Global products of the template') },
});

export const programTemplateRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listTemplates, async (c) => c.json(ok(await listProgramTemplates(handlerContext(c))), 200))
  .openapi(getTemplate, async (c) => c.json(ok(await getProgramTemplate(handlerContext(c), c.req.valid('param').id)), 200))
  .openapi(templateProducts, async (c) => c.json(ok(await listTemplateGlobalProducts(handlerContext(c), c.req.valid('param').id)), 200));
