// The benchmark's Workers (scripts/bench): each one a `wrangler dev --local` (the real bundle in workerd,
// as `npm run dev` runs it) in its own process group, its output kept in a log file.
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../lib/embedded-postgres';

export interface WorkerProcess {
  name: string;
  url: string;
  /** The DevTools inspector of the Worker (wrangler's inspector proxy). */
  inspectorPort: number;
  /** wrangler's process group: wrangler and the workerd it started. */
  pgid: number;
  /** The last lines wrangler printed (for error messages). */
  logTail(): string;
  stop(): Promise<void>;
}

export interface WorkerOptions {
  name: string;
  root: string;
  /** A wrangler configuration other than the project's wrangler.toml. */
  config?: string;
  vars: Record<string, string>;
  /** The Hyperdrive binding's local connection string. */
  hyperdriveUrl: string;
  /** Folder for wrangler's local state and this Worker's log. */
  dir: string;
  extraArgs?: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

export async function startWorker(options: WorkerOptions): Promise<WorkerProcess & { child: ChildProcess }> {
  const port = await freePort();
  const inspectorPort = await freePort();
  const logFile = join(options.dir, `${options.name}.log`);
  const output = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      join(options.root, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
      'dev',
      ...(options.config ? ['--config', options.config] : []),
      '--local',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspectorPort),
      '--show-interactive-dev-session=false',
      // No line per request on the console: that is wrangler's work, not the Worker's.
      '--log-level',
      'warn',
      '--persist-to',
      join(options.dir, `${options.name}-state`),
      ...(options.extraArgs ?? []),
      ...Object.entries(options.vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
    ],
    {
      cwd: options.root,
      detached: true, // its own process group, so stop() reaches workerd too
      stdio: ['ignore', output, output],
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: 'false',
        WRANGLER_SEND_ERROR_REPORTS: 'false',
        CLOUDFLARE_CF_FETCH_ENABLED: 'false',
        CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_HYPERDRIVE: options.hyperdriveUrl,
      },
    },
  );
  return {
    name: options.name,
    url: `http://127.0.0.1:${port}`,
    inspectorPort,
    pgid: child.pid ?? 0,
    child,
    logTail: () => {
      try {
        return readFileSync(logFile, 'utf8').split('\n').slice(-25).join('\n');
      } catch {
        return '';
      }
    },
    async stop() {
      const pgid = child.pid;
      if (!pgid) return;
      signalGroup(pgid, 'SIGTERM');
      for (let waited = 0; groupAlive(pgid) && waited < 5_000; waited += 100) await sleep(100);
      if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
    },
  };
}

/** Waits until GET <url>/healthz answers 200 (wrangler builds, then workerd starts). */
export async function waitForHealth(worker: WorkerProcess & { child: ChildProcess }, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (worker.child.exitCode !== null) throw new Error(`${worker.name}: wrangler exited (${worker.child.exitCode}):\n${worker.logTail()}`);
    try {
      const response = await fetch(`${worker.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      if (response.status === 200) return;
      last = `HTTP ${response.status}: ${(await response.text()).slice(0, 200)}`;
    } catch (error) {
      last = String(error);
    }
    await sleep(250);
  }
  throw new Error(
    `${worker.name}: ${worker.url}/healthz did not answer 200 within ${timeoutMs / 1000} s (last: ${last}):\n${worker.logTail()}`,
  );
}
