// npm run bench [-- --quick] [--settings direct,pooled,distance] [--delay 20] [--rounds N] [--seconds S] [--json file]
//                [--trace] [--profile dir] [--memory-limiter] [--bare-plain] [--help]
//
// The API's Worker against a bare Worker (scripts/bench/bare-worker.ts: a plain fetch handler running the
// same SQL with the same driver, nothing else), both in workerd through `wrangler dev`, on one embedded
// PostgreSQL migrated and loaded with the demo data. The API keeps its rate limits, through the Upstash
// limiter against the Upstash REST stand-in over the machine's Redis (127.0.0.1:6379 or BENCH_REDIS_URL),
// with every limit raised by RATE_LIMIT_MULTIPLIER so that the limiter's cost is measured, not its refusals.
// Three settings: the database reached directly over TCP; through PgBouncer in transaction mode
// (standing in for Hyperdrive); and the same with simulated distance: a TCP delay proxy in front of
// PostgreSQL and in front of the Redis behind the stand-in, counting the round trips each request waits for.
// A third Worker, *bare+limit*, is the bare one plus the one Redis call the API must make on every request
// (its rate limits and the key cache's revocation markers: the same script through the same client, sent
// alongside its statements): the peer that does the same necessary work (bare-worker.ts, LIMIT="1").
// Load: closed loop on loopback, concurrency 1 and 10, the three interleaved in short rounds.
// Writes (ours only: the bare Worker has no write routes): POST /api/v1/coupons without and with an
// Idempotency-Key, POST /api/v1/checkout/sessions with a publishable key, POST /api/v1/refunds (each
// refund consumes one of the paid orders seeded for the run: seedRefundableOrders), measured as the reads.
// The last line is `orders-list ratio ours/bare+limit: <number>` (throughput, pooled, concurrency 10);
// the line before it, `orders-list ratio ours/bare: <number>`.

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEVELOPMENT_JWT_SECRET } from '../../src/config';
import { WORKER_BATCHING } from '../../src/platform/request-log';
import { freePort, type RunningPostgres } from '../lib/embedded-postgres';
import { DEMO, DEMO_LOGINS, DEMO_PASSWORD } from '../seed';
import { KEY_LOOKUP, ORDER_DETAIL, ORDERS_PAGE } from './bare-sql';
import { groupCpuMs, processCpuMs } from './cpu';
import { offeredProgramId, seedRefundableOrders, startBenchDatabase } from './database';
import { type LoadResult, type LoadSummary, runLoad, summarize, type WriteRequest } from './load';
import { findOrInstallPgbouncer, pgbouncerVersion, type RunningPgbouncer, startPgbouncer } from './pgbouncer';
import { disableNetworkInspection, profileWorker, summarizeProfile } from './profile';
import type { RequestCount } from './remote';
import { type Remote, startRemote } from './remote-client';
import { countSequential, type Turn } from './tcp-proxy';
import { startWorker, type WorkerProcess, waitForHealth } from './workers';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DATABASE = 'brand_admin';
/** Every rate limit times this: 300/min becomes 300,000/min, far above what a loopback run sends. */
const RATE_LIMIT_MULTIPLIER = 1000;
const POOL_SIZE = 20;
const CONCURRENCIES = [1, 10] as const;
const SETTINGS = ['direct', 'pooled', 'distance'] as const;
type Setting = (typeof SETTINGS)[number];
type Target = 'ours' | 'bare' | 'bare+limit';
const PEERS = ['bare', 'bare+limit'] as const;
type Peer = (typeof PEERS)[number];
type RouteName = 'orders-list' | 'orders-get';
/** The write rows: ours only (the bare Worker has no write routes). */
const WRITE_NAMES = ['coupon', 'coupon+idem-key', 'checkout-session', 'refund'] as const;
type WriteName = (typeof WRITE_NAMES)[number];
/** Sequential remote round trips (database and limiter) a write may take: test/api/platform/write-round-trips.test.ts. */
const WRITE_TRIPS_TESTED: Partial<Record<WriteName, number>> = { coupon: 2, 'coupon+idem-key': 3 };
/** Refunds per timed cell at most: each consumes a paid order, seeded for the run (seedRefundableOrders). */
const REFUNDS_PER_CELL = 20;
/** Refunds in each setting's warm-up. */
const REFUNDS_WARM = 4;
/** The writes' clinic: the second live demo clinic, so that the reads' clinic (the first) never changes. */
const WRITE_LOGIN = DEMO_LOGINS[1];
const WRITE_CLINIC = DEMO.clinics.harbor;

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    settings: { type: 'string', default: SETTINGS.join(',') },
    delay: { type: 'string', default: '20' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    json: { type: 'string' },
    trace: { type: 'boolean', default: false },
    profile: { type: 'string' },
    // Diagnostic: ours with the in-process limiter (no Upstash call), to see what that call costs.
    'memory-limiter': { type: 'boolean', default: false },
    // Bare as before 2026-11-24: each of a statement's messages its own socket write (the API sends one).
    'bare-plain': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(`npm run bench [-- options]   (docs/benchmarks.md)
  --quick                 1 round of 1 s per cell (default: 6 rounds)
  --settings <list>       direct,pooled,distance (default: all three)
  --delay <ms>            added each way by the delay proxies in the distance setting (20)
  --rounds <n>            interleaved rounds per cell
  --seconds <s>           seconds per cell (1)
  --json <file>           also write every figure to a file
  --trace                 print the round trips of one counted request per route and write (distance)
  --profile <dir>         CPU profiles of the Workers under the orders-list load
  --memory-limiter        ours with the in-process limiter (a diagnostic)
  --bare-plain            bare with one socket write per message (as before 2026-11-24)
Reads: GET /api/v1/orders?limit=25 and /api/v1/orders/{id}, ours against bare and bare+limit. Writes (ours only,
the bare Worker has no write routes): POST /api/v1/coupons without and with an Idempotency-Key,
POST /api/v1/checkout/sessions with a publishable key, POST /api/v1/refunds (at most ${REFUNDS_PER_CELL} per cell).`);
  process.exit(0);
}
const settings = values.settings!.split(',').map((name) => name.trim()) as Setting[];
for (const setting of settings)
  if (!SETTINGS.includes(setting)) throw new Error(`--settings: unknown setting ${setting} (${SETTINGS.join(', ')})`);
