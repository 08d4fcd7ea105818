// npm run dev — the API in workerd (wrangler dev) on http://127.0.0.1:8787, backed by an embedded
// PostgreSQL 17 in .data/postgres (or by DATABASE_URL), migrated and loaded with demo data. wrangler
// listens on a private port behind a front of ours on PORT (scripts/lib/dev-front.ts: complete requests
// only, and answers in the envelope where wrangler's proxy would answer in plain text).
// Env: DATABASE_URL, DEV_DATABASE_PORT (54329), PORT (8787), JWT_SECRET, DEV_DATA_DIR (see dataDirs).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEVELOPMENT_JWT_SECRET } from '../src/config';
import { maxBodyBytes } from '../src/platform/http/body-limit';
import { connect, ensureDatabase } from './lib/database';
import { type DevFront, startDevFront } from './lib/dev-front';
import { freePort, isPortFree, type RunningPostgres, startEmbeddedPostgres } from './lib/embedded-postgres';
import { migrateDatabase } from './lib/migrations';
import { DEMO_LOGINS, DEMO_PASSWORD, seedDemoData } from './seed';
import { STOREFRONT_SEED_OBJECTS } from './seed/storefront-pages';

const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const port = Number(process.env.PORT ?? 8787);
const databasePort = Number(process.env.DEV_DATABASE_PORT ?? 54329);
const baseUrl = `http://127.0.0.1:${port}`;
/**
 * Where the embedded PostgreSQL and wrangler's local state (the R2 bucket) live. By default
 * .data/postgres and wrangler's own .wrangler/state; DEV_DATA_DIR puts both under one folder, so a
 * second dev server (test/integration/dev-server.test.ts) shares nothing with the developer's.
 */
const dataDirs = process.env.DEV_DATA_DIR
  ? { postgres: join(resolve(process.env.DEV_DATA_DIR), 'postgres'), wrangler: join(resolve(process.env.DEV_DATA_DIR), 'wrangler') }
  : { postgres: join(root, '.data', 'postgres'), wrangler: undefined };
const persistTo = dataDirs.wrangler ? ['--persist-to', dataDirs.wrangler] : [];
const HEALTH_TIMEOUT_MS = 120_000;
/**
 * The dev server is one workerd isolate: its connection gate lets DEV_GATE_CONNECTIONS requests hold a
 * connection at once and queues the rest, well inside PostgreSQL's limit (which also serves psql,
 * migrations and seeding). A burst larger than the gate waits instead of failing.
 */
const DEV_POSTGRES_MAX_CONNECTIONS = 100;
const DEV_GATE_CONNECTIONS = 40;

let postgres: RunningPostgres | undefined;
let wrangler: ChildProcess | undefined;
let front: DevFront | undefined;
let stopping = false;

// embedded-postgres installs async-exit-hook, whose SIGINT/SIGTERM handler stops PostgreSQL and exits
// at once, before wrangler is down: the signals are ours (shutdown() stops PostgreSQL).
const exitHook = createRequire(import.meta.resolve('embedded-postgres'))('async-exit-hook') as { unhookEvent(event: string): void };
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  exitHook.unhookEvent(signal);
  process.on(signal, () => void shutdown(0, `${signal} received`));
}

