// Puts what the Worker serves from its static assets (wrangler.toml [assets], public/) there. wrangler
// runs it ([build] in wrangler.toml) before every `wrangler dev`, `wrangler deploy` and `wrangler check
// startup`. Neither file is committed (.gitignore).
//
// 1. The OpenAPI document, generated here in Node from the route declarations exactly as GET
//    /api/v1/openapi.json generates it in-process (openApiDocumentJson: the bytes c.json() writes) ->
//    public<OPENAPI_ASSET_PATH>; a wrangler build answers that route with this file (src/platform/openapi/asset.ts).
//
// 2. The pinned reference renderer: node_modules/@scalar/api-reference/<file> -> public<DOCS_RENDERER_PATH>. The copy is
// not committed (4.3 MB of minified vendor code, .gitignore): the lock file pins it, with npm's own
// integrity check, and this script refuses a file whose sha384 is not the one the page declares, so the
// build fails where the browser would otherwise refuse to run it. Old versions are removed.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp, loadAreas } from '../src/app';
import { OPENAPI_ASSET_PATH } from '../src/platform/openapi/asset';
import { DOCS_RENDERER, DOCS_RENDERER_PATH } from '../src/platform/openapi/docs-page';
import { openApiDocumentJson } from '../src/platform/openapi/document';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = join(root, 'node_modules', DOCS_RENDERER.package, DOCS_RENDERER.file);
const target = join(root, 'public', DOCS_RENDERER_PATH);

const bytes = readFileSync(source);
const integrity = `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
if (integrity !== DOCS_RENDERER.integrity) {
  throw new Error(
    `${source} has ${integrity}, the page declares ${DOCS_RENDERER.integrity} (src/platform/openapi/docs-page.ts): ` +
      `install ${DOCS_RENDERER.package}@${DOCS_RENDERER.version} (npm ci), or update DOCS_RENDERER for the installed version`,
  );
}
mkdirSync(dirname(target), { recursive: true });
for (const name of readdirSync(dirname(target))) {
  if (name !== basename(target)) rmSync(join(dirname(target), name), { recursive: true, force: true });
}
// Unchanged: left alone, so `wrangler dev` does not see a new asset on every rebuild.
if (!existsSync(target) || !readFileSync(target).equals(bytes)) copyFileSync(source, target);

const documentTarget = join(root, 'public', OPENAPI_ASSET_PATH);
await loadAreas();
const document = openApiDocumentJson(createApp(() => Promise.reject(new Error('the document needs no services'))));
mkdirSync(dirname(documentTarget), { recursive: true });
if (!existsSync(documentTarget) || readFileSync(documentTarget, 'utf8') !== document) {
  // Whole or not at all: two builds at once (the bundle test runs both flavours) never read half a file.
  const partial = `${documentTarget}.${process.pid}.tmp`;
  writeFileSync(partial, document);
  renameSync(partial, documentTarget);
}
