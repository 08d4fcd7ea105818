import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../context';
import { type ExampleDocument, withExamples } from './openapi-examples';

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

/**
 * Not an open-source API: an SPDX LicenseRef in OpenAPI 3.1's license.identifier says so without a URL
 * (Redocly's info-license-strict wants a url or an identifier). A variable, not an inline literal,
 * because @hono/zod-openapi types the 3.1 document's info with OpenAPI 3.0's LicenseObject (no identifier).
 */
const license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };

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
      license,
    },
    servers: [{ url: '/', description: 'This server' }],
  });
  withoutRequestDefaults(document as unknown as OpenApiObject);
  withExamples(document as unknown as ExampleDocument);
  documents.set(app, document);
  return document;
}

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

/**
 * The renderer /docs loads from jsDelivr: one exact file of one exact version, checked by Subresource
 * Integrity (jsDelivr's /npm/ serves the package tarball's files byte for byte). The same version is an
 * exact devDependency, and test/api/platform/docs-page.test.ts recomputes the hash from node_modules, so a bump
 * of either without the other (or without the new hash) fails. To upgrade: `npm install -D --save-exact
 * @scalar/api-reference@X`, set `version` here, run that test and paste the hash it prints.
 * The renderer is never bundled into the Worker.
 */
export const DOCS_RENDERER = {
  package: '@scalar/api-reference',
  version: '1.72.1',
  /** The package's `browser` entry: the self-contained standalone bundle (no chunks loaded at run time). */
  file: 'dist/browser/standalone.js',
  integrity: 'sha384-U11tb2XnKvmwt8RlTvnwUnYgrN+ur4Xyh9htLhjajWNR/Oyl5AX5DEz00qRmlrmK',
} as const;

export const DOCS_RENDERER_URL = `https://cdn.jsdelivr.net/npm/${DOCS_RENDERER.package}@${DOCS_RENDERER.version}/${DOCS_RENDERER.file}`;

/**
 * The page may run only the pinned renderer file (a full-path source, not all of jsDelivr) and fetch
 * only from this origin (the document, and "try it" calls to the server '/'). Styles: the renderer
 * injects <style> elements (its theme) without a nonce and sets style attributes, so inline styles are
 * allowed; nothing else inline is. Its default fonts (another origin) are switched off in the page.
 * No 'unsafe-eval': the one eval the renderer tries is zod's feature probe, which falls back when
 * refused (browsers log that one refusal).
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src ${DOCS_RENDERER_URL}`,
  "style-src 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const rendererConfiguration = JSON.stringify({ withDefaultFonts: false, telemetry: false });

const docsHtml = `<!doctype html>
<html>
  <head>
    <title>Brand Administration API reference</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" data-url="/api/v1/openapi.json" data-configuration='${rendererConfiguration}'></script>
    <script src="${DOCS_RENDERER_URL}" integrity="${DOCS_RENDERER.integrity}" crossorigin="anonymous"></script>
    <noscript>The machine-readable reference is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
  </body>
</html>`;

/** GET /docs: the human-readable reference, rendered in the browser from /api/v1/openapi.json. */
export function docsPage(c: Context<AppEnv>) {
  c.header('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
  return c.html(docsHtml);
}
