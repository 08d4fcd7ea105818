// Every CSV the API answers is written by src/platform/http/csv.ts, which neutralises formula cells
// (docs/api-conventions.md, "CSV"). A source file that produces CSV (a text/csv content type, or
// papaparse's unparse) without that writer fails here, so a new export cannot skip the neutralising.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const WRITER = 'src/platform/http/csv.ts';
const PRODUCES_CSV = /text\/csv|\.unparse\s*\(/;
const USES_WRITER = /from\s+['"][./]*(?:platform\/)?http\/csv['"]|from\s+['"]\.\/csv['"]/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Whether a source file writes CSV without the neutralising writer. */
const exportsRawCsv = (source: string) => PRODUCES_CSV.test(source) && !USES_WRITER.test(source);

describe('CSV exports', () => {
  it('every source file that produces CSV writes it with the neutralising writer', () => {
    const offenders = sourceFiles(join(root, 'src'))
      .map((file) => relative(root, file))
      .filter((file) => file !== WRITER && exportsRawCsv(readFileSync(join(root, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('would catch an export written without it', () => {
    expect(exportsRawCsv("return c.body(rows.join('\\n'), 200, { 'Content-Type': 'text/csv' });")).toBe(true);
    expect(exportsRawCsv('const csv = Papa.unparse(rows);')).toBe(true);
    expect(exportsRawCsv("import { toCsv } from '../../../platform/http/csv';\nc.header('Content-Type', 'text/csv');")).toBe(false);
  });
});