const delayMs = Number(values.delay);
// Many short cells rather than a few long ones: the load of other jobs on the machine changes by the second.
const rounds = Number(values.rounds ?? (values.quick ? 1 : 6));
const cellMs = Number(values.seconds ?? 1) * 1000;
const warmMs = values.quick ? 300 : 600;
const countedRequests = values.quick ? 1 : 3;
if (!(delayMs >= 1 && rounds >= 1 && cellMs >= 100)) throw new Error('--delay, --rounds and --seconds must be positive');
/** The whole run is bounded: past this, it stops with what it has not finished reported as such. */
const WATCHDOG_MS = 20 * 60_000; // the write rows made the full run longer (refunds at c=10 queue on the clinic's lock)

const log = (message: string) => console.log(`[bench] ${message}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// embedded-postgres installs async-exit-hook, whose SIGINT/SIGTERM handler exits before our Workers are
// stopped: the signals are ours (as in scripts/dev.ts).
const exitHook = createRequire(import.meta.resolve('embedded-postgres'))('async-exit-hook') as { unhookEvent(event: string): void };
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  exitHook.unhookEvent(signal);
  process.on(signal, () => void cleanup().then(() => process.exit(130)));
}

const dir = mkdtempSync(join(tmpdir(), 'brand-admin-bench-'));
chmodSync(dir, 0o755); // PostgreSQL and PgBouncer run as the postgres user when we are root
let postgres: RunningPostgres | undefined;
let remote: Remote | undefined;
const workers: WorkerProcess[] = [];
const poolers: RunningPgbouncer[] = [];
let cleaned = false;

async function cleanup(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  await Promise.all(workers.map((worker) => worker.stop()));
  await Promise.all(poolers.map((pooler) => pooler.stop()));
  await remote?.stop().catch(() => {});
  await postgres?.stop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}

/** A Worker of either kind: its URL, and the headers of every request. */
interface Endpoint {
  target: Target;
  url: string;
  /** wrangler's process group, where its workerd runs. */
  pgid: number;
}

interface Cell {
  setting: Setting;
  route: RouteName | WriteName;
  concurrency: number;
  target: Target;
  runs: LoadResult[];
  /** CPU ms of the Worker's workerd during the runs. */
  workerCpuMs: number;
  /** CPU ms of the bench's region process (Upstash stand-in, relays, delay proxies) during the runs. */
  regionCpuMs: number;
}

interface PerRequest {
  connections: number;
  statements: number;
  redisCommands: number;
  sequentialRoundTrips: number;
  roundTrips: number;
  roundTripsAfter: number;
  /** Sequential round trips through the delay proxy in front of Redis (the limiter's) before the answer. */
  limiterRoundTrips: number;
  sql: string[];
}

interface SettingResult {
  setting: Setting;
  description: string;
  cells: Cell[];
  counts: Record<string, PerRequest>;
}

/** The limiter's sequential round trips (through the delay proxy in front of Redis) answered before the answer. */
const limiterTrips = (count: RequestCount) =>
  countSequential(
    count.timeline
      .filter((turn) => turn.via === 'redis' && turn.end <= count.answeredAt)
      .map((turn) => ({ connection: 0, kind: turn.kind as Turn['kind'], start: turn.start, end: turn.end })),
  );
const average = (numbers: number[]) => numbers.reduce((sum, n) => sum + n, 0) / Math.max(1, numbers.length);

/** The counted requests of one row, averaged; the SQL of the last one. */
const averaged = (counts: RequestCount[]): PerRequest => ({
  connections: average(counts.map((c) => c.connections)),
  statements: average(counts.map((c) => c.statements.length)),
  redisCommands: average(counts.map((c) => c.redisCommands)),
  sequentialRoundTrips: average(counts.map((c) => c.sequentialRoundTrips)),
  roundTrips: average(counts.map((c) => c.roundTrips)),
  roundTripsAfter: average(counts.map((c) => c.roundTripsAfter)),
  limiterRoundTrips: average(counts.map(limiterTrips)),
  sql: counts[counts.length - 1]!.statements,
});

/**
 * A key of a demo clinic (the first by default), made through the API as a brand would: a secret one
 * with `scopes`, or a publishable one.
 */
async function createKey(
  base: string,
  key: { scopes: string[] } | { kind: 'publishable' } = { scopes: ['read'] },
  login: (typeof DEMO_LOGINS)[number] = DEMO_LOGINS[0],
): Promise<string> {
  const signIn = await fetch(`${base}/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: login.email, password: DEMO_PASSWORD }),
  });
  if (signIn.status !== 200) throw new Error(`signing in answered ${signIn.status}: ${await signIn.text()}`);
  const token = ((await signIn.json()) as { data: { token: string } }).data.token;
  const created = await fetch(`${base}/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: 'scopes' in key ? `bench ${key.scopes.join('+')}` : 'bench publishable', ...key }),
  });
  if (created.status !== 201) throw new Error(`creating a key answered ${created.status}: ${await created.text()}`);
  return ((await created.json()) as { data: { apiKey: string } }).data.apiKey;
}

function tomlValue(text: string, name: string): string | undefined {
  return new RegExp(`^${name}\\s*=\\s*(.+)$`, 'm').exec(text)?.[1]?.trim();
}

/** The bare Worker gets the API's compatibility date, flags and minification (wrangler.toml). */
async function bareWorkerArgs(): Promise<string[]> {
  const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8');
  const args: string[] = [];
  const date = tomlValue(toml, 'compatibility_date');
  if (date) args.push('--compatibility-date', JSON.parse(date) as string);
  const flags = tomlValue(toml, 'compatibility_flags');
  if (flags) for (const flag of JSON.parse(flags) as string[]) args.push('--compatibility-flags', flag);
  if (tomlValue(toml, 'minify') === 'true') args.push('--minify');
  return args;
}

function fmt(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => pad(cell, widths[i]! + 2))
        .join('')
        .trimEnd(),
    )
    .join('\n');
}

function statementKind(sql: string, write: boolean): string {
  if (sql === KEY_LOOKUP) return 'key lookup';
  if (/insert into "request_logs"/.test(sql)) return 'request log';
  // A write's every other statement is its own (BEGIN and COMMIT included, as the write walker counts them).
  if (write || sql === ORDERS_PAGE || sql === ORDER_DETAIL) return 'route';
  return 'other';
}

/** A write row: where it posts, with which key, and each request's fresh body. */
interface WriteRoute {
  path: string;
  key: string;
  next: () => WriteRequest | undefined;
}

async function main(): Promise<void> {
  const started = Date.now();
  const watchdog = setTimeout(() => {
    console.error(`[bench] still running after ${WATCHDOG_MS / 60_000} minutes; stopping.`);
    void cleanup().then(() => process.exit(1));
  }, WATCHDOG_MS);
  watchdog.unref();

  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const pgPort = await freePort();
  log(`temporary folder ${dir}; PostgreSQL 17 on 127.0.0.1:${pgPort}; Redis ${new URL(redisUrl).host}`);
  const postgresStarting = startBenchDatabase({
    root,
    dataDir: join(dir, 'postgres'),
    port: pgPort,
    name: DATABASE,
    maxConnections: 200,
    log,
  });
  remote = await startRemote({ pgPort, redisUrl, delayMs }).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)} (the bench needs Redis; set BENCH_REDIS_URL)`);
  });
  const { ports } = remote;
  // The Workers' database URL names the relay, which each setting points at its own server.
  const workerDbUrl = `postgres://postgres:postgres@127.0.0.1:${ports.dbFrontPort}/${DATABASE}`;

  // Wrangler builds and starts while PostgreSQL initialises: neither needs the other yet.
  const ours = await startWorker({
    name: 'ours',
    root,
    dir,
    hyperdriveUrl: workerDbUrl,
    vars: {
      ENVIRONMENT: 'development',
      DATABASE_URL: workerDbUrl, // the loopback witness development requires; the Hyperdrive binding is what is used
      JWT_SECRET: DEVELOPMENT_JWT_SECRET,
      ...(values['memory-limiter'] ? {} : { UPSTASH_REDIS_REST_URL: ports.upstashUrl, UPSTASH_REDIS_REST_TOKEN: ports.upstashToken }),
      RATE_LIMIT_MULTIPLIER: String(RATE_LIMIT_MULTIPLIER),
    },
    // Profiles name functions and files only in an unminified bundle (profile.ts).
    extraArgs: values.profile ? ['--minify=false'] : [],
  });
  workers.push(ours);
  const bare = await startWorker({
    name: 'bare',
    root,
    dir,
    config: join(root, 'scripts', 'bench', 'bare-wrangler.toml'),
    hyperdriveUrl: workerDbUrl,
    // The same driver as the API, as the API configures it: one socket write per statement.
    vars: values['bare-plain'] ? {} : { COALESCE_WRITES: '1' },
    extraArgs: (await bareWorkerArgs()).filter((arg) => !(values.profile && arg === '--minify')),
  });
  workers.push(bare);
  const bareLimit = await startWorker({
    name: 'bare-limit',
    root,
    dir,
    config: join(root, 'scripts', 'bench', 'bare-wrangler.toml'),
    hyperdriveUrl: workerDbUrl,
    vars: {
      ...(values['bare-plain'] ? {} : { COALESCE_WRITES: '1' }),
      LIMIT: '1',
      UPSTASH_REDIS_REST_URL: ports.upstashUrl,
      UPSTASH_REDIS_REST_TOKEN: ports.upstashToken,
      RATE_LIMIT_MULTIPLIER: String(RATE_LIMIT_MULTIPLIER),
    },
    extraArgs: (await bareWorkerArgs()).filter((arg) => !(values.profile && arg === '--minify')),
  });
  workers.push(bareLimit);

  postgres = await postgresStarting;
  log(`database migrated and loaded with the demo data (${Math.round((Date.now() - started) / 1000)} s)`);
  // The refunds' paid orders are made while the Workers start: enough for every setting asked for.
  const benchDbUrl = `postgres://postgres:postgres@127.0.0.1:${pgPort}/${DATABASE}`;
  const refundsWanted = settings.length * (REFUNDS_WARM + countedRequests + rounds * CONCURRENCIES.length * REFUNDS_PER_CELL);
  const refundableSeeding = seedRefundableOrders(benchDbUrl, WRITE_CLINIC, refundsWanted);
  refundableSeeding.catch(() => {}); // awaited below; a failure meanwhile must not go unhandled

  const wanted = (setting: Setting) => settings.includes(setting);
  const pgbouncer = wanted('pooled') || wanted('distance') ? findOrInstallPgbouncer(log) : null;
  const poolerOptions = (serverPort: number, name: string) => {
    const poolerDir = join(dir, name);
    return {
      binary: pgbouncer!,
      dir: poolerDir,
      serverPort,
      database: DATABASE,
      user: 'postgres',
      password: 'postgres',
      poolSize: POOL_SIZE,
    };
  };
  let nearPooler: RunningPgbouncer | undefined;
  let farPooler: RunningPgbouncer | undefined;
  if (pgbouncer && wanted('pooled')) {
    mkdirSync(join(dir, 'pgbouncer-near'));
    nearPooler = await startPgbouncer(poolerOptions(pgPort, 'pgbouncer-near'));
    poolers.push(nearPooler);
  }
  if (pgbouncer && wanted('distance')) {
    mkdirSync(join(dir, 'pgbouncer-far'));
    farPooler = await startPgbouncer(poolerOptions(ports.pgDistantPort, 'pgbouncer-far'));
    poolers.push(farPooler);
  }
  const poolerName = pgbouncer ? `${pgbouncerVersion(pgbouncer)}, transaction mode, pool ${POOL_SIZE}` : '';

  await remote.adopt({
    groups: workers.map((worker) => worker.pgid),
    processes: [
      ...poolers.map((pooler) => ({ pid: pooler.pid, signal: 'SIGTERM' as const })),
      // postmaster.pid's first line: SIGINT is PostgreSQL's fast shutdown.
      { pid: Number(readFileSync(join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]), signal: 'SIGINT' as const },
    ],
    dir,
  });
  await remote.route(pgPort, false);
  await Promise.all([ours, bare, bareLimit].map((worker) => waitForHealth(worker, 180_000)));
  log(`the three Workers answer (${Math.round((Date.now() - started) / 1000)} s)`);
  if (process.env.BENCH_KEEP_NETWORK_INSPECTION !== '1')
    await Promise.all(workers.map((worker) => disableNetworkInspection(worker.inspectorPort)));

  const key = await createKey(ours.url);
  const listed = await fetch(`${ours.url}/api/v1/orders?limit=25`, { headers: { 'x-api-key': key } });
  const listBody = (await listed.json()) as { data: { id: string }[] };
  if (listed.status !== 200 || !listBody.data[0]) throw new Error(`GET /api/v1/orders answered ${listed.status}`);
  const policy = listed.headers.get('ratelimit-policy');
  if (!policy) throw new Error('the API answered without RateLimit-Policy: its rate limits are not in force');
  if (values['memory-limiter'])
    log('--memory-limiter: ours counts its rate limits in process, without Upstash (a diagnostic, not the deployed setup)');
  else
    log(`rate limits in force through the Upstash stand-in, raised ${RATE_LIMIT_MULTIPLIER}x for the bench (RateLimit-Policy: ${policy})`);
  const orderId = listBody.data[0].id;
  const paths: Record<RouteName, string> = { 'orders-list': '/api/v1/orders?limit=25', 'orders-get': `/api/v1/orders/${orderId}` };

  // The writes, on the second demo clinic (its new coupons, sessions and refunded orders never reach the
  // first clinic's pages that the reads measure): a secret key that may write, a publishable key
  // (checkout sessions only), one of its offered programs, the paid orders to refund.
  const writeKey = await createKey(ours.url, { scopes: ['read', 'write'] }, WRITE_LOGIN);
  const publishableKey = await createKey(ours.url, { kind: 'publishable' }, WRITE_LOGIN);
  const programId = await offeredProgramId(benchDbUrl, WRITE_CLINIC);
  const refundable = await refundableSeeding;
  log(`${refundable.length} paid orders made for the refund row (${REFUNDS_PER_CELL} refunds per timed cell at most)`);
  // Coupon codes are unique per clinic: the run's own prefix and a counter.
  const runTag = Date.now().toString(36);
  let written = 0;
  const couponBody = () => {
    written += 1;
    return JSON.stringify({ code: `B${runTag}${written.toString(36)}`.toUpperCase(), discountType: 'percent', discountValue: 10 });
  };
  const writes: Record<WriteName, WriteRoute> = {
    coupon: { path: '/api/v1/coupons', key: writeKey, next: () => ({ body: couponBody() }) },
    'coupon+idem-key': {
      path: '/api/v1/coupons',
      key: writeKey,
      next: () => ({ body: couponBody(), headers: { 'idempotency-key': crypto.randomUUID() } }),
    },
    'checkout-session': {
      path: '/api/v1/checkout/sessions',
      key: publishableKey,
      next: () => {
        written += 1;
        return { body: JSON.stringify({ programId, metadata: { cartId: `bench-${written}` } }) };
      },
    },
    refund: {
      path: '/api/v1/refunds',
      key: writeKey,
      next: () => {
        const orderId = refundable.pop();
        return orderId ? { body: JSON.stringify({ orderId, reason: 'Bench refund' }) } : undefined;
      },
    },
  };
  /** At most `limit` requests of `next` (refunds are bounded by the orders seeded for them). */
  const bounded = (next: () => WriteRequest | undefined, limit: number) => {
    let left = limit;
    return () => (left-- > 0 ? next() : undefined);
  };
  const writeLoad = (name: WriteName, concurrency: number, durationMs: number, refunds: number) =>
    runLoad({
      url: `${ours.url}${writes[name].path}`,
      headers: { 'x-api-key': writes[name].key },
      next: name === 'refund' ? bounded(writes.refund.next, refunds) : writes[name].next,
      concurrency,
      durationMs,
    });
  const endpoints: Endpoint[] = [
    { target: 'ours', url: ours.url, pgid: ours.pgid },
    { target: 'bare', url: bare.url, pgid: bare.pgid },
    { target: 'bare+limit', url: bareLimit.url, pgid: bareLimit.pgid },
  ];
  const headers = { 'x-api-key': key };
  // Both must answer the same data, or the comparison means nothing.
  for (const route of Object.keys(paths) as RouteName[]) {
    const answers = await Promise.all(
      endpoints.map(async ({ url }) => {
        const res = await fetch(`${url}${paths[route]}`, { headers });
        return { status: res.status, body: (await res.json()) as { data: unknown } };
      }),
    );
    const statuses = answers.map((a, i) => `${endpoints[i]!.target} ${a.status}`).join(', ');
    if (answers.some((a) => a.status !== 200)) throw new Error(`${route}: ${statuses}`);
    const size = (value: unknown) => JSON.stringify(value).length;
    log(
      `${route}: all answer 200, data ${answers.map((a) => size(a.body.data)).join(', ')} characters of JSON (${endpoints.map((e) => e.target).join(', ')})`,
    );
  }

  const results: SettingResult[] = [];
  const plan: { setting: Setting; dbPort: number; distant: boolean; description: string }[] = [];
  for (const setting of settings) {
    if (setting === 'direct') plan.push({ setting, dbPort: pgPort, distant: false, description: 'PostgreSQL over TCP, no pooler' });
    if (setting === 'pooled') {
      if (nearPooler) plan.push({ setting, dbPort: nearPooler.port, distant: false, description: `through ${poolerName}` });
      else log('pooled: skipped (no PgBouncer)');
    }
    if (setting === 'distance') {
      plan.push(
        farPooler
          ? {
              setting,
              dbPort: farPooler.port,
              distant: true,
              description: `through ${poolerName}, ${delayMs} ms each way between the pooler and PostgreSQL and between the Upstash stand-in and Redis`,
            }
          : {
              setting,
              dbPort: ports.pgDistantPort,
              distant: true,
              description: `no pooler (PgBouncer missing): ${delayMs} ms each way to PostgreSQL and between the Upstash stand-in and Redis`,
            },
      );
    }
  }

  for (const step of plan) {
    await remote.route(step.dbPort, step.distant);
    log(`${step.setting}: ${step.description}`);
    const result: SettingResult = { setting: step.setting, description: step.description, cells: [], counts: {} };
    // Warm-up: isolates, JIT, Redis scripts, the pooler's server connections.
    for (const endpoint of endpoints) {
      for (const route of Object.keys(paths) as RouteName[]) {
        await runLoad({ url: `${endpoint.url}${paths[route]}`, headers, concurrency: 10, durationMs: warmMs });
      }
    }
    if (values.profile && step === plan[0])
      await profileBoth(values.profile, [ours, bare, bareLimit], endpoints, paths['orders-list'], headers);
    // Counted, one request at a time: what each request sends and, at a distance, waits for.
    // The wait covers the request log: the Worker writes its batch up to 200 ms after the answer (WORKER_BATCHING).
    const settle = (step.distant ? 6 * delayMs : 0) + 150 + WORKER_BATCHING.flushAfterMs;
    for (const endpoint of endpoints) {
      for (const route of Object.keys(paths) as RouteName[]) {
        const counts: RequestCount[] = [];
        for (let i = 0; i < countedRequests; i++) {
          await remote.begin();
          const res = await fetch(`${endpoint.url}${paths[route]}`, { headers });
          const answered = performance.timeOrigin + performance.now();
          await res.arrayBuffer();
          await remote.end(answered);
          await sleep(settle);
          const count = await remote.report();
          counts.push(count);
          if (values.trace && step.distant && i === countedRequests - 1) printTrace(`${endpoint.target} ${route}`, count);
        }
        result.counts[`${endpoint.target} ${route}`] = averaged(counts);
      }
    }
    // The writes warmed only now, and their background work (request log, audit) let finish before counting.
    for (const name of WRITE_NAMES) await writeLoad(name, 10, warmMs, REFUNDS_WARM);
    await sleep(settle);
    for (const name of WRITE_NAMES) {
      const counts: RequestCount[] = [];
      for (let i = 0; i < countedRequests; i++) {
        const write = writes[name].next();
        if (!write) throw new Error(`${name}: no request left to count (the refundable orders are used up)`);
        await remote.begin();
        const res = await fetch(`${ours.url}${writes[name].path}`, {
          method: 'POST',
          headers: { 'x-api-key': writes[name].key, 'content-type': 'application/json', ...write.headers },
          body: write.body,
        });
        const answered = performance.timeOrigin + performance.now();
        const text = await res.text();
        await remote.end(answered);
        if (res.status !== 201) throw new Error(`${name}: POST ${writes[name].path} answered ${res.status}: ${text.slice(0, 300)}`);
        await sleep(settle);
        const count = await remote.report();
        counts.push(count);
        if (values.trace && step.distant && i === countedRequests - 1) printTrace(`ours ${name}`, count);
      }
      result.counts[`ours ${name}`] = averaged(counts);
    }
    // Timed: short cells, the three taking turns (the order rotates by round).
    const cells = new Map<string, Cell>();
    for (let round = 0; round < rounds; round++) {
      for (const route of Object.keys(paths) as RouteName[]) {
        for (const concurrency of CONCURRENCIES) {
          const order = endpoints.map((_, i) => endpoints[(i + round) % endpoints.length]!);
          for (const endpoint of order) {
            const id = `${route} ${concurrency} ${endpoint.target}`;
            let cell = cells.get(id);
            if (!cell) {
              cell = { setting: step.setting, route, concurrency, target: endpoint.target, runs: [], workerCpuMs: 0, regionCpuMs: 0 };
              cells.set(id, cell);
            }
            const workerCpu = groupCpuMs(endpoint.pgid, 'workerd');
            const regionCpu = processCpuMs(remote.pid);
            cell.runs.push(await runLoad({ url: `${endpoint.url}${paths[route]}`, headers, concurrency, durationMs: cellMs }));
            cell.workerCpuMs += groupCpuMs(endpoint.pgid, 'workerd') - workerCpu;
            cell.regionCpuMs += processCpuMs(remote.pid) - regionCpu;
          }
        }
      }
    }
    // Writes, ours only, in the same rounds' manner (after the reads: a write's rows never change a read's page).
    for (let round = 0; round < rounds; round++) {
      for (const name of WRITE_NAMES) {
        for (const concurrency of CONCURRENCIES) {
          const id = `${name} ${concurrency} ours`;
          let cell = cells.get(id);
          if (!cell) {
            cell = { setting: step.setting, route: name, concurrency, target: 'ours', runs: [], workerCpuMs: 0, regionCpuMs: 0 };
            cells.set(id, cell);
          }
          const workerCpu = groupCpuMs(ours.pgid, 'workerd');
          const regionCpu = processCpuMs(remote.pid);
          cell.runs.push(await writeLoad(name, concurrency, cellMs, REFUNDS_PER_CELL));
          cell.workerCpuMs += groupCpuMs(ours.pgid, 'workerd') - workerCpu;
          cell.regionCpuMs += processCpuMs(remote.pid) - regionCpu;
        }
      }
    }
    result.cells = [...cells.values()];
    results.push(result);
    printSetting(result);
  }

  printSummary(results);
  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          options: { rounds, cellMs, delayMs, settings },
          results: results.map((r) => ({
            setting: r.setting,
            description: r.description,
            counts: r.counts,
            cells: r.cells.map((c) => ({
              route: c.route,
              concurrency: c.concurrency,
              target: c.target,
              ...summarize(c.runs),
              cpuMsPerRequest: cpuPerRequest(r, c.route, c.concurrency, c.target),
            })),
          })),
        },
        null,
        2,
      )}\n`,
    );
    log(`results written to ${values.json}`);
  }
  log(`done in ${Math.round((Date.now() - started) / 1000)} s`);
  const pooled = results.find((r) => r.setting === 'pooled');
  const ratioFrom = pooled ?? results.find((r) => r.setting === 'direct');
  if (!pooled) console.log('[bench] no pooled setting was measured: the ratio below is NOT the pooled one');
  const ratio = (peer: Peer) => (ratioFrom ? throughputRatio(ratioFrom, 'orders-list', 10, peer) : Number.NaN);
  console.log(`orders-list ratio ours/bare: ${fmt(ratio('bare'), 3)}`);
  console.log(`orders-list ratio ours/bare+limit: ${fmt(ratio('bare+limit'), 3)}`);
  if (!pooled) process.exitCode = 3;
}

/** CPU profiles of both Workers under the orders-list load at concurrency 10 (--profile), one after the other. */
async function profileBoth(
  dir: string,
  processes: WorkerProcess[],
  endpoints: Endpoint[],
  path: string,
  headers: Record<string, string>,
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const durationMs = Math.max(3000, cellMs);
  for (const [i, endpoint] of endpoints.entries()) {
    let requests = 0;
    const profile = await profileWorker(endpoint.target, processes[i]!.inspectorPort, dir, async () => {
      const run = await runLoad({ url: `${endpoint.url}${path}`, headers, concurrency: 10, durationMs });
      requests = run.requests;
    });
    const { total, byFunction, byPackage } = summarizeProfile(profile);
    const perRequest = (us: number) => `${fmt(us / Math.max(1, requests), 0)} µs`;
    console.log(`\n== profile: ${endpoint.target}, ${path}, c=10, ${requests} requests: ${perRequest(total)} of JS self time per request`);
    console.log(`   (${join(dir, `${endpoint.target}.cpuprofile`)}; µs per request, sampled, (program) and (idle) left out)`);
    console.log(table([['by file or package', 'µs/req'], ...byPackage.map(([name, us]) => [name, perRequest(us)])]));
    console.log(table([['by function', 'µs/req'], ...byFunction.map(([name, us]) => [name, perRequest(us)])]));
  }
}

function cellSummary(result: SettingResult, route: RouteName | WriteName, concurrency: number, target: Target): LoadSummary | undefined {
  const cell = result.cells.find((c) => c.route === route && c.concurrency === concurrency && c.target === target);
  return cell ? summarize(cell.runs) : undefined;
}

/** CPU ms per request of the Worker (workerd) and of the region process. */
function cpuPerRequest(
  result: SettingResult,
  route: RouteName | WriteName,
  concurrency: number,
  target: Target,
): { worker: number; region: number } {
  const cell = result.cells.find((c) => c.route === route && c.concurrency === concurrency && c.target === target);
  const requests = cell ? cell.runs.reduce((sum, run) => sum + run.requests, 0) : 0;
  return requests > 0
    ? { worker: cell!.workerCpuMs / requests, region: cell!.regionCpuMs / requests }
    : { worker: Number.NaN, region: Number.NaN };
}

function throughputRatio(result: SettingResult, route: RouteName, concurrency: number, peer: Peer): number {
  const ours = cellSummary(result, route, concurrency, 'ours');
  const bare = cellSummary(result, route, concurrency, peer);
  return ours && bare && bare.rps > 0 ? ours.rps / bare.rps : Number.NaN;
}

function describeCount(count: PerRequest | undefined, distant: boolean, write = false): string {
  if (!count) return '-';
  const kinds = new Map<string, number>();
  for (const sql of count.sql) kinds.set(statementKind(sql, write), (kinds.get(statementKind(sql, write)) ?? 0) + 1);
  const parts = [
    `${fmt(count.connections, 1)} db connection(s)`,
    `${fmt(count.statements, 1)} statement(s) [${[...kinds].map(([kind, n]) => (n > 1 ? `${kind} x${n}` : kind)).join(', ')}]`,
    `${fmt(count.redisCommands, 1)} Redis command(s)`,
  ];
  if (distant) {
    parts.push(
      `${fmt(count.sequentialRoundTrips, 1)} sequential remote round trip(s) before the answer (the limiter's ${fmt(count.limiterRoundTrips, 1)}; ${fmt(count.roundTrips, 1)} in all, parallel ones included), ${fmt(count.roundTripsAfter, 1)} after it`,
    );
  }
  return parts.join(', ');
}

