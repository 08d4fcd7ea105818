// /docs loads its renderer from the Worker's own static assets: one pinned file (copied from the exact
// devDependency by scripts/docs-assets.ts), checked by Subresource Integrity, and a Content-Security-Policy
// that lets the page run scripts of its own origin only. test/integration/docs-browser.test.ts loads it
// in a browser.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOCS_RENDERER, DOCS_RENDERER_PATH } from '../../../src/platform/openapi/docs-page';
import { useTestApp } from '../../helpers/app';

const t = useTestApp();

/** The installed renderer (the exact devDependency), which scripts/docs-assets.ts copies into public/. */
const packageDir = fileURLToPath(new URL(`../../../node_modules/${DOCS_RENDERER.package}/`, import.meta.url));
const installed = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string; browser: string };
const ourPackage = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const sri = (path: string) => `sha384-${createHash('sha384').update(readFileSync(path)).digest('base64')}`;

/** The attributes of every <script> element of the page. */
function scripts(html: string) {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map(([, attributes, body]) => ({
    attributes: Object.fromEntries(
      [...attributes!.matchAll(/([\w-]+)(?:=(?:"([^"]*)"|'([^']*)'))?/g)].map(([, name, dq, sq]) => [name!, dq ?? sq ?? '']),
    ),
    body: body!,
  }));
}

function policy(header: string | null) {
  expect(header, 'Content-Security-Policy on /docs').toBeTruthy();
  return new Map(
    header!.split(';').map((directive) => {
      const [name, ...sources] = directive.trim().split(/\s+/);
      return [name!, sources] as const;
    }),
  );
}

describe('GET /docs', () => {
  it('pins the renderer the project installs: same version, the package browser bundle, its sha384', async () => {
    expect(ourPackage.devDependencies[DOCS_RENDERER.package], 'exact devDependency').toBe(DOCS_RENDERER.version);
    expect(installed.version, 'installed version').toBe(DOCS_RENDERER.version);
    expect(installed.browser.replace(/^\.\//, ''), "the package's browser standalone bundle").toBe(DOCS_RENDERER.file);
    const expected = sri(join(packageDir, DOCS_RENDERER.file));
    expect(DOCS_RENDERER.integrity, `set DOCS_RENDERER.integrity to ${expected}`).toBe(expected);

    const res = await t.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    const external = scripts(html).filter((s) => s.attributes.src !== undefined);
    expect(external).toHaveLength(1);
    expect(external[0]!.attributes).toMatchObject({ src: DOCS_RENDERER_PATH, integrity: expected });
    expect(DOCS_RENDERER_PATH).toBe(`/docs/assets/scalar-api-reference-${installed.version}.js`);
    // No inline script: the renderer's settings are data attributes, so the policy needs no 'unsafe-inline'.
    for (const script of scripts(html)) expect(script.body.trim()).toBe('');
    expect(html).toMatch(/<noscript>[\s\S]*<a href="\/api\/v1\/openapi.json">/);
    // No request to another host: no absolute URL in the page, and the renderer's own fonts are off.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const config = scripts(html).find((s) => s.attributes.id === 'api-reference')!.attributes['data-configuration']!;
    expect(JSON.parse(config)).toMatchObject({ withDefaultFonts: false, telemetry: false });
  });

  it('sends a Content-Security-Policy that allows only same-origin scripts and fetches', async () => {
    const res = await t.request('/docs');
    const directives = policy(res.headers.get('content-security-policy'));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.has('font-src'), 'no font source: the default fonts (another host) are off').toBe(false);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'unsafe-inline'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    for (const [name, sources] of directives) {
      expect(sources, name).not.toContain('*');
      expect(sources, name).not.toContain("'unsafe-eval'");
      if (name !== 'style-src') expect(sources, name).not.toContain("'unsafe-inline'");
    }
  });

  it('is served as a static asset, never by the Worker (wrangler.toml [assets])', () => {
    const wrangler = readFileSync(new URL('../../../wrangler.toml', import.meta.url), 'utf8');
    const assets = wrangler.split('\n[assets]\n')[1]?.split(/\n\[/)[0] ?? '';
    expect(assets).toMatch(/^directory = "\.\/public"$/m);
    expect(assets).toMatch(/^binding = "ASSETS"$/m);
    // Every path runs the Worker first except the renderer's folder, which only the assets answer.
    expect(assets).toMatch(/^run_worker_first = \["\/\*", "!\/docs\/assets\/\*"\]$/m);
    expect(DOCS_RENDERER_PATH.startsWith('/docs/assets/')).toBe(true);
    expect(wrangler).toMatch(/^\[build\]\ncommand = "node --import tsx scripts\/docs-assets.ts"$/m);
  });
});
