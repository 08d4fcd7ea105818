// The Worker as `wrangler deploy` uploads it (docs/architecture.md, "The Worker bundle"), built offline
// with --dry-run: minified, within its size budget, zod with its English locale only (the wrangler.toml
// alias, which may replace nothing but zod's locale index), and without the /docs renderer (a static asset).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** gzip -9 of the uploaded code, in KiB: 478.8 when set (731.6 before minify and the zod alias); room for growth, not for a regression. */
const BUDGET_KIB = 520;

interface Metafile {
  inputs: Record<string, { imports: { path: string; original?: string }[] }>;
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

let dir: string;
let code: Buffer;
let modules: string[];
let meta: Metafile;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'brand-admin-bundle-'));
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', dir, '--metafile', join(dir, 'meta.json')],
    { cwd: root, stdio: 'pipe', timeout: 120_000, env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } },
  );
  modules = readdirSync(dir).filter((name) => /\.(m?js|wasm)$/.test(name));
  code = readFileSync(join(dir, 'index.js'));
  meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Metafile;
}, 150_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the Worker bundle', () => {
  it('is one minified module within the size budget', () => {
    expect(modules).toEqual(['index.js']);
    const kib = gzipSync(code, { level: 9 }).length / 1024;
    console.log(`[worker-bundle] index.js: ${(code.length / 1024).toFixed(1)} KiB, gzip -9 ${kib.toFixed(1)} KiB (budget ${BUDGET_KIB})`);
    expect(kib).toBeLessThanOrEqual(BUDGET_KIB);
    // Minified: a few thousand lines, not the ~100 000 of the readable bundle.
    expect(code.toString('utf8').split('\n').length).toBeLessThan(10_000);
  });

  it("carries zod's English locale only, and the alias replaces nothing else", () => {
    const inputs = Object.keys(Object.values(meta.outputs).find((output) => Object.keys(output.inputs).length > 0)!.inputs);
    const locales = inputs.filter((path) => /\/zod\/v4\/locales\//.test(path)).map((path) => path.replace(/^.*\/locales\//, ''));
    expect(locales).toEqual(['en.js']);
    const aliased = Object.entries(meta.inputs).flatMap(([from, input]) =>
      input.imports.filter((i) => i.path.endsWith('src/platform/bundle/zod-locales.ts')).map(() => from.replace(/^.*node_modules\//, '')),
    );
    expect(aliased.sort()).toEqual(['zod/v4/classic/external.js', 'zod/v4/core/index.js']);
  });

  it('does not contain the /docs renderer (a static asset, public/)', () => {
    const inputs = Object.keys(meta.inputs);
    expect(inputs.filter((path) => path.includes('@scalar/'))).toEqual([]);
    expect(code.includes('createApiReference'), "the renderer's own code").toBe(false);
  });
});
