// npm run bench:memory [-- --requests 10000] [--concurrency 10] [--snapshot dir] [--no-modules]
//
// The Worker isolate's JS heap, ours beside the bench's bare Worker (scripts/bench/bare-worker.ts), each
// built as `wrangler deploy` builds it and run alone in workerd through Miniflare with workerd's inspector
// open (memory-worker.ts: no wrangler dev tooling in the isolate). On the bench's database (the demo data,
// database.ts) and, for our rate limits, the Upstash REST stand-in over the machine's Redis
// (127.0.0.1:6379 or BENCH_REDIS_URL; without it, the in-process limiter, said so). At each point a forced
// GC, then Runtime.getHeapUsage: right after start; after one GET per area (memory-load.ts); after
// `--requests` mixed requests (reads and writes across the areas; bare: its order list and order); after
// as many again (growth after GC). Then a heap snapshot of ours and what holds it (heap-snapshot.ts),
// by constructor, by largest retained objects, and (from a second, unminified build, unless
// --no-modules) by the module whose top-level variables retain it.
// Then the floor of growth per request: what workerd keeps per closed socket (memory-worker.ts).
// Budget (docs/benchmarks.md, "Memory", memory-budget.ts): ours under 48 MiB after GC with every area
// warm, and growth after GC per request under its ceiling; the exit code is 2 when either is exceeded.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEVELOPMENT_JWT_SECRET } from '../../src/config';
import { startUpstashRestServer, type UpstashRestServer } from '../../test/tooling/upstash-rest-server';
import { databaseUrl, withClient } from '../lib/database';
import { freePort, type RunningPostgres } from '../lib/embedded-postgres';
import { DEMO } from '../seed/ids';
import { startBenchDatabase } from './database';
import { type HeapSummary, summarizeHeapSnapshot } from './heap-snapshot';
import { GROWTH_BYTES_PER_REQUEST, HEAP_BUDGET_BYTES } from './memory-budget';
import { bareRequests, insertKey, type MixResult, mixedRequests, warmAreas } from './memory-load';
import {
  type Bundle,
  buildBundle,
  type HeapUsage,
  type InspectedWorker,
  runtimeBytesPerSocket,
  startInspectedWorker,
} from './memory-worker';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DATABASE = 'brand_admin';
const WATCHDOG_MS = 20 * 60_000;

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '10' },
    snapshot: { type: 'string' },
    'no-modules': { type: 'boolean', default: false },
  },
});
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
if (!(requests >= 10 && concurrency >= 1)) throw new Error('--requests (>= 10) and --concurrency must be positive');

const log = (message: string) => console.log(`[memory] ${message}`);
const MiB = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const exitHook = createRequire(import.meta.resolve('embedded-postgres'))('async-exit-hook') as { unhookEvent(event: string): void };
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  exitHook.unhookEvent(signal);
  process.on(signal, () => void cleanup().then(() => process.exit(130)));
}

const dir = mkdtempSync(join(tmpdir(), 'brand-admin-memory-'));
chmodSync(dir, 0o755); // PostgreSQL runs as the postgres user when we are root
let postgres: RunningPostgres | undefined;
let upstash: UpstashRestServer | undefined;
const running: InspectedWorker[] = [];
const bundles: Bundle[] = [];
let cleaned = false;

async function cleanup(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  await Promise.all(running.map((worker) => worker.dispose()));
  await upstash?.close().catch(() => {});
  await postgres?.stop().catch(() => {});
  for (const bundle of bundles) rmSync(bundle.dir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}

interface Point {
  label: string;
  usage: HeapUsage;
  run?: MixResult;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]! + 2))
        .join('')
        .trimEnd(),
    )
    .join('\n');
}

function describeRun(run: MixResult): string {
  const statuses = Object.entries(run.statuses)
    .map(([status, n]) => `${status} x${n}`)
    .join(', ');
  return `${run.requests} requests in ${(run.elapsedMs / 1000).toFixed(1)} s (${statuses})`;
}

async function measureWorker(
  worker: InspectedWorker,
  work: {
    warm(): Promise<void>;
    mix(run: string): Promise<MixResult>;
  },
): Promise<Point[]> {
  const points: Point[] = [];
  const at = async (label: string, run?: MixResult) => {
    const usage = await worker.heap.measure();
    points.push({ label, usage, run });
    log(`${worker.name}: ${label}: ${MiB(usage.used)} MiB used, ${MiB(usage.total)} MiB total${run ? `; ${describeRun(run)}` : ''}`);
    if (run?.errors.length) log(`${worker.name}: first errors:\n  ${run.errors.join('\n  ')}`);
  };
  await at('after start');
  await work.warm();
  await at('every area warm');
  await at(`after ${requests} mixed`, await work.mix('a'));
  await at(`after ${2 * requests} mixed`, await work.mix('b'));
  return points;
}