/** Parent pid of another process; undefined once it is gone. Asynchronous, so a signal is never held up. */
async function parentOf(pid: number): Promise<number | undefined> {
  try {
    return Number((await execFileAsync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' })).stdout.trim());
  } catch {
    return undefined;
  }
}

// `npm run dev` starts sh -c → node with tsx as a loader → this script. (Not the tsx command: its signal
// relay SIGKILLs a child that does not acknowledge a Ctrl-C within 30 ms, which orphaned wrangler on a
// busy machine.) A SIGTERM sent to npm alone kills npm and sh without reaching us, so watch our
// launcher: once our parent or its parent changes, shut down. A Ctrl-C ends npm and reaches us at the
// same moment: its handler gets the first word (a clean stop, exit code 0).
const launcher = { parent: process.ppid, grandparent: await parentOf(process.ppid) };
setInterval(async () => {
  if (process.ppid !== launcher.parent || (await parentOf(launcher.parent)) !== launcher.grandparent) {
    setTimeout(() => void shutdown(1, 'the process that started `npm run dev` has exited'), 250);
  }
}, 1_000).unref();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** True while any process of the group (wrangler and the workerd it spawned) is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/** SIGTERM to wrangler's process group, SIGKILL to whatever is left after 5 s. */
async function stopWrangler(): Promise<void> {
  const pgid = wrangler?.pid;
  if (!pgid) return;
  signalGroup(pgid, 'SIGTERM');
  for (let waited = 0; groupAlive(pgid) && waited < 5_000; waited += 100) await sleep(100);
  if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
}

async function shutdown(code: number, reason?: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (reason) console.log(`\n[dev] ${reason}; stopping…`);
  await front?.close();
  await stopWrangler();
  await postgres?.stop().catch((error: unknown) => console.error('[dev] stopping PostgreSQL failed:', error));
  console.log(`[dev] Stopped${code === 0 ? '' : ` (exit code ${code})`}.`);
  process.exit(code);
}

/** The database to use, reachable: the embedded PostgreSQL started (or DATABASE_URL), brand_admin created. */
async function startDatabase(): Promise<string> {
  if (process.env.ENVIRONMENT === 'production') throw new Error('Refusing to load demo data with ENVIRONMENT=production.');
  let url = process.env.DATABASE_URL;
  if (url) {
    console.log(`[dev] Using DATABASE_URL (${new URL(url).host}).`);
  } else {
    const dataDir = dataDirs.postgres;
    console.log(`[dev] Starting PostgreSQL 17 on 127.0.0.1:${databasePort} (data in ${dataDir})…`);
    postgres = await startEmbeddedPostgres({ dataDir, port: databasePort, persistent: true, maxConnections: DEV_POSTGRES_MAX_CONNECTIONS });
    const target = new URL(postgres.url);
    target.pathname = '/brand_admin';
    url = target.toString();
  }
  try {
    await ensureDatabase(url);
  } catch (error) {
    if (postgres) throw error;
    // A hosted DATABASE_URL may not allow connecting to its `postgres` database; migrate says if ours is missing.
    console.warn(`[dev] Could not check that the database exists (${String(error)}); continuing.`);
  }
  return url;
}

async function loadDatabase(url: string): Promise<void> {
  await migrateDatabase(url);
  const { db, close } = connect(url, 1);
  try {
    await seedDemoData(db);
  } finally {
    await close();
  }
  console.log('[dev] Migrations applied, demo data loaded.');
}

/** The UPLOADS bucket of wrangler.toml. */
const UPLOADS_BUCKET = 'brand-admin-uploads';

/**
 * The seeded storefront images (logos, heroes) into the local R2 bucket `wrangler dev --local` serves,
 * so GET /api/v1/custom-website/logo-proxy streams real bytes for the demo clinics. Overwrites each
 * run; a failure only warns (the API still runs; the proxy then answers 404 for those logos). Runs
 * while the database is prepared: neither needs the other.
 */
async function putSeedObjects(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'brand-admin-seed-'));
  try {
    // One `wrangler r2 bulk put` per content type (each wrangler start costs seconds), not one per object.
    const byType = new Map<string, { key: string; file: string }[]>();
    STOREFRONT_SEED_OBJECTS.forEach((object, i) => {
      const file = join(dir, `object-${i}`);
      writeFileSync(file, object.bytes);
      byType.set(object.contentType, [...(byType.get(object.contentType) ?? []), { key: object.key, file }]);
    });
    for (const [contentType, entries] of byType) {
      const list = join(dir, 'objects.json');
      writeFileSync(list, JSON.stringify(entries));
      await execFileAsync(
        process.execPath,
        [
          join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
          'r2',
          'bulk',
          'put',
          UPLOADS_BUCKET,
          '--local',
          '--filename',
          list,
          '--content-type',
          contentType,
          ...persistTo,
        ],
        { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_SEND_ERROR_REPORTS: 'false' } },
      );
    }
    console.log(`[dev] ${STOREFRONT_SEED_OBJECTS.length} demo images stored in the local ${UPLOADS_BUCKET} bucket.`);
  } catch (error) {
    console.warn(`[dev] Could not store the demo images in the local bucket (${String(error)}); logo-proxy answers 404 for them.`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function startWrangler(databaseUrl: string, wranglerPort: number): ChildProcess {
  const vars = {
    ENVIRONMENT: 'development',
    DATABASE_URL: databaseUrl,
    DATABASE_MAX_CONNECTIONS: String(DEV_GATE_CONNECTIONS),
    // The embedded database goes through the HYPERDRIVE binding, as production does (wrangler 4.87+ no
    // longer pipes a database without TLS through its crash-prone local proxy). A DATABASE_URL of yours
    // is reached straight with node-postgres: it may use TLS, which still goes through that proxy
    // (cloudflare/workers-sdk#15768), or have no password, which wrangler refuses for a binding.
    ...(process.env.DATABASE_URL ? { DATABASE_BYPASS_HYPERDRIVE: 'true' } : {}),
    JWT_SECRET: process.env.JWT_SECRET ?? DEVELOPMENT_JWT_SECRET,
    DEV_SIMULATOR: 'true', // mounts /_dev (docs/order-lifecycle.md); never set in wrangler.toml
    WEBHOOK_ALLOW_INSECURE_LOCALHOST: 'true', // http://127.0.0.1:PORT webhook receivers (docs/webhooks.md)
  };
  const child = spawn(
    process.execPath,
    [
      join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
      'dev',
      '--local',
      '--ip',
      '127.0.0.1',
      '--port',
      String(wranglerPort),
      '--show-interactive-dev-session=false',
      // wrangler's info lines include every request's URL as typed (`GET /api/v1/orders/<what a client
      // typed> 404`), which may name a patient (issue 37): only its warnings and errors, and the Worker's
      // own log lines, are printed (docs/request-logs.md, "What is never logged").
      '--log-level',
      'warn',
      '--test-scheduled',
      ...persistTo,
      // --var overrides [vars] in wrangler.toml; a developer's own .dev.vars (e.g. Upstash) still loads.
      ...Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
    ],
    {
      cwd: root,
      // Its own process group, so shutdown reaches workerd too and a terminal Ctrl-C goes through us.
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: 'false',
        WRANGLER_SEND_ERROR_REPORTS: 'false',
        CLOUDFLARE_CF_FETCH_ENABLED: 'false', // no download of request.cf data; a built-in sample is used
        // The HYPERDRIVE binding's local database (wrangler needs one even when the Worker bypasses it).
        CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_HYPERDRIVE: databaseUrl,
      },
    },
  );
  child.on('exit', (code, signal) => {
    if (stopping) return;
    // Said loudly: without wrangler the API is gone, and a PostgreSQL left running alone would look alive.
    console.error(
      `\n[dev] wrangler dev exited unexpectedly (${signal ?? `code ${code}`}): the API on ${baseUrl} is down (anything it printed about why is above).` +
        ` Stopping${postgres ? ' the embedded PostgreSQL' : ''} too; run \`npm run dev\` again to restart.`,
    );
    void shutdown(code || 1);
  });
  return child;
}

async function waitForHealth(child: ChildProcess): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  let last = 'no answer yet';
  while (Date.now() < deadline && isRunning(child)) {
    try {
      const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(5_000) });
      if (response.status === 200) return;
      last = `HTTP ${response.status}: ${(await response.text()).slice(0, 200)}`;
    } catch (error) {
      last = String(error);
    }
    await sleep(500);
  }
  if (isRunning(child)) throw new Error(`${baseUrl}/healthz did not answer 200 within ${HEALTH_TIMEOUT_MS / 1000} s (last: ${last})`);
  await new Promise(() => {}); // wrangler exited: its exit handler is already shutting down
}

