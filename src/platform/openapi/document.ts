import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../context';
import { type ToolDocument, withIntegerFormats, withOperationDescriptions, withPlainPatterns } from './compatibility';
import { runDocumentOnly } from './document-only';
import { type ExampleDocument, withExamples } from './examples';
import { type HeaderDocument, withResponseHeaders } from './response-headers';
import { type TaggedDocument, withTags } from './tags';

export const API_VERSION = '1.0.0';

function registerSecuritySchemes(app: OpenAPIHono<AppEnv>) {
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

/**
 * Not an open-source API: an SPDX LicenseRef in OpenAPI 3.1's license.identifier says so without a URL
 * (Redocly's info-license-strict wants a url or an identifier). A variable, not an inline literal,
 * because @hono/zod-openapi types the 3.1 document's info with OpenAPI 3.0's LicenseObject (no identifier).
 */
const license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };

/** The OpenAPI 3.1 document generated from the route declarations; built on first use, once per app and isolate. */
export function openApiDocument(app: OpenAPIHono<AppEnv>) {
  const cached = documents.get(app);
  if (cached) return cached;
  registerSecuritySchemes(app);
  runDocumentOnly(app);
  const document = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Brand Administration API',
      version: API_VERSION,
      description:
        'Server-to-server API with which a brand (clinic) runs its admin work. Every /api/v1 call carries an API key in x-api-key. ' +
        'Each operation states who may call it in x-access (auth, scope, gates).',
      license,
      contact: { name: 'Brand Administration API support', url: 'https://api.example.com/docs' },
    },
    // Absolute, so that a tool importing the document alone (Postman, a generator) has a base URL; /docs
    // overrides them with its own origin (docs-page.ts).
    servers: [
      // x-internal: who a server is for (OWASP's inventory-access): production for integrators, the local one for developers of the API.
      { url: 'https://api.example.com', description: 'Production (a placeholder: use the host your brand was given)', 'x-internal': false },
      { url: 'http://127.0.0.1:8787', description: 'Local development (npm run dev, wrangler dev)', 'x-internal': true },
    ],
    // The default of every operation (each also states its own: ApiKey, BearerToken for the key
    // routes, none for sign-in), so a reader or a client ("try it" on /docs) knows to send x-api-key.
    security: [{ ApiKey: [] }],
  });
  withoutRequestDefaults(document as unknown as OpenApiObject);
  withExamples(document as unknown as ExampleDocument);
  withResponseHeaders(document as unknown as HeaderDocument);
  withOperationDescriptions(document as unknown as ToolDocument);
  withPlainPatterns(document as unknown as ToolDocument);
  withIntegerFormats(document as unknown as ToolDocument);
  withTags(document as unknown as TaggedDocument);
  documents.set(app, document);
  return document;
}

/**
 * The document as the static asset of a wrangler build holds it (scripts/docs-assets.ts): the bytes
 * c.json() answers in-process (test/api/platform/openapi-lazy.test.ts compares both answers).
 */
export const openApiDocumentJson = (app: OpenAPIHono<AppEnv>) => JSON.stringify(openApiDocument(app));

type SchemaObject = Record<string, unknown>;
interface OpenApiObject {
  paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: SchemaObject }> } }>>;
  components?: { schemas?: Record<string, SchemaObject> };
}

/**
 * Request bodies carry no `default`: code generators (openapi-typescript's defaultNonNullable) read a
 * default as "always present" and make the field required in the request type, so a call that leaves
 * it out would not compile. The default moves into the description, where people read it; the server
 * applies it all the same. Response schemas keep theirs (there the field is always present).
 */
export function withoutRequestDefaults(document: OpenApiObject): void {
  const components = document.components?.schemas ?? {};
  const seen = new Set<SchemaObject>();
  const visit = (schema: unknown): void => {
    if (!schema || typeof schema !== 'object' || seen.has(schema as SchemaObject)) return;
    const node = schema as SchemaObject;
    seen.add(node);
    if (typeof node.$ref === 'string') visit(components[node.$ref.replace('#/components/schemas/', '')]);
    if ('default' in node) {
      const note = `Default: ${JSON.stringify(node.default)}.`;
      node.description = typeof node.description === 'string' ? `${node.description} ${note}` : note;
      delete node.default;
    }
    for (const [keyword, value] of Object.entries(node)) {
      // A map of schemas by name (a field may be called "default"): its values are the schemas.
      // Values, not schemas: left as written.
      if (keyword === 'example' || keyword === 'examples' || keyword === 'enum' || keyword === 'const') continue;
      if (keyword === 'properties' || keyword === 'patternProperties' || keyword === '$defs') {
        Object.values(value as Record<string, unknown>).forEach(visit);
      } else if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') visit(value);
    }
  };
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const media of Object.values(operation.requestBody?.content ?? {})) visit(media.schema);
    }
  }
}
