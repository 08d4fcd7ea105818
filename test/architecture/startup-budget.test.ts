// What the Worker builds at start (docs/architecture.md, "Startup"): config, the gateway, the limiter and
// the key cache, and one stand-in handler per route; no area's schemas, route objects or services, which
// are built on the area's first request. Counted, not timed, so that the machine's load cannot move it:
// startup-probe.ts imports src/index.ts in a Node process of its own (a fresh module graph, as a cold
// isolate has) and counts the zod objects (schemas and checks) constructed and the handlers registered
// with Hono's routers. Node evaluates a module reached only by import() when it is imported, as esbuild's
// bundle does, so what the probe sees at import is what the bundle evaluates at start.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AREA_ROUTES } from '../../src/area-routes';

/**
 * 28 when set (the envelope's and defineRoute's shared schemas), against 8468 when every area was built
 * at start; the smallest area (access) alone builds about 300.
 */
const ZOD_OBJECTS_BUDGET = 150;
/** Beyond one stand-in per handler of the manifests: the platform's own middleware and routes (13 when set). */
const PLATFORM_HANDLERS_BUDGET = 40;

describe('module-load work', () => {
  it('stays within its budget: no area is built when the Worker starts', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./startup-probe.ts', import.meta.url))], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const counts = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { zodObjects: number; routeHandlers: number };
    const standIns = Object.values(AREA_ROUTES).reduce((sum, manifest) => sum + manifest.reduce((n, [, , count]) => n + count, 0), 0);
    expect(counts.zodObjects, 'zod objects constructed at import').toBeLessThanOrEqual(ZOD_OBJECTS_BUDGET);
    expect(counts.routeHandlers - standIns, 'handlers registered at import beyond the stand-ins').toBeLessThanOrEqual(
      PLATFORM_HANDLERS_BUDGET,
    );
  }, 60_000);
});
