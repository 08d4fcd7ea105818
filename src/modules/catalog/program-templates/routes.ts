import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { idParam } from '../../../platform/http/ids';
import { defineRoute, type RouteAccess } from '../../../platform/http/route';
import { formStructure, programTemplate, programTemplateDetail, templateGlobalProduct, titrationProtocol } from './schemas';
import {
  getProgramTemplate, listFormStructures, listProgramTemplates, listTemplateGlobalProducts, listTitrationProtocols,
} from './service';

// Shared catalogues: no clinic filter, no patient data, so AI-connector keys may read them (docs/api-keys.md).
const access: RouteAccess = { auth: 'key', scope: 'read', aiConnector: true };
const tags = ['Program templates and titration'];

const listTemplates = defineRoute(access, {
  method: 'get',
  path: '/api/v1/program-templates',
  operationId: 'listProgramTemplates',
  tags,
  summary: 'List the shared program templates (active ones, by name)',
  responses: { 200: jsonContent(successBody(z.array(programTemplate)), 'Templates') },
});

const getTemplate = defineRoute(access, {
  method: 'get',
  path: '/api/v1/program-templates/{id}',
  operationId: 'getProgramTemplate',
  tags,
  summary: 'One shared program template with its products',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(programTemplateDetail), 'The template') },
});

const templateProducts = defineRoute(access, {
  method: 'get',
  path: '/api/v1/program-templates/{id}/global-products',
  operationId: 'listProgramTemplateGlobalProducts',
  tags,
  summary: "The template's global products, in display order, with the template's fees",
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(z.array(templateGlobalProduct)), 'Global products of the template') },
});

const listProtocols = defineRoute(access, {
  method: 'get',
  path: '/api/v1/titration-protocols',
  operationId: 'listTitrationProtocols',
  tags,
  summary: 'List the shared dose-escalation protocols',
  responses: { 200: jsonContent(successBody(z.array(titrationProtocol)), 'Protocols') },
});

const listForms = defineRoute(access, {
  method: 'get',
  path: '/api/v1/global-form-structures',
  operationId: 'listGlobalFormStructures',
  tags: ['Products and catalog'],
  summary: "The shared form-builder structure catalogue",
  responses: { 200: jsonContent(successBody(z.array(formStructure)), 'Form structures') },
});

export const catalogRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listTemplates, async (c) => c.json(ok(await listProgramTemplates(c.get('services').db)), 200))
  .openapi(getTemplate, async (c) => c.json(ok(await getProgramTemplate(c.get('services').db, c.req.valid('param').id)), 200))
  .openapi(templateProducts, async (c) =>
    c.json(ok(await listTemplateGlobalProducts(c.get('services').db, c.req.valid('param').id)), 200))
  .openapi(listProtocols, async (c) => c.json(ok(await listTitrationProtocols(c.get('services').db)), 200))
  .openapi(listForms, async (c) => c.json(ok(await listFormStructures(c.get('services').db)), 200));