function printSummary(summary: HeapSummary, title: string): void {
  console.log(`\n== ${title}: ${summary.nodes} live objects, ${MiB(summary.totalSelf)} MiB (self sizes; retained from the dominator tree)`);
  console.log(
    table([
      ['by constructor / node name', 'count', 'self MiB'],
      ...summary.byConstructor.map((c) => [c.name, String(c.count), MiB(c.self)]),
    ]),
  );
  console.log('');
  console.log(
    table([
      ['largest retained', 'type', 'held by', 'retained MiB'],
      ...summary.topRetained.map((r) => [r.name, r.type, r.heldBy, MiB(r.retained)]),
    ]),
  );
  if (summary.byModule.length) {
    console.log('');
    console.log(
      table([
        ['module (top-level variables)', 'retained MiB', 'largest variables (KiB)'],
        ...summary.byModule.map((m) => [
          m.module,
          MiB(m.retained),
          m.variables.map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)}`).join(', '),
        ]),
      ]),
    );
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const watchdog = setTimeout(() => {
    console.error(`[memory] still running after ${WATCHDOG_MS / 60_000} minutes; stopping.`);
    void cleanup().then(() => process.exit(1));
  }, WATCHDOG_MS);
  watchdog.unref();

  const pgPort = await freePort();
  const postgresStarting = startBenchDatabase({
    root,
    dataDir: join(dir, 'postgres'),
    port: pgPort,
    name: DATABASE,
    maxConnections: 100,
    log,
  });
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  upstash = await startUpstashRestServer({ redisUrl }).catch((error: unknown) => {
    log(`no Redis at ${redisUrl} (${error instanceof Error ? error.message : String(error)}): ours uses the in-process limiter`);
    return undefined;
  });
  const config = join(root, 'wrangler.toml');
  const bareConfig = join(root, 'scripts', 'bench', 'bare-wrangler.toml');
  log('building the deploy bundles (wrangler deploy --dry-run)…');
  const [ours, bare, oursNamed] = await Promise.all([
    buildBundle({ config, extraArgs: ['--env='] }),
    buildBundle({ config: bareConfig, minify: true }),
    values['no-modules'] ? undefined : buildBundle({ config, extraArgs: ['--env='], minify: false }),
  ]);
  bundles.push(ours, bare, ...(oursNamed ? [oursNamed] : []));
  log(`bundles: ours ${(ours.bytes / 1024).toFixed(0)} KiB, bare ${(bare.bytes / 1024).toFixed(0)} KiB (minified)`);
  postgres = await postgresStarting;
  const url = databaseUrl(postgres.url, DATABASE);
  const key = await insertKey(url, DEMO.clinics.demo);
  const orderId = await withClient(url, async (client) => {
    const { rows } = await client.query<{ id: string }>('select id from orders where clinic_id = $1 limit 1', [DEMO.clinics.demo]);
    return rows[0]!.id;
  });
  log(`database ready (${Math.round((Date.now() - started) / 1000)} s)`);

  const ourVariables = {
    ENVIRONMENT: 'development',
    DATABASE_URL: url, // the loopback witness development requires; the Hyperdrive binding is what is used
    JWT_SECRET: DEVELOPMENT_JWT_SECRET,
    RATE_LIMIT_MULTIPLIER: '1000',
    ...(upstash ? { UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token } : {}),
  };
  const start = async (name: string, bundle: Bundle, workerConfig: string, variables: Record<string, string>) => {
    const worker = await startInspectedWorker({ name, bundle, config: workerConfig, variables, hyperdriveUrl: url });
    running.push(worker);
    return worker;
  };
  const stop = async (worker: InspectedWorker) => {
    running.splice(running.indexOf(worker), 1);
    await worker.dispose();
  };

  // One at a time: each alone on the machine's two cores.
  const oursWorker = await start('brand-admin-api', ours, config, ourVariables);
  const oursPoints = await measureWorker(oursWorker, {
    warm: () => warmAreas(oursWorker.url, key),
    mix: (run) => mixedRequests(oursWorker.url, key, { count: requests, concurrency, run: `${Date.now().toString(36)}${run}` }),
  });
  const snapshot = await oursWorker.heap.snapshot();
  // The snapshot's own GC (synchronous, nothing else running): a check on the figures above.
  log(`ours: after the heap snapshot's GC: ${MiB((await oursWorker.heap.usage()).used)} MiB used`);
  if (values.snapshot) {
    mkdirSync(values.snapshot, { recursive: true });
    writeFileSync(join(values.snapshot, 'ours.heapsnapshot'), snapshot);
  }
  await stop(oursWorker);
  const oursSummary = summarizeHeapSnapshot(snapshot);

  const bareWorker = await start('brand-admin-bench-bare', bare, bareConfig, { COALESCE_WRITES: '1' });
  const barePoints = await measureWorker(bareWorker, {
    warm: async () => {
      const res = await fetch(`${bareWorker.url}/api/v1/orders?limit=25`, { headers: { 'x-api-key': key } });
      if (res.status !== 200) throw new Error(`bare: GET /api/v1/orders answered ${res.status}`);
      await res.arrayBuffer();
    },
    mix: () => bareRequests(bareWorker.url, key, { count: requests, concurrency, orderId }),
  });
  await stop(bareWorker);

  // Names and modules: the same code unminified (its heap differs by the longer source text and names).
  let namedSummary: HeapSummary | undefined;
  let namedUsage: HeapUsage | undefined;
  if (oursNamed) {
    const named = await start('brand-admin-api', oursNamed, config, ourVariables);
    await warmAreas(named.url, key);
    await mixedRequests(named.url, key, { count: Math.min(requests, 2000), concurrency, run: `${Date.now().toString(36)}n` });
    namedUsage = await named.heap.measure();
    const namedSnapshot = await named.heap.snapshot();
    if (values.snapshot) writeFileSync(join(values.snapshot, 'ours-unminified.heapsnapshot'), namedSnapshot);
    await stop(named);
    namedSummary = summarizeHeapSnapshot(namedSnapshot, { bundleSource: readFileSync(oursNamed.main, 'utf8') });
  }

  console.log(`\n== Worker isolate heap after a forced GC (Runtime.getHeapUsage), MiB used / total; ${concurrency} at a time`);
  console.log(
    table([
      ['point', 'ours used', 'ours total', 'bare used', 'bare total'],
      ...oursPoints.map((point, i) => [
        point.label,
        MiB(point.usage.used),
        MiB(point.usage.total),
        MiB(barePoints[i]!.usage.used),
        MiB(barePoints[i]!.usage.total),
      ]),
    ]),
  );
  printSummary(oursSummary, 'ours, heap snapshot after the runs (minified: names are short)');
  if (namedSummary && namedUsage)
    printSummary(namedSummary, `ours unminified, warm + ${Math.min(requests, 2000)} mixed, ${MiB(namedUsage.used)} MiB used after GC`);

  // What the runtime keeps per socket, with nothing of ours or pg's: the floor of any growth per request.
  const toml = readFileSync(config, 'utf8');
  const compatibility = {
    date: JSON.parse(/^compatibility_date\s*=\s*(.+)$/m.exec(toml)![1]!) as string,
    flags: JSON.parse(/^compatibility_flags\s*=\s*(.+)$/m.exec(toml)![1]!) as string[],
  };
  const perSocket = await runtimeBytesPerSocket(`127.0.0.1:${pgPort}`, compatibility);
  const perRequest = (points: Point[]) => (points[3]!.usage.used - points[2]!.usage.used) / requests;
  console.log(
    `\ngrowth after GC per request over the last ${requests}: ours ${perRequest(oursPoints).toFixed(0)} B, bare ${perRequest(barePoints).toFixed(0)} B; ` +
      `sockets: workerd keeps ${perSocket.toFixed(0)} B per closed socket (a Worker that only connects and closes)`,
  );
  const warm = oursPoints[1]!.usage.used;
  const overBudget = warm > HEAP_BUDGET_BYTES;
  const growing = perRequest(oursPoints) > GROWTH_BYTES_PER_REQUEST;
  console.log(
    `budget: every area warm ${MiB(warm)} MiB (budget ${MiB(HEAP_BUDGET_BYTES)}): ${overBudget ? 'OVER' : 'ok'}; ` +
      `growth ${perRequest(oursPoints).toFixed(0)} B per request (ceiling ${GROWTH_BYTES_PER_REQUEST} B; the runtime's floor ${perSocket.toFixed(0)} B): ${growing ? 'GROWING' : 'ok'}`,
  );
  log(`done in ${Math.round((Date.now() - started) / 1000)} s`);
  if (overBudget || growing) process.exitCode = 2;
}

try {
  await main();
} catch (error) {
  console.error(`[memory] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