/** The round trips of one counted request, in ms from its start (--trace). */
function printTrace(name: string, count: RequestCount): void {
  console.log(`[bench] trace of ${name} (answer at ${fmt(count.answeredAt)} ms):`);
  for (const turn of count.timeline) {
    console.log(`    ${pad(turn.via, 9)} ${pad(turn.kind, 9)} ${pad(fmt(turn.start), 7)} -> ${fmt(turn.end)} ms`);
  }
}

function printSetting(result: SettingResult): void {
  const distant = result.setting === 'distance';
  const rows: string[][] = [
    [
      'route',
      'c',
      'peer (p)',
      'ours req/s',
      'p req/s',
      'ours/p',
      'ours p50',
      'p p50',
      'ours p99',
      'p p99',
      'workerd CPU/req o/p',
      'region CPU/req o/p',
      'errors o/p',
    ],
  ];
  for (const route of ['orders-list', 'orders-get'] as RouteName[]) {
    for (const concurrency of CONCURRENCIES) {
      for (const peer of PEERS) {
        const ours = cellSummary(result, route, concurrency, 'ours');
        const bare = cellSummary(result, route, concurrency, peer);
        if (!ours || !bare) continue;
        const oursCpu = cpuPerRequest(result, route, concurrency, 'ours');
        const bareCpu = cpuPerRequest(result, route, concurrency, peer);
        rows.push([
          route,
          String(concurrency),
          peer,
          fmt(ours.rps),
          fmt(bare.rps),
          fmt(throughputRatio(result, route, concurrency, peer), 2),
          `${fmt(ours.p50)} ms`,
          `${fmt(bare.p50)} ms`,
          `${fmt(ours.p99)} ms`,
          `${fmt(bare.p99)} ms`,
          `${fmt(oursCpu.worker, 2)}/${fmt(bareCpu.worker, 2)} ms`,
          `${fmt(oursCpu.region, 2)}/${fmt(bareCpu.region, 2)} ms`,
          `${ours.errors}/${bare.errors}`,
        ]);
      }
    }
  }
  console.log(`\n== ${result.setting}: ${result.description}`);
  console.log(table(rows));
  console.log('per request (one at a time):');
  for (const route of ['orders-list', 'orders-get'] as RouteName[]) {
    for (const target of ['ours', ...PEERS] as Target[]) {
      console.log(`  ${pad(route, 12)} ${target}: ${describeCount(result.counts[`${target} ${route}`], distant)}`);
    }
  }
  const writeRows: string[][] = [['write (ours)', 'c', 'req/s', 'p50', 'p99', 'workerd CPU/req', 'region CPU/req', 'errors']];
  for (const name of WRITE_NAMES) {
    for (const concurrency of CONCURRENCIES) {
      const ours = cellSummary(result, name, concurrency, 'ours');
      if (!ours) continue;
      const cpu = cpuPerRequest(result, name, concurrency, 'ours');
      writeRows.push([
        name,
        String(concurrency),
        fmt(ours.rps),
        `${fmt(ours.p50)} ms`,
        `${fmt(ours.p99)} ms`,
        `${fmt(cpu.worker, 2)} ms`,
        `${fmt(cpu.region, 2)} ms`,
        `${ours.errors} of ${ours.requests}`,
      ]);
    }
  }
  console.log(`writes, ours only (the bare Worker has no write routes; refunds: at most ${REFUNDS_PER_CELL} per cell):`);
  console.log(table(writeRows));
  console.log('per write (one at a time; route = its statements, BEGIN and COMMIT included):');
  for (const name of WRITE_NAMES) {
    const count = result.counts[`ours ${name}`];
    console.log(`  ${pad(name, 16)} ours: ${describeCount(count, distant, true)}`);
    const tested = WRITE_TRIPS_TESTED[name];
    if (distant && count && tested !== undefined && count.sequentialRoundTrips > tested)
      console.log(
        `  NOTE: ${name} took ${fmt(count.sequentialRoundTrips, 1)} sequential round trips; test/api/platform/write-round-trips.test.ts asserts ${tested}`,
      );
  }
  const oursSql = new Set(
    Object.entries(result.counts).flatMap(([name, count]) => (name === 'ours orders-list' || name === 'ours orders-get' ? count.sql : [])),
  );
  // The routes' statements only: a key lookup the API skips (a warm key cache) is shown in the counts above.
  const missing = [ORDERS_PAGE, ORDER_DETAIL].filter((sql) => !oursSql.has(sql));
  if (missing.length > 0) {
    console.log(
      `  NOTE: the API no longer sends ${missing.length} of the bare Worker's route statements (scripts/bench/bare-sql.ts); it sends:\n${[...oursSql].map((sql) => `    ${sql.replace(/\s+/g, ' ').trim().slice(0, 160)}`).join('\n')}`,
    );
  }
}

