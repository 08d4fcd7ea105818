// `npm run dev` as a developer runs it (scripts/dev.ts: embedded PostgreSQL, migrations, demo data,
// `wrangler dev`), on free ports and in a data folder of its own; then the README's first steps (sign
// in, create keys) and 3 keys x 50 parallel writes. Most of them race for one coupon code: each losing
// insert fails with a unique violation and its connection is closed right after the error, which now
// and then resets the socket. Through wrangler's local Hyperdrive proxy one such reset killed wrangler
// (issue 16, item 6). A reset is a matter of timing (about 1 close in 75 in one measurement, fewer on
// a loaded machine), so against that setup this run failed about one time in three, not every time.
// Every write must answer with the envelope, the server must still answer afterwards, and Ctrl-C must
// stop wrangler and PostgreSQL. Between the two, the transport fuzz (issue 26): chunked bodies on every
// method, GET and HEAD included; malformed chunk framing and bodies shorter than declared, over raw
// sockets; bodies over the limit; clients that leave mid-body. Skipped, with a message, only when
// workerd cannot run here.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, isPortFree } from '../../scripts/lib/embedded-postgres';
import { DEMO_LOGINS, DEMO_PASSWORD } from '../../scripts/seed';
import { OVER_ANY_LIMIT, OVER_JSON_LIMIT, transportFuzz } from '../helpers/transport-fuzz';
import { workerdProblem } from '../helpers/workerd';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Keys, each firing WRITES_PER_KEY writes at once (a key may burst 100 requests per 10 s). */
const KEYS = 3;
const WRITES_PER_KEY = 50;
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 20_000;

