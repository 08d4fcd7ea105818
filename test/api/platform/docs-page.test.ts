// /docs loads its renderer from a CDN onto the API's own origin: one pinned file, checked by Subresource
// Integrity, and a Content-Security-Policy that lets the page run nothing else.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOCS_RENDERER } from '../../../src/platform/http/openapi';
import { useTestApp } from '../../helpers/app';

const t = useTestApp();

/** The installed renderer (the exact devDependency): the very files jsDelivr's /npm/ serves, byte for byte. */
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
    expect(external[0]!.attributes).toMatchObject({
      src: `https://cdn.jsdelivr.net/npm/${DOCS_RENDERER.package}@${installed.version}/${DOCS_RENDERER.file}`,
      integrity: expected,
      crossorigin: 'anonymous',
    });
    // No inline script: the renderer's settings are data attributes, so the policy needs no 'unsafe-inline'.
    for (const script of scripts(html)) expect(script.body.trim()).toBe('');
    expect(html).toMatch(/<noscript>[\s\S]*<a href="\/api\/v1\/openapi.json">/);
  });

  it('sends a Content-Security-Policy that allows only that script and same-origin fetches', async () => {
    const res = await t.request('/docs');
    const directives = policy(res.headers.get('content-security-policy'));
    const [script] = scripts(await res.text()).filter((s) => s.attributes.src !== undefined);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual([script!.attributes.src]);
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
});