function printBanner(): void {
  const owner = DEMO_LOGINS[0].email;
  const lines = [
    '',
    '──────────────────────────────────────────────────────────────────────',
    `  Brand Admin API   ${baseUrl}`,
    `  Docs              ${baseUrl}/docs`,
    '',
    `  Demo logins (password: ${DEMO_PASSWORD})`,
    ...DEMO_LOGINS.map((login) => `    ${login.email.padEnd(28)} ${login.clinic} — ${login.state}, ${login.plan}`),
    '',
    '  Try it:',
    `    TOKEN=$(curl -s ${baseUrl}/auth/signin -H 'content-type: application/json' -d '{"email":"${owner}","password":"${DEMO_PASSWORD}"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).data.token')`,
    `    KEY=$(curl -s ${baseUrl}/api-keys -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"name":"dev","scopes":["read","write"]}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).data.apiKey')`,
    `    curl -s ${baseUrl}/api/v1/me -H "x-api-key: $KEY"`,
    '',
    `  Cron sweeps: curl ${baseUrl}/__scheduled     Stop: Ctrl-C`,
    '──────────────────────────────────────────────────────────────────────',
    '',
  ];
  console.log(lines.join('\n'));
}

try {
  // Checked first: a wrangler left over from an earlier run would otherwise answer our health check.
  if (!(await isPortFree(port))) {
    throw new Error(
      `Port ${port} on 127.0.0.1 is already in use, probably by a wrangler dev from an earlier run (look for it with: ps aux | grep wrangler). Stop it, or set PORT.`,
    );
  }
  // Three slow starts overlap: the demo images (before wrangler, which serves their bucket), the
  // migrations and demo data, and wrangler itself (no request reaches it before the banner).
  // The front takes PORT at once; wrangler gets a private port behind it. Until wrangler answers, the
  // front answers 503 SERVICE_UNAVAILABLE.
  const wranglerPort = await freePort();
  front = await startDevFront({ port, target: wranglerPort, maxBodyBytes });
  const images = putSeedObjects();
  const databaseUrl = await startDatabase();
  const loaded = loadDatabase(databaseUrl);
  loaded.catch(() => {}); // awaited below; a failure must not count as unhandled while wrangler starts
  await images;
  if (!stopping) wrangler = startWrangler(databaseUrl, wranglerPort);
  await loaded;
  if (!stopping && wrangler) {
    await waitForHealth(wrangler);
    printBanner();
  }
} catch (error) {
  console.error(`[dev] ${error instanceof Error ? error.message : String(error)}`);
  await shutdown(1);
}
