import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAP_BUDGET_BYTES, SHORT_RUN_GROWTH_BYTES_PER_REQUEST } from '../../scripts/bench/memory-budget';
import { mixedRequests, warmAreas } from '../../scripts/bench/memory-load';
import { type Bundle, buildBundle, type InspectedWorker, startInspectedWorker } from '../../scripts/bench/memory-worker';
import { DEVELOPMENT_JWT_SECRET } from '../../src/config';
import { createTestDatabase } from '../helpers/database';
import { makeTenant } from '../helpers/factories';
import { workerdProblem } from '../helpers/workerd';
import { startUpstashRestServer, type UpstashRestServer } from '../tooling/upstash-rest-server';

const root = fileURLToPath(new URL('../..', import.meta.url));
const REQUESTS = 400;
const MiB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

const problem = workerdProblem();
if (problem) console.warn(`[worker-memory.test] SKIPPED: workerd cannot run on this machine (${problem}).`);

describe.skipIf(problem !== null)('the Worker isolate’s heap', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let upstash: UpstashRestServer | undefined;
  let bundle: Bundle | undefined;
  let worker: InspectedWorker | undefined;
  let key: string;

  beforeAll(async () => {
    const building = buildBundle({ config: join(root, 'wrangler.toml'), extraArgs: ['--env='] });
    building.catch(() => {});
    database = await createTestDatabase();
    key = (await makeTenant(database.db)).key;
    upstash = await startUpstashRestServer().catch(() => {
      console.warn('[worker-memory.test] no Redis: rate limits through the in-process limiter instead of the Upstash stand-in.');
      return undefined;
    });
    bundle = await building;
    worker = await startInspectedWorker({
      name: 'brand-admin-api',
      bundle,
      config: join(root, 'wrangler.toml'),
      hyperdriveUrl: database.url,
      variables: {
        ENVIRONMENT: 'development',
        DATABASE_URL: database.url,
        JWT_SECRET: DEVELOPMENT_JWT_SECRET,
        RATE_LIMIT_MULTIPLIER: '1000',
        ...(upstash ? { UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token } : {}),
      },
    });
  }, 180_000);

  afterAll(async () => {
    await worker?.dispose();
    await upstash?.close();
    if (bundle) rmSync(bundle.dir, { recursive: true, force: true });
    await database?.close();
  });

  it(`stays under ${MiB(HEAP_BUDGET_BYTES)} with every area warm, and grows under ${SHORT_RUN_GROWTH_BYTES_PER_REQUEST} B per request after GC across ${REQUESTS} requests`, {
    timeout: 120_000,
  }, async () => {
    const w = worker!;
    await warmAreas(w.url, key);
    const warm = await w.heap.measure();
    // JIT and inline caches settle over the first requests: the growth is measured after them.
    const settle = await mixedRequests(w.url, key, { count: REQUESTS, concurrency: 8, run: `s${Date.now().toString(36)}` });
    expect(settle.errors, settle.errors.join('\n')).toEqual([]);
    const before = await w.heap.measure();
    const run = await mixedRequests(w.url, key, { count: REQUESTS, concurrency: 8, run: `r${Date.now().toString(36)}` });
    expect(run.errors, run.errors.join('\n')).toEqual([]);
    const after = await w.heap.measure();
    const growth = after.used - before.used;
    const allowed = REQUESTS * SHORT_RUN_GROWTH_BYTES_PER_REQUEST;
    console.log(
      `[worker-memory.test] warm ${MiB(warm.used)}; after ${REQUESTS} more ${MiB(before.used)}, after ${REQUESTS} more ${MiB(after.used)} (growth ${MiB(growth)}, allowed ${MiB(allowed)})`,
    );
    expect(warm.used).toBeLessThan(HEAP_BUDGET_BYTES);
    expect(after.used).toBeLessThan(HEAP_BUDGET_BYTES);
    expect(growth).toBeLessThan(allowed);
  });
});
