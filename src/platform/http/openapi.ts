import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../context';

export const API_VERSION = '1.0.0';

export function registerSecuritySchemes(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: 'An API key (svc_live_, svc_test_, svc_pk_ or svc_ai_). Created with POST /api-keys.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'BearerToken', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A brand-admin token from POST /auth/signin.',
  });
}

const documents = new WeakMap<OpenAPIHono<AppEnv>, ReturnType<OpenAPIHono<AppEnv>['getOpenAPI31Document']>>();

/** The OpenAPI 3.1 document generated from the route declarations; built once per app and isolate. */
export function openApiDocument(app: OpenAPIHono<AppEnv>) {
  const cached = documents.get(app);
  if (cached) return cached;
  const document = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Brand Administration API',
      version: API_VERSION,
      description:
        'Server-to-server API with which a brand (clinic) runs its admin work. Every /api/v1 call carries an API key in x-api-key. ' +
        'Each operation states who may call it in x-access (auth, scope, gates).',
    },
    servers: [{ url: '/', description: 'This server' }],
  });
  documents.set(app, document);
  return document;
}

export const docsPage = `<!doctype html>
<html>
  <head>
    <title>Brand Administration API reference</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" data-url="/api/v1/openapi.json"></script>
    <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script>
    <noscript>The machine-readable reference is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
  </body>
</html>`;
