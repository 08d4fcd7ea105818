// A provider is built in one place (src/platform/providers) and reached through the request's services:
// no module reads the Worker's env or process.env itself. Only the composition points may touch the
// env: src/index.ts (the Worker entry), src/scheduled.ts and src/platform/services.ts hand it to
// src/config (which reads it) and to providersFor (which takes its bindings).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ALLOWED = new Set(['src/index.ts', 'src/scheduled.ts', 'src/platform/services.ts']);
const READS_ENV = /\bc\.env\b|\bprocess\.env\b|\benv\.[A-Z][A-Z0-9_]+\b/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('the Worker env', () => {
  it('is read only by src/config and the composition points', () => {
    const offenders = sourceFiles(join(root, 'src'))
      .map((file) => relative(root, file))
      .filter((file) => !file.startsWith('src/config/') && !ALLOWED.has(file))
      .flatMap((file) =>
        readFileSync(join(root, file), 'utf8')
          .split('\n')
          .flatMap((line, i) =>
            READS_ENV.test(line) && !line.trimStart().startsWith('//') && !line.trimStart().startsWith('*')
              ? [`${file}:${i + 1}: ${line.trim()}`]
              : [],
          ),
      );
    expect(offenders).toEqual([]);
  });

  it('would catch a module that reads it', () => {
    expect(READS_ENV.test('const token = c.env.STRIPE_SECRET_KEY;')).toBe(true);
    expect(READS_ENV.test('const url = process.env.DATABASE_URL;')).toBe(true);
  });
});
