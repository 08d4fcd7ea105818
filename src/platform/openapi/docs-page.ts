// GET /docs: the human-readable reference (docs/api-conventions.md, "The reference page"). The page is
// a few lines of HTML from the Worker; the renderer is a static asset of the same Worker (wrangler.toml
// [assets], public/), so the page works offline and makes no request to another host.
import type { Context } from 'hono';
import type { AppEnv } from '../context';

/**
 * The renderer: one exact file of one exact version of @scalar/api-reference, the exact devDependency.
 * scripts/docs-assets.ts copies it from node_modules into the static assets at DOCS_RENDERER_PATH (wrangler
 * runs it before every `wrangler dev` and `wrangler deploy`, [build] in wrangler.toml); the page loads it
 * from there with Subresource Integrity, so a deployed file other than the pinned one never runs.
 * test/api/platform/docs-page.test.ts recomputes the hash from node_modules, so a bump of the package
 * without this version and hash fails. To upgrade: `npm install -D --save-exact @scalar/api-reference@X`,
 * set `version` here, run that test and paste the hash it prints. The renderer is never bundled into
 * the Worker's code.
 */
export const DOCS_RENDERER = {
  package: '@scalar/api-reference',
  version: '1.72.1',
  /** The package's `browser` entry: the self-contained standalone bundle (no chunks loaded at run time). */
  file: 'dist/browser/standalone.js',
  integrity: 'sha384-U11tb2XnKvmwt8RlTvnwUnYgrN+ur4Xyh9htLhjajWNR/Oyl5AX5DEz00qRmlrmK',
} as const;

/** Where the static assets serve the renderer (the version in the name: a new version is a new URL). */
export const DOCS_RENDERER_PATH = `/docs/assets/scalar-api-reference-${DOCS_RENDERER.version}.js`;

/**
 * The page may run scripts of this origin only (the renderer; no inline script: its settings are data
 * attributes) and fetch from this origin only (the document, and "try it" calls to the server '/').
 * Styles: the renderer injects <style> elements (its theme) without a nonce and sets style attributes,
 * so inline styles are allowed; nothing else inline is. Its default fonts (fonts.scalar.com) are
 * switched off in the page, and font-src is not granted at all. No 'unsafe-eval': the one eval the
 * renderer tries is zod's feature probe, which falls back when refused.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Scalar's settings (data-configuration): no fonts from its CDN, no telemetry, this server. */
const rendererConfiguration = JSON.stringify({
  withDefaultFonts: false,
  telemetry: false,
  // "Try it" calls this origin (the one connect-src allows), not the document's absolute servers.
  servers: [{ url: '/', description: 'This server' }],
});

const docsHtml = `<!doctype html>
<html lang="en">
  <head>
    <title>Brand Administration API reference</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="icon" href="data:," />
  </head>
  <body>
    <script id="api-reference" data-url="/api/v1/openapi.json" data-configuration='${rendererConfiguration}'></script>
    <script src="${DOCS_RENDERER_PATH}" integrity="${DOCS_RENDERER.integrity}"></script>
    <noscript>The machine-readable reference is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
  </body>
</html>`;

/** GET /docs: the human-readable reference, rendered in the browser from /api/v1/openapi.json. */
export function docsPage(c: Context<AppEnv>) {
  c.header('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
  return c.html(docsHtml);
}