/** Every process below pid (wrangler runs in a process group of its own, so a group signal misses it). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const line of execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' }).trim().split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number) as [number, number];
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length; ) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

const problem = workerdProblem();
if (problem) console.warn(`[dev-server.test] SKIPPED: workerd cannot run on this machine, so wrangler dev cannot start (${problem}).`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  i: number;
  status: number;
  success?: unknown;
  code?: string;
  error?: string;
}

describe.skipIf(problem !== null)(`npm run dev under ${KEYS * WRITES_PER_KEY} parallel writes`, () => {
  let dev: ChildProcess;
  let closed: Promise<void>;
  let gone = false;
  let output = '';
  let dataDir: string;
  let port: number;
  let databasePort: number;
  let base: string;
  let token: string;
  const keys: string[] = [];

  const running = () => !gone;
  const tail = () => output.slice(-3000);

  beforeAll(async () => {
    port = await freePort();
    databasePort = await freePort();
    base = `http://127.0.0.1:${port}`;
    dataDir = mkdtempSync(join(tmpdir(), 'brand-admin-dev-server-'));
    chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as `postgres`, which must enter this folder
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DEV_DATABASE_PORT: String(databasePort), DEV_DATA_DIR: dataDir };
    delete env.DATABASE_URL; // the embedded PostgreSQL, as on a fresh checkout
    // Its own process group: Ctrl-C in a terminal signals the whole group, and so does the test.
    dev = spawn('npm', ['run', 'dev'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    // 'close': npm has exited AND every process that shares its output (dev.ts, wrangler, workerd) is gone.
    closed = new Promise((resolve) => dev.once('close', () => resolve()));
    void closed.then(() => (gone = true));
    dev.stdout!.on('data', (chunk) => (output += chunk));
    dev.stderr!.on('data', (chunk) => (output += chunk));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!output.includes('Brand Admin API') && running() && Date.now() < deadline) await sleep(250);
    if (!output.includes('Brand Admin API')) throw new Error(`npm run dev did not come up:\n${tail()}`);

    // The README's first steps: sign in, create a read-write key, call /api/v1/me.
    const signIn = await fetch(`${base}/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: DEMO_LOGINS[0].email, password: DEMO_PASSWORD }),
    });
    expect(signIn.status).toBe(200);
    ({ token } = ((await signIn.json()) as { data: { token: string } }).data);
    for (let k = 0; k < KEYS; k++) {
      const created = await fetch(`${base}/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `dev-server test ${k}`, scopes: ['read', 'write'] }),
      });
      expect(created.status).toBe(201);
      keys.push(((await created.json()) as { data: { apiKey: string } }).data.apiKey);
    }
    const me = await fetch(`${base}/api/v1/me`, { headers: { 'x-api-key': keys[0]! } });
    expect(me.status).toBe(200);
    // The seeded logo, put in the local bucket before wrangler started, is what wrangler dev serves.
    const logo = await fetch(`${base}/api/v1/custom-website/logo-proxy`, { headers: { 'x-api-key': keys[0]! } });
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect((await logo.arrayBuffer()).byteLength).toBeGreaterThan(0);
  }, START_TIMEOUT_MS + 20_000);

  afterAll(async () => {
    // Normally stopped by the last test; if a test failed first, stop it the same way, then harder.
    if (dev && running()) {
      const left = descendants(dev.pid!);
      process.kill(-dev.pid!, 'SIGINT');
      await Promise.race([closed, sleep(STOP_TIMEOUT_MS)]);
      for (const pid of [dev.pid!, ...left]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, STOP_TIMEOUT_MS + 10_000);

  it('answers every write with the envelope, never a dropped connection, and stays up', async () => {
    const shared = `RACE${Date.now().toString(36)}`.toUpperCase();
    // Four in five race for one code (each loser's connection closes right after its error), the rest have their own.
    const racing = (i: number) => i % 5 !== 0;
    const write = async (i: number): Promise<Answer> => {
      try {
        const response = await fetch(`${base}/api/v1/coupons`, {
          method: 'POST',
          headers: { 'x-api-key': keys[i % KEYS]!, 'content-type': 'application/json' },
          body: JSON.stringify({ code: racing(i) ? shared : `${shared}_${i}`, discountType: 'percent', discountValue: 10 }),
          signal: AbortSignal.timeout(45_000),
        });
        const body = (await response.json()) as { success?: unknown; code?: string };
        return { i, status: response.status, success: body.success, code: body.code };
      } catch (error) {
        return { i, status: 0, error: String((error as { cause?: unknown }).cause ?? error) };
      }
    };
    const results = await Promise.all(Array.from({ length: KEYS * WRITES_PER_KEY }, (_, i) => write(i)));

    const dropped = results.filter((r) => r.status === 0);
    expect(dropped, `dropped connections; dev server output:\n${tail()}`).toEqual([]);
    for (const r of results) {
      expect(r.status === 503 || (r.status >= 200 && r.status < 500), `write ${r.i}: HTTP ${r.status}`).toBe(true);
      expect(r.success, `write ${r.i}: envelope`).toBe(r.status < 300);
    }
    // The race itself stays exact: one code, at most one coupon; the losers hear 409 CONFLICT.
    const racers = results.filter((r) => racing(r.i));
    expect(racers.filter((r) => r.status === 201).length).toBeLessThanOrEqual(1);
    expect(racers.filter((r) => r.status !== 201 && r.status !== 503).every((r) => r.status === 409 && r.code === 'CONFLICT')).toBe(true);
    expect(results.filter((r) => !racing(r.i)).every((r) => r.status === 201 || r.status === 503)).toBe(true);

    // Still alive: the coupons written are there to read.
    await sleep(500); // a crash after the last answer (a socket reset while closing) shows within this
    expect(running(), `npm run dev exited:\n${tail()}`).toBe(true);
    const list = await fetch(`${base}/api/v1/coupons?limit=200`, { headers: { 'x-api-key': keys[0]! } });
    expect(list.status).toBe(200);
    const listed = ((await list.json()) as { data: { code: string }[] }).data.filter((c) => c.code.startsWith(shared));
    expect(listed.length).toBe(results.filter((r) => r.status === 201).length);
    expect(output).not.toMatch(/ECONNRESET|exited unexpectedly/);
  }, 90_000);

  it('answers chunked, malformed, oversized and abandoned requests in the envelope, never with a 5xx', async () => {
    const created = await fetch(`${base}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'transport fuzz', scopes: ['read', 'write'] }),
    });
    expect(created.status).toBe(201);
    const key = ((await created.json()) as { data: { apiKey: string } }).data.apiKey;
    const from = output.length;

    const { answers, abandoned, problems, counts, ms } = await transportFuzz(port, key);
    const summary = [...counts]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${n} x ${status}`)
      .join(', ');
    console.log(
      `[dev-server.test] transport fuzz: ${answers.length} requests, ${answers.filter((a) => a.answer).length} answered (${summary}), ` +
        `${abandoned} more abandoned mid-body; ` +
        `${problems.length} outside the envelope, 5xx or unanswered; ${ms} ms`,
    );
    expect(problems).toEqual([]);
    // A chunked GET or HEAD is answered as if it had no body; bodies over the limit are refused as such.
    const statusOf = (name: string) => answers.find((a) => a.c.name === name)?.answer?.status;
    expect(statusOf('GET /healthz chunked')).toBe(200);
    expect(statusOf('HEAD /healthz chunked')).toBe(200);
    expect(statusOf('GET /api/v1/me chunked')).toBe(200);
    expect(statusOf('GET /no-such-path chunked')).toBe(404);
    expect(statusOf('POST /api/v1/coupons chunked (a real write)')).toBe(201);
    expect(statusOf(`GET ${OVER_JSON_LIMIT} bytes chunked`)).toBe(200);
    expect(statusOf(`GET ${OVER_ANY_LIMIT} bytes chunked`)).toBe(200);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) expect(statusOf(`${method} ${OVER_JSON_LIMIT} bytes chunked`)).toBe(413);
    expect(statusOf(`POST ${OVER_ANY_LIMIT} bytes chunked`)).toBe(413);

    // Still up, and quiet: no error-level line, no uncaught error, nothing answered by wrangler itself.
    await sleep(500);
    expect(running(), `npm run dev exited:\n${tail()}`).toBe(true);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(output.slice(from)).not.toMatch(/"level":"error"|Uncaught|wrangler answered|exited unexpectedly/);
  }, 60_000);

  it(
    'stops wrangler and PostgreSQL on Ctrl-C',
    async () => {
      process.kill(-dev.pid!, 'SIGINT');
      await Promise.race([closed, sleep(STOP_TIMEOUT_MS)]);
      expect(running(), `still running ${STOP_TIMEOUT_MS / 1000} s after SIGINT:\n${tail()}`).toBe(false);
      expect(output).toContain('[dev] SIGINT received');
      expect(output).toContain('[dev] Stopped.');
      expect(await isPortFree(port)).toBe(true);
      expect(await isPortFree(databasePort)).toBe(true);
    },
    STOP_TIMEOUT_MS + 10_000,
  );
});
