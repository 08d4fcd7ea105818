import { OpenAPIHono, z } from '@hono/zod-openapi';
import { KEY_KINDS, KEY_SCOPES } from '../../../../drizzle/schema';
import type { AppEnv } from '../../../platform/context';
import { jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';

const keyInfo = z
  .object({
    clinicId: z.string().uuid(),
    keyName: z.string(),
    keyPrefix: z.string(),
    scopes: z.array(z.enum(KEY_SCOPES)),
    kind: z.enum(KEY_KINDS),
    isSandbox: z.boolean(),
    rateLimitPerMin: z.number().int().nullable().openapi({ description: 'null: the default applies.' }),
  })
  .openapi('ApiKeyInfo');

const me = defineRoute(
  { auth: 'key', scope: 'read', aiConnector: true },
  {
    method: 'get',
    path: '/api/v1/me',
    operationId: 'getMe',
    tags: ['Auth and key management'],
    summary: 'The calling API key: its clinic, scopes, kind and limits',
    responses: { 200: jsonContent(successBody(keyInfo), 'The key') },
  },
);

export const meRoutes = new OpenAPIHono<AppEnv>().openapi(me, (c) => {
  const key = c.get('apiKey');
  return c.json(
    ok({
      clinicId: key.clinicId,
      keyName: key.keyName,
      keyPrefix: key.keyPrefix,
      scopes: key.scopes,
      kind: key.kind,
      isSandbox: key.isSandbox,
      rateLimitPerMin: key.rateLimitPerMin,
    }),
    200,
  );
});
