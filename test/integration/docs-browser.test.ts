// /docs in a real browser, served by the real Worker (`wrangler dev`: the Worker's code and its static
// assets, as deployed): headless Chromium, driven over the Chrome DevTools Protocol, loads the page and
// the reference must render (every tag of the document, the operations of the first one, those of
// Orders once scrolled to, the x-api-key auth panel) with no failed request, no console error or
// exception (a CSP refusal is one), and no request to any host but the Worker's.
//
// Chromium: Debian's `chromium` package (or CHROMIUM_PATH). When it is missing, the file installs it
// (apt-get, as root) once; when it cannot, or when workerd cannot run here, it is skipped with a message.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '../../scripts/lib/embedded-postgres';
import { DOCS_RENDERER_PATH } from '../../src/platform/openapi/docs-page';
import { createTestDatabase } from '../helpers/database';
import { workerdProblem } from '../helpers/workerd';

const root = fileURLToPath(new URL('../..', import.meta.url));

const withPassword = (url: string) => {
  const parsed = new URL(url);
  if (!parsed.password) parsed.password = 'unused';
  return parsed.toString();
};
const START_TIMEOUT_MS = 60_000;
const RENDER_TIMEOUT_MS = 30_000;

function which(command: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8', stdio: 'pipe' }).trim() || null;
  } catch {
    return null;
  }
}

const findChromium = () => process.env.CHROMIUM_PATH || which('chromium') || which('chromium-browser');

