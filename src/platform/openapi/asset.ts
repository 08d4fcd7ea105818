// GET /api/v1/openapi.json in a wrangler build: the document is a build artefact (scripts/docs-assets.ts,
// the [build] command, writes it into the static assets), so the Worker carries neither the generator
// path nor the examples composer (docs/architecture.md, "The Worker bundle").
import type { Context } from 'hono';
import type { AppEnv } from '../context';

declare global {
  /** true in a wrangler build (wrangler.toml [define]); undeclared under Node and the workers tests: read behind `typeof`. */
  const __OPENAPI_FROM_ASSETS__: boolean | undefined;
}

/**
 * Where the static assets hold the document. Under `run_worker_first = ["/*", ...]` the edge never
 * serves this path itself: only the Worker reaches it, through the ASSETS binding.
 */
export const OPENAPI_ASSET_PATH = '/_worker/openapi.json';

/** The built document, answered as c.json() would answer the generated one (same bytes, same Content-Type). */
export async function openApiAsset(c: Context<AppEnv>): Promise<Response> {
  const asset = await c.get('services').assets?.fetch(new URL(OPENAPI_ASSET_PATH, c.req.url));
  if (!asset?.ok || !asset.body) {
    // A deployment built without the [build] command: say so rather than answer an empty document.
    throw new Error(
      `The OpenAPI document is not in the static assets (${OPENAPI_ASSET_PATH}): build with wrangler, which runs scripts/docs-assets.ts`,
    );
  }
  return c.body(asset.body, 200, { 'Content-Type': 'application/json' });
}