function printSummary(results: SettingResult[]): void {
  const rows: string[][] = [['setting', 'route', 'c', 'peer (p)', 'ours/p req/s', 'p50 ours-p', 'workerd CPU/req ours/p']];
  for (const result of results) {
    for (const route of ['orders-list', 'orders-get'] as RouteName[]) {
      for (const concurrency of CONCURRENCIES) {
        for (const peer of PEERS) {
          const ours = cellSummary(result, route, concurrency, 'ours');
          const bare = cellSummary(result, route, concurrency, peer);
          if (!ours || !bare) continue;
          const diff = ours.p50 - bare.p50;
          rows.push([
            result.setting,
            route,
            String(concurrency),
            peer,
            fmt(throughputRatio(result, route, concurrency, peer), 2),
            `${diff >= 0 ? '+' : ''}${fmt(diff)} ms`,
            fmt(cpuPerRequest(result, route, concurrency, 'ours').worker / cpuPerRequest(result, route, concurrency, peer).worker, 2),
          ]);
        }
      }
    }
  }
  console.log('\n== summary (the machine may be shared: compare ratios, not absolute figures)');
  console.log(table(rows));
  const distance = results.find((r) => r.setting === 'distance');
  if (distance) {
    const trips = (target: Target, route: RouteName) => distance.counts[`${target} ${route}`]?.sequentialRoundTrips ?? Number.NaN;
    console.log(
      `sequential remote round trips per write (distance, ours): ${WRITE_NAMES.map((name) => `${name} ${fmt(distance.counts[`ours ${name}`]?.sequentialRoundTrips ?? Number.NaN)}`).join(', ')}`,
    );
    console.log(
      `sequential remote round trips per request (distance): orders-list ours ${fmt(trips('ours', 'orders-list'))}, bare ${fmt(trips('bare', 'orders-list'))}, bare+limit ${fmt(trips('bare+limit', 'orders-list'))}; orders-get ours ${fmt(trips('ours', 'orders-get'))}, bare ${fmt(trips('bare', 'orders-get'))}, bare+limit ${fmt(trips('bare+limit', 'orders-get'))}`,
    );
  }
}

try {
  await main();
} catch (error) {
  console.error(`[bench] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
