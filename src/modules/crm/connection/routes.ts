import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppConfig } from '../../../config';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, NO_STORE_HEADERS, ok, secretJsonContent, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { ApiError } from '../../../platform/values/errors';
import { type CrmProvider, PROVIDERS } from './providers';
import { connectApiKeyBody, crmConnection, crmDisconnected, oauthStart, oauthStartQuery, phiSyncBody } from './schemas';
import { connectWithApiKey, defaultOAuthProvider, disconnectCrm, getCrmConnection, type OAuthApp, setPhiSync, startOAuth } from './service';

const tags = ['CRM connection'];
const read = { auth: 'key', scope: 'read', gate: 'crm_connect' } as const;
const write = { auth: 'key', scope: 'write', gate: 'crm_connect' } as const;
const notConnected = jsonContent(errorBody, 'CRM connection not found: the clinic has no CRM connected.');

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/crm/connection',
  operationId: 'getCrmConnection',
  tags,
  summary: "The clinic's CRM connection (safe projection, never the credentials); data null when none",
  description: 'Needs the CRM Connect plan entitlement (403 CRM_TIER_REQUIRED). docs/crm-connection.md.',
  responses: { 200: jsonContent(successBody(crmConnection.nullable()), 'The connection, or data null when the clinic has none') },
});

const remove = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/crm/connection',
  operationId: 'disconnectCrm',
  tags,
  summary: 'Disconnect the CRM (deletes the connection and its stored credentials)',
  responses: { 200: jsonContent(successBody(crmDisconnected), 'Disconnected'), 404: notConnected },
});

const connectApiKey = defineRoute(write, {
  method: 'post',
  path: '/api/v1/crm/connect/apikey',
  operationId: 'connectCrmApiKey',
  recordedValues: ['provider'],
  tags,
  summary: 'Connect a CRM with an API key (replaces any existing connection)',
  description:
    'The key is stored encrypted (AES-256-GCM) and never returned; the answer is the safe projection with a hint (last four characters). ' +
    'A replaced connection starts with PHI sync off. docs/crm-connection.md.',
  request: { body: jsonBody(connectApiKeyBody) },
  responses: { 200: jsonContent(successBody(crmConnection), 'Connected') },
});

const oauthStartRoute = defineRoute(read, {
  method: 'get',
  path: '/api/v1/crm/connect/oauth/start',
  operationId: 'startCrmOAuth',
  tags,
  summary: "The provider's OAuth consent URL, with a signed state that expires in 10 minutes (changes nothing)",
  description:
    'Nothing is stored: the connection is made when the OAuth callback (brand portal) presents the code and this state. ' +
    "provider is optional: without it, the clinic's connected provider, else the first this deployment has an OAuth app for. docs/crm-connection.md.",
  request: { query: oauthStartQuery },
  responses: {
    200: secretJsonContent(successBody(oauthStart), 'The authorize URL and its state (sent with Cache-Control: no-store)'),
    503: jsonContent(errorBody, 'SERVICE_UNAVAILABLE: this deployment has no OAuth app configured for the provider (production only).'),
  },
});

const phiSync = defineRoute(write, {
  method: 'patch',
  path: '/api/v1/crm/connection/phi-sync',
  operationId: 'setCrmPhiSync',
  recordedValues: ['phiSyncEnabled', 'baaAttested'],
  tags,
  summary: 'Turn syncing of patient health information to the CRM on or off',
  description: 'Enabling needs baaAttested true (400 otherwise); baaAttested true sets baaAttestedAt. 404 when no CRM is connected.',
  request: { body: jsonBody(phiSyncBody) },
  responses: { 200: jsonContent(successBody(crmConnection), 'Updated'), 404: notConnected },
});

const DEVELOPMENT_REDIRECT_URI = 'http://localhost:8787/crm/oauth/callback';

/**
 * The deployment's OAuth app for a provider: CRM_OAUTH_<PROVIDER>_CLIENT_ID and CRM_OAUTH_REDIRECT_URL
 * (config.crmOAuth, src/config/index.ts). Unset: a development placeholder outside production, null in production.
 */
function oauthAppFor({ crmOAuth, environment }: AppConfig, provider: CrmProvider): OAuthApp | null {
  const clientId = crmOAuth.clientIds[provider];
  const redirectUri = crmOAuth.redirectUrl;
  if (clientId && redirectUri) return { clientId, redirectUri };
  if (environment === 'production') return null;
  return { clientId: `development-${provider}-client-id`, redirectUri: DEVELOPMENT_REDIRECT_URI };
}

export const crmConnectionRoutes = new OpenAPIHono<AppEnv>()
  .openapi(get, async (c) => {
    const connection = await getCrmConnection(handlerContext(c));
    return c.json(ok(connection, connection ? 'OK' : 'No CRM connected'), 200);
  })
  .openapi(remove, async (c) => c.json(ok(await disconnectCrm(handlerContext(c)), 'CRM disconnected'), 200))
  .openapi(connectApiKey, async (c) => {
    const connection = await connectWithApiKey(handlerContext(c), c.req.valid('json'));
    return c.json(ok(connection, 'CRM connected'), 200);
  })
  .openapi(oauthStartRoute, async (c) => {
    const ctx = handlerContext(c);
    const provider = c.req.valid('query').provider ?? (await defaultOAuthProvider(ctx, (p) => oauthAppFor(ctx.config, p) !== null));
    const app = oauthAppFor(ctx.config, provider);
    if (!app)
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', ERROR_MESSAGES.SERVICE_UNAVAILABLE.oauthNotConfigured(PROVIDERS[provider].label));
    const started = await startOAuth(ctx, provider, app);
    // The state is a bearer of the clinic's intent: no cache keeps it.
    return c.json(ok(started), 200, NO_STORE_HEADERS);
  })
  .openapi(phiSync, async (c) => {
    const updated = await setPhiSync(handlerContext(c), c.req.valid('json'));
    return c.json(ok(updated, updated.phiSyncEnabled ? 'PHI sync enabled' : 'PHI sync disabled'), 200);
  });
