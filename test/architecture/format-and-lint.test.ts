// The formatter and the linter (Biome, biome.json) over the whole tree: `npm test` fails on a file that
// is not formatted or breaks a lint rule, naming the file and the rule. `npx biome check --write .`
// formats and applies the safe fixes.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const biome = (args: string[], input?: string) =>
  spawnSync(`${root}node_modules/.bin/biome`, args, { cwd: root, encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });

describe('Biome', () => {
  it('finds the whole tree formatted and lint-clean', () => {
    const run = biome(['ci', '--colors=off', '.']);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  }, 60_000);

  it('would refuse a file that is not formatted', () => {
    const run = biome(['check', '--colors=off', '--stdin-file-path=src/unformatted.ts'], 'export const  x = { a:1 }\n');
    expect(run.status).not.toBe(0);
  });
});
