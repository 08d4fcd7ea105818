// The dependency rule (docs/architecture.md, .dependency-cruiser.cjs), checked with dependency-cruiser
// on the real tree, one test per rule so a violation fails with the rule's name. Every rule is also run
// on a small tree that breaks each of them once (dependency-rules-fixture/), so none can pass by accident.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const configPath = `${root}.dependency-cruiser.cjs`;
const { forbidden: rules } = createRequire(import.meta.url)(configPath) as { forbidden: { name: string; comment: string }[] };

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: { name: string }[];
}

/** dependency-cruiser's report of `dirs`, run from `cwd` (it exits non-zero when something is violated). */
function cruise(cwd: string, dirs: string[]): Violation[] {
  const run = spawnSync(`${root}node_modules/.bin/depcruise`, [...dirs, '--config', configPath, '--output-type', 'json'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (!run.stdout) throw new Error(`dependency-cruiser did not run: ${run.stderr || run.error}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const describeViolation = (v: Violation) =>
  v.cycle?.length ? [v.from, ...v.cycle.map((step) => step.name)].join(' -> ') : `${v.from} -> ${v.to}`;
const violationsOf = (violations: Violation[], rule: string) => violations.filter((v) => v.rule.name === rule).map(describeViolation);

describe('the dependency rule', () => {
  let real: Violation[];
  let broken: Violation[];
  beforeAll(() => {
    real = cruise(root, ['src', 'scripts', 'drizzle']);
    broken = cruise(fileURLToPath(new URL('./dependency-rules-fixture/', import.meta.url)), ['src', 'scripts', 'drizzle', 'test']);
  }, 60_000);

  it('has rules', () => expect(rules.length).toBeGreaterThan(5));

  for (const rule of rules) {
    it(`${rule.name}: ${rule.comment}`, () => {
      expect(violationsOf(real, rule.name), `imports that break ${rule.name}`).toEqual([]);
    });
  }

  it('every rule fires on a tree that breaks it', () => {
    const fired = new Set(broken.map((v) => v.rule.name));
    expect(rules.map((rule) => rule.name).filter((name) => !fired.has(name))).toEqual([]);
  });
});
