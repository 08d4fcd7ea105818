// The deploy bundle is minified without keep_names (wrangler.toml), so a class's own name becomes a
// letter or two. Logs name errors by `error.name` (src/platform/log.ts, describeError): every error class
// in src/ must set it itself, or its failures would be logged as "Error" or a minified name.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ERROR_CLASS = /class\s+(\w+)\s+extends\s+(\w*Error)\b[^{]*\{/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** The error classes of one file that never name themselves (`override name = 'X'` or `this.name = 'X'`). */
function unnamed(source: string): string[] {
  return [...source.matchAll(ERROR_CLASS)]
    .map((match) => match[1]!)
    .filter((name) => !new RegExp(`(?:override\\s+name\\s*=|this\\.name\\s*=)\\s*['"]${name}['"]`).test(source));
}

describe('error class names', () => {
  it('finds the error classes it checks', () => {
    expect(unnamed("class A extends Error {}\nclass B extends Error {\n  override name = 'B';\n}")).toEqual(['A']);
  });

  it('every error class in src/ sets its own name', () => {
    const files = sourceFiles(join(root, 'src'));
    const classes = files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(ERROR_CLASS)]);
    expect(classes.length).toBeGreaterThan(5);
    const offenders = files.flatMap((file) => unnamed(readFileSync(file, 'utf8')).map((name) => `${relative(root, file)}: ${name}`));
    expect(offenders).toEqual([]);
  });
});
