import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { sharedCatalogueAccess } from '../program-templates/routes';
import { titrationProtocol } from './schemas';
import { listTitrationProtocols } from './service';

const listProtocols = defineRoute(sharedCatalogueAccess, {
  method: 'get',
  path: '/api/v1/titration-protocols',
  operationId: 'listTitrationProtocols',
  tags: ['Program templates and titration'],
  summary: 'List the shared dose-escalation protocols',
  responses: { 200: jsonContent(successBody(z.array(titrationProtocol)), 'Protocols') },
});

export const titrationProtocolRoutes = new OpenAPIHono<AppEnv>().openapi(listProtocols, async (c) =>
  c.json(ok(await listTitrationProtocols(handlerContext(c))), 200),
);