/** The browser's path, installing Debian's package when missing and possible; or why there is none. */
function chromium(): { path: string } | { problem: string } {
  const found = findChromium();
  if (found) return { path: found };
  if (process.getuid?.() !== 0 || !which('apt-get')) return { problem: 'no chromium, and apt-get as root is not available to install it' };
  console.warn('[docs-browser.test] installing chromium (apt-get install -y chromium), once…');
  try {
    execFileSync('sh', ['-c', 'apt-get update && apt-get install -y chromium'], {
      stdio: 'pipe',
      timeout: 600_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (error) {
    return { problem: `apt-get install chromium failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  }
  const installed = findChromium();
  return installed ? { path: installed } : { problem: 'apt-get installed chromium, but no chromium command was found' };
}

function workerdCannotRun(): string | null {
  const problem = workerdProblem();
  return problem === null ? null : `workerd cannot run here (${problem})`;
}

const browser = chromium();
const problem = workerdCannotRun() ?? ('problem' in browser ? browser.problem : null);
if (problem) console.warn(`[docs-browser.test] SKIPPED: ${problem}.`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

/** The smallest Chrome DevTools Protocol client: one WebSocket to the browser, flat sessions. */
class Cdp {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly events: CdpEvent[] = [];

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { id?: number; result?: unknown; error?: { message: string } } & CdpEvent;
      if (message.id === undefined) {
        this.events.push(message);
        return;
      }
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result);
    });
  }

  static async connect(url: string): Promise<Cdp> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return new Cdp(socket);
  }

  send<T = Record<string, unknown>>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    const id = ++this.nextId;
    this.socket.send(JSON.stringify({ id, method, params, sessionId }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject }));
  }

  close() {
    this.socket.close();
  }
}

describe.skipIf(problem !== null)('GET /docs in headless Chromium, served by wrangler dev', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let wrangler: ChildProcess | undefined;
  let chrome: ChildProcess | undefined;
  let profileDir: string;
  let cdp: Cdp | undefined;
  let base: string;
  let output = '';

  beforeAll(async () => {
    database = await createTestDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    profileDir = mkdtempSync(join(tmpdir(), 'brand-admin-docs-browser-'));
    const vars = {
      ENVIRONMENT: 'development',
      DATABASE_URL: database.url,
      DATABASE_BYPASS_HYPERDRIVE: 'true', // as `npm run dev` (scripts/dev.ts)
      JWT_SECRET: 'docs-browser-test-jwt-secret-0123456789',
    };
    // wrangler runs [build] (the renderer into public/), bundles src/index.ts and serves [assets], as on deploy.
    wrangler = spawn(
      process.execPath,
      [
        join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
        'dev',
        '--local',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--show-interactive-dev-session=false',
        '--persist-to',
        join(profileDir, 'wrangler-state'),
        ...Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
      ],
      {
        cwd: root,
        detached: true, // its own process group: stopped with workerd in afterAll
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          WRANGLER_SEND_METRICS: 'false',
          WRANGLER_SEND_ERROR_REPORTS: 'false',
          CLOUDFLARE_CF_FETCH_ENABLED: 'false',
          // Unused (DATABASE_BYPASS_HYPERDRIVE), but wrangler refuses a connection string without a
          // password, which a trust-auth server (TEST_DATABASE_URL in CI's second pass) does not need.
          CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_HYPERDRIVE: withPassword(database.url),
        },
      },
    );
    wrangler.stdout!.on('data', (chunk) => (output += chunk));
    wrangler.stderr!.on('data', (chunk) => (output += chunk));
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const status = await fetch(`${base}/healthz`).then(
        (res) => res.status,
        () => 0,
      );
      if (status === 200) break;
      if (Date.now() > deadline || wrangler.exitCode !== null) throw new Error(`wrangler dev did not come up:\n${output.slice(-3000)}`);
      await sleep(250);
    }

    chrome = spawn(
      (browser as { path: string }).path,
      [
        '--headless=new',
        '--no-sandbox', // as root (containers, CI); the page is our own
        '--disable-gpu',
        '--no-first-run',
        '--no-default-browser-check',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--remote-debugging-port=0',
        `--user-data-dir=${join(profileDir, 'chromium')}`,
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    const endpoint = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`chromium did not start:\n${stderr.slice(-2000)}`)), 30_000);
      chrome!.stderr!.on('data', (chunk) => {
        stderr += chunk;
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    cdp = await Cdp.connect(endpoint);
  }, START_TIMEOUT_MS + 40_000);

  afterAll(async () => {
    cdp?.close();
    if (chrome && chrome.exitCode === null) {
      chrome.kill('SIGTERM');
      await Promise.race([new Promise((resolve) => chrome!.once('exit', resolve)), sleep(5_000)]);
      if (chrome.exitCode === null && chrome.signalCode === null) chrome.kill('SIGKILL');
    }
    if (wrangler?.pid) {
      const group = -wrangler.pid;
      const alive = () => {
        try {
          process.kill(group, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (alive()) process.kill(group, 'SIGTERM');
      for (let waited = 0; alive() && waited < 5_000; waited += 100) await sleep(100);
      if (alive()) process.kill(group, 'SIGKILL');
    }
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
    await database?.close();
  }, 30_000);

  it(
    'renders the operation list from the Worker alone: no failed request, no console error, no other host',
    async () => {
      const { targetId } = await cdp!.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await cdp!.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      for (const domain of ['Network', 'Runtime', 'Log', 'Page']) await cdp!.send(`${domain}.enable`, {}, sessionId);
      const evaluate = async <T>(expression: string): Promise<T> =>
        (await cdp!.send<{ result: { value: T } }>('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result.value;
      /** Polls a DOM condition (a boolean expression) until it holds; the last value otherwise. */
      const waitFor = async (expression: string) => {
        const deadline = Date.now() + RENDER_TIMEOUT_MS;
        while (!(await evaluate<boolean>(expression)) && Date.now() < deadline) await sleep(200);
        return evaluate<boolean>(expression);
      };

      const document = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { tags?: string[] }>>;
      };
      // The reference groups operations by their first tag, in the order the document first names them.
      const tags = [
        ...new Set(Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.tags![0]!))),
      ];
      const slug = (name: string) =>
        name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '');
      /** A tag's operations as [method, path]. */
      const operationsOf = (tag: string) =>
        Object.entries(document.paths).flatMap(([path, item]) =>
          Object.entries(item)
            .filter(([, operation]) => operation.tags?.[0] === tag)
            .map(([method]) => [method.toUpperCase(), path] as const),
        );
      const present = (ids: string[]) => `${JSON.stringify(ids)}.every((id) => document.getElementById(id) !== null)`;
      const firstTag = tags[0]!;
      const firstOperations = operationsOf(firstTag).map(([method, path]) => `api-1/tag/${slug(firstTag)}/${method}${path}`);
      const orderOperations = operationsOf('Orders');
      expect(firstOperations.length).toBeGreaterThan(0);
      expect(orderOperations.length).toBeGreaterThan(3);

      await cdp!.send('Page.navigate', { url: `${base}/docs` }, sessionId);
      // Every tag has its section, and the first tag's operations are rendered.
      const tagSections = tags.map((tag) => `api-1/tag/${slug(tag)}`);
      expect(await waitFor(`${present(tagSections)} && ${present(firstOperations)}`), 'tags and first operations rendered').toBe(true);
      // Further down, a tag is rendered when it comes into view, collapsed: its list of operations.
      const orders = `api-1/tag/${slug('Orders')}`;
      await evaluate(`document.getElementById(${JSON.stringify(orders)}).scrollIntoView()`);
      const ordersText = `(document.getElementById(${JSON.stringify(orders)}).innerText || '').replace(/\\s+/g, ' ')`;
      const listed = orderOperations.map(([method, path]) => `${method} ${path}`);
      await waitFor(`${JSON.stringify(listed)}.every((operation) => ${ordersText}.includes(operation))`);
      const shown = await evaluate<string>(ordersText);
      expect(
        listed.filter((operation) => !shown.includes(operation)),
        `the Orders operations listed (${shown.slice(0, 300)})`,
      ).toEqual([]);
      // The document's top-level security: the auth panel offers the x-api-key header ("No
      // authentication selected" without it).
      const text = (await evaluate<string>('document.body.innerText')).replace(/\s+/g, ' ');
      expect(text).toContain('Selected Auth Type: ApiKey');
      expect(text).toContain('Name : x-api-key');
      expect(text).not.toContain('No authentication selected');
      await sleep(1_000); // anything the page would still fetch after rendering (fonts, telemetry) is seen

      const events = cdp!.events.filter((event) => event.sessionId === sessionId);
      const requests = events
        .filter((event) => event.method === 'Network.requestWillBeSent')
        .map((event) => (event.params as { request: { url: string } }).request.url);
      const elsewhere = requests.filter((url) => !url.startsWith(`${base}/`) && !/^(data|blob):/.test(url));
      expect(elsewhere, 'requests to another host').toEqual([]);
      expect(requests).toEqual(expect.arrayContaining([`${base}/docs`, `${base}${DOCS_RENDERER_PATH}`, `${base}/api/v1/openapi.json`]));
      const failed = events
        .filter((event) => event.method === 'Network.loadingFailed')
        .map((event) => JSON.stringify(event.params))
        .concat(
          events
            .filter((event) => event.method === 'Network.responseReceived')
            .map((event) => (event.params as { response: { status: number; url: string } }).response)
            .filter((response) => response.status >= 400)
            .map((response) => `${response.status} ${response.url}`),
        );
      expect(failed, 'failed requests').toEqual([]);
      const errors = events.flatMap((event) => {
        const params = event.params as {
          type?: string;
          args?: { value?: unknown; description?: string }[];
          entry?: { level: string; text: string; url?: string };
          exceptionDetails?: { text: string; exception?: { description?: string } };
        };
        if (event.method === 'Runtime.consoleAPICalled' && (params.type === 'error' || params.type === 'assert')) {
          return [`console.${params.type}: ${params.args!.map((arg) => arg.description ?? String(arg.value)).join(' ')}`];
        }
        if (event.method === 'Runtime.exceptionThrown') {
          return [`exception: ${params.exceptionDetails!.exception?.description ?? params.exceptionDetails!.text}`];
        }
        if (event.method === 'Log.entryAdded' && params.entry!.level === 'error')
          return [`log: ${params.entry!.text} ${params.entry!.url ?? ''}`];
        return [];
      });
      expect(errors, 'console errors').toEqual([]);
    },
    RENDER_TIMEOUT_MS * 2 + 10_000,
  );
});
