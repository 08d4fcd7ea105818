// The OpenAPI document, and what only it needs (the webhook payload schemas), is generated on the first
// GET /api/v1/openapi.json, once per app (per isolate in the Worker): never while the modules load or the
// app is created, and not for /docs or any other request, so a cold Worker that serves API calls never
// pays for it (docs/architecture.md, "The
// Worker bundle").
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../../src/app';
import { OPENAPI_ASSET_PATH } from '../../../src/platform/openapi/asset';
import { openApiDocumentJson } from '../../../src/platform/openapi/document';
import { useTestApp } from '../../helpers/app';

// Installed before this file's imports (src/app among them) are evaluated.
const generate = await vi.hoisted(async () => {
  const { OpenApiGeneratorV31 } = await import('@asteasolutions/zod-to-openapi');
  return vi.spyOn(OpenApiGeneratorV31.prototype, 'generateDocument');
});
afterAll(() => generate.mockRestore());

const t = useTestApp();
const get = (path: string) => t.app.request(path, { headers: { 'cf-connecting-ip': '203.0.113.7' } });

describe('the OpenAPI document', () => {
  it('is generated on the first request for it, once, and for nothing else', async () => {
    expect(generate, 'at module load or app creation').not.toHaveBeenCalled();
    expect((await get('/docs')).status).toBe(200);
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/api/v1/me')).status).toBe(401);
    expect(generate, 'for other requests').not.toHaveBeenCalled();
    // Nor are the webhook payload schemas built (the document is all they are for).
    const webhooks = () => t.app.openAPIRegistry.definitions.filter((definition) => definition.type === 'webhook').length;
    expect(webhooks(), 'webhook schemas before the document').toBe(0);

    const first = await get('/api/v1/openapi.json');
    expect(first.status).toBe(200);
    expect(generate).toHaveBeenCalledTimes(1);
    const document = (await first.json()) as { security?: unknown; paths: object; webhooks: Record<string, unknown> };
    expect(webhooks()).toBeGreaterThan(10);
    expect(Object.keys(document.webhooks)).toHaveLength(webhooks());
    // The default every operation overrides with its own; "try it" on /docs sends x-api-key.
    expect(document.security).toEqual([{ ApiKey: [] }]);
    const second = await get('/api/v1/openapi.json');
    expect(await second.json()).toEqual(document);
    expect(generate, 'cached for the app').toHaveBeenCalledTimes(1);
  });
});

describe('GET /api/v1/openapi.json of a wrangler build (wrangler.toml [define] __OPENAPI_FROM_ASSETS__)', () => {
  it('answers the document the build wrote into the static assets: the bytes and headers generated in-process', async () => {
    // What scripts/docs-assets.ts writes for the build, from an app of its own; the binding serves it as the edge would.
    const asset = openApiDocumentJson(createApp(() => Promise.reject(new Error('the document needs no services'))));
    const fetched: string[] = [];
    const ASSETS = {
      fetch: async (url: string | URL) => {
        fetched.push(new URL(url).pathname);
        return new URL(url).pathname === OPENAPI_ASSET_PATH ? new Response(asset) : new Response('not found', { status: 404 });
      },
    };
    const request = () => t.app.request('/api/v1/openapi.json', { headers: { 'cf-connecting-ip': '203.0.113.9' } }, { ASSETS } as never);
    const generated = await request();
    // The constant wrangler's [define] writes into the code, read as a global where nothing replaced it.
    const flag = globalThis as { __OPENAPI_FROM_ASSETS__?: boolean };
    flag.__OPENAPI_FROM_ASSETS__ = true;
    let served: Response;
    try {
      served = await request();
    } finally {
      delete flag.__OPENAPI_FROM_ASSETS__;
    }
    expect(fetched, 'the asset answered, not a generated document').toEqual([OPENAPI_ASSET_PATH]);
    expect([served.status, generated.status]).toEqual([200, 200]);
    expect((await served.text()) === (await generated.text()), 'the built document differs from the generated one').toBe(true);
    const headers = (res: Response) => {
      const kept: [string, string][] = [];
      res.headers.forEach((value, name) => {
        if (name !== 'x-request-id' && !name.startsWith('ratelimit')) kept.push([name, value]);
      });
      return kept;
    };
    expect(headers(served)).toEqual(headers(generated));
    expect(served.headers.get('content-type')).toBe('application/json');
  });
});
