import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, NO_STORE_HEADERS, ok, secretJsonContent, successBody } from '../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { createdKey, createKeyBody, keyMetadata, rolledKey, rollKeyBody } from './schemas';
import { createApiKey, listApiKeys, revokeApiKey, rollApiKey } from './service';

const tags = ['Auth and key management'];

const createKey = defineRoute(
  { auth: 'jwt' },
  {
    method: 'post',
    path: '/api-keys',
    operationId: 'createApiKey',
    recordedValues: ['kind', 'scopes', 'expiresAt', 'rateLimitPerMin'],
    tags,
    summary: 'Create an API key (the raw key is returned once, in data.apiKey)',
    request: { body: jsonBody(createKeyBody) },
    responses: {
      201: secretJsonContent(successBody(createdKey), 'Created (Cache-Control: no-store: the body holds the raw key)'),
      409: jsonContent(errorBody, 'ACTIVE_KEY_LIMIT_REACHED: the brand already has 5 active keys'),
    },
  },
);

const listKeys = defineRoute(
  { auth: 'jwt' },
  {
    method: 'get',
    path: '/api-keys',
    operationId: 'listApiKeys',
    tags,
    summary: "List the brand's API keys (metadata only, never a secret)",
    request: { query: pageQuery },
    responses: { 200: jsonContent(pagedBody(keyMetadata), 'Key metadata, newest first') },
  },
);

const MARKER_UNAVAILABLE =
  'SERVICE_UNAVAILABLE: the change could not be announced to the key caches (the rate-limit store did not answer), so it was not made; retry. docs/api-keys.md.';

const revokeKey = defineRoute(
  { auth: 'jwt' },
  {
    method: 'delete',
    path: '/api-keys/{id}',
    operationId: 'revokeApiKey',
    tags,
    summary: 'Revoke an API key immediately',
    description: 'Also revokes the key it was rolled from, if that one is still in grace. docs/api-keys.md.',
    request: { params: idParam() },
    responses: {
      200: jsonContent(successBody(keyMetadata), 'Revoked'),
      503: jsonContent(errorBody, MARKER_UNAVAILABLE),
    },
  },
);

const rollKey = defineRoute(
  { auth: 'jwt' },
  {
    method: 'post',
    path: '/api-keys/{id}/roll',
    operationId: 'rollApiKey',
    recordedValues: ['expiresInSeconds'],
    tags,
    summary: 'Roll an API key: a new raw key now, the old one working until expiresInSeconds have passed',
    description:
      'Creates a key with the same name, kind, scopes and limit (the raw key is returned once, in data.apiKey) and ends the old key ' +
      'after expiresInSeconds (default 24 hours, at most 7 days, 0 = now); data.previousKey shows its new expiresAt and rolledToKeyId. ' +
      'Until it ends the old key is active and counts against the limit of 5 (a roll with a grace needs room for it); the key the old one replaced, if still in grace, stops now (at most one key in grace per slot). docs/api-keys.md.',
    request: { params: idParam(), body: { ...jsonBody(rollKeyBody), required: false } },
    responses: {
      201: secretJsonContent(successBody(rolledKey), 'Rolled (Cache-Control: no-store: the body holds the new raw key)'),
      409: jsonContent(
        errorBody,
        'CONFLICT: the key is revoked, expired, or was rolled already (roll its successor); ACTIVE_KEY_LIMIT_REACHED: with a grace period the old key would be a sixth active key (roll with expiresInSeconds 0, or revoke a key first)',
      ),
      503: jsonContent(errorBody, MARKER_UNAVAILABLE),
    },
  },
);

export const apiKeyRoutes = new OpenAPIHono<AppEnv>()
  .openapi(createKey, async (c) => {
    const key = await createApiKey(handlerContext(c), c.req.valid('json'));
    return c.json(ok(key, 'API key created; store it now, it is not shown again'), 201, NO_STORE_HEADERS);
  })
  .openapi(listKeys, async (c) => {
    const { data, pagination } = await listApiKeys(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(rollKey, async (c) => {
    const key = await rollApiKey(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(key, 'API key rolled; store the new key now, it is not shown again'), 201, NO_STORE_HEADERS);
  })
  .openapi(revokeKey, async (c) => {
    return c.json(ok(await revokeApiKey(handlerContext(c), c.req.valid('param').id), 'API key revoked'), 200);
  });
