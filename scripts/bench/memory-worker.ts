// The Worker isolate's heap (npm run bench:memory, test/integration/worker-memory.test.ts): a bundle built
// as `wrangler deploy` builds it, run in workerd through Miniflare with workerd's own inspector open, and
// the DevTools calls that measure it: a forced GC, then Runtime.getHeapUsage; a heap snapshot, streamed.
// Miniflare rather than `wrangler dev`: no inspector proxy, no dev middleware, no network inspection and
// no source maps loaded into the isolate, so what is measured is what the deployed code holds.
import { Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import WebSocket from 'ws';
import { buildDeployBundle, type DeployBundle } from '../rehearse/worker';

/** Every inspector call and every wait is bounded: a silent inspector must fail the run, not hang it. */
export const INSPECTOR_TIMEOUT_MS = 30_000;

/** The bundle a deploy would upload (scripts/rehearse/worker.ts builds it). */
export type Bundle = DeployBundle;
export const buildBundle = buildDeployBundle;

export interface InspectedWorker {
  name: string;
  url: string;
  heap: HeapSession;
  dispose(): Promise<void>;
}

/**
 * Miniflare refuses a Hyperdrive URL without a password; a server that trusts the connection (the
 * machine's PostgreSQL, trust auth on 127.0.0.1) never asks for the one given here.
 */
function withPassword(url: string): string {
  const parsed = new URL(url);
  if (!parsed.password) parsed.password = 'unused';
  return parsed.toString();
}

/**
 * The bundle in workerd, with the compatibility settings and bindings of `config` (wrangler's reader,
 * as the rehearsal does), `variables` over its [vars], each Hyperdrive binding connecting to
 * `hyperdriveUrl`; and a DevTools session on its isolate.
 */
export async function startInspectedWorker(
  options: {
    name: string;
    variables?: Record<string, string>;
    log?: (line: string) => void;
  } & ({ bundle: Bundle; config: string; hyperdriveUrl: string } | { script: string; compatibility: { date: string; flags: string[] } }),
): Promise<InspectedWorker> {
  let worker: Record<string, unknown>;
  if ('script' in options) {
    worker = {
      modules: true,
      script: options.script,
      compatibilityDate: options.compatibility.date,
      compatibilityFlags: options.compatibility.flags,
      bindings: options.variables ?? {},
    };
  } else {
    const { workerOptions } = unstable_getMiniflareWorkerOptions(options.config);
    worker = {
      modules: [{ type: 'ESModule', path: options.bundle.main }],
      modulesRoot: options.bundle.dir,
      compatibilityDate: workerOptions.compatibilityDate,
      compatibilityFlags: workerOptions.compatibilityFlags,
      bindings: { ...(workerOptions.bindings as Record<string, string>), ...options.variables },
      hyperdrives: Object.fromEntries(
        Object.keys(workerOptions.hyperdrives ?? {}).map((name) => [name, withPassword(options.hyperdriveUrl)]),
      ),
      r2Buckets: Object.keys(workerOptions.r2Buckets ?? {}),
      assets: workerOptions.assets,
    };
  }
  const mf = new Miniflare({
    name: options.name,
    ...worker,
    host: '127.0.0.1',
    port: 0,
    inspectorPort: 0,
    handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
      for (const stream of [stdout, stderr]) stream.on('data', (chunk: Buffer) => options.log?.(chunk.toString('utf8').trimEnd()));
    },
  } as ConstructorParameters<typeof Miniflare>[0]);
  try {
    const url = (await withTimeout(mf.ready, 60_000, 'workerd did not start')).toString().replace(/\/$/, '');
    const inspector = await mf.getInspectorURL();
    const heap = await openHeapSession(Number(inspector.port), options.name, async () => {
      // A path no route answers: the isolate runs, and with it the GC the inspector asked for.
      const response = await fetch(`${url}/__memory-gc`, { signal: AbortSignal.timeout(INSPECTOR_TIMEOUT_MS) });
      await response.arrayBuffer();
    });
    return {
      name: options.name,
      url,
      heap,
      async dispose() {
        heap.close();
        await withTimeout(mf.dispose(), INSPECTOR_TIMEOUT_MS, 'Miniflare did not stop').catch(() => {});
      },
    };
  } catch (error) {
    await mf.dispose().catch(() => {});
    throw error;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms);
    }),
  ]);
}

export interface HeapUsage {
  /** Bytes of live objects (after the GC). */
  used: number;
  /** Bytes the isolate's heap has reserved. */
  total: number;
}

export interface HeapSession {
  /** HeapProfiler.collectGarbage (twice: see openHeapSession), then Runtime.getHeapUsage. */
  measure(): Promise<HeapUsage>;
  /** Runtime.getHeapUsage as it is (no GC asked for). */
  usage(): Promise<HeapUsage>;
  /** A heap snapshot (after a GC), as the JSON text DevTools saves in a .heapsnapshot file. */
  snapshot(): Promise<string>;
  close(): void;
}

/**
 * A DevTools session on the isolate of worker `name`, straight to workerd's inspector (no proxy).
 * HeapProfiler.collectGarbage does not collect when asked: V8 posts the GC as a task to the isolate's
 * task runner, which workerd runs only when the isolate next runs, and the call is answered after it
 * (an idle Worker never answers it: the hang of an earlier attempt). So each GC is asked for and then
 * `pump` sends the Worker one request (to a path no route answers); a second round collects what the
 * first request left, and only the last request's own few objects can remain.
 */
async function openHeapSession(inspectorPort: number, name: string, pump: () => Promise<void>): Promise<HeapSession> {
  const targets = (await (
    await fetch(`http://127.0.0.1:${inspectorPort}/json`, { signal: AbortSignal.timeout(INSPECTOR_TIMEOUT_MS) })
  ).json()) as {
    id: string;
    title?: string;
    webSocketDebuggerUrl: string;
  }[];
  // Miniflare runs its own Workers beside ours (core:entry, ...); ours is core:user:<name>.
  const target =
    targets.find((t) => t.id === `core:user:${name}` || t.title === `core:user:${name}`) ?? targets.find((t) => t.id.endsWith(`:${name}`));
  if (!target) throw new Error(`no inspector target for ${name} (targets: ${targets.map((t) => t.id).join(', ')})`);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await withTimeout(
    new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    }),
    INSPECTOR_TIMEOUT_MS,
    `the inspector of ${name} did not accept a connection`,
  );
  let next = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let chunks: string[] | null = null;
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as {
      id?: number;
      method?: string;
      params?: { chunk?: string };
      result?: unknown;
      error?: { message: string };
    };
    if (message.method === 'HeapProfiler.addHeapSnapshotChunk') {
      chunks?.push(message.params!.chunk!);
      return;
    }
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id!);
    if (message.error) waiting.reject(new Error(message.error.message));
    else waiting.resolve(message.result);
  });
  socket.on('close', () => {
    for (const waiting of pending.values()) waiting.reject(new Error(`the inspector of ${name} closed`));
    pending.clear();
  });
  const send = (method: string, params: object = {}, timeoutMs = INSPECTOR_TIMEOUT_MS) => {
    const id = next++;
    const answer = new Promise<unknown>((resolve, reject) => pending.set(id, { resolve, reject }));
    socket.send(JSON.stringify({ id, method, params }));
    return withTimeout(answer, timeoutMs, `${method} got no answer`).finally(() => pending.delete(id));
  };
  const collect = async () => {
    for (let round = 0; round < 2; round++) {
      let done = false;
      const collected = send('HeapProfiler.collectGarbage').finally(() => {
        done = true;
      });
      collected.catch(() => {});
      // Not every request runs the task at once (it may wait for the isolate's next turn): pump until answered.
      for (let pumps = 0; !done && pumps < 60; pumps++) {
        await pump();
        if (!done) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await collected;
    }
  };
  const usage = async () => {
    const { usedSize, totalSize } = (await send('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };
    return { used: usedSize, total: totalSize };
  };
  return {
    async measure() {
      await collect();
      return usage();
    },
    usage,
    // A snapshot collects garbage first on its own (synchronously: no request needed).
    async snapshot() {
      chunks = [];
      try {
        await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false }, 120_000);
        return chunks.join('');
      } finally {
        chunks = null;
      }
    },
    close: () => socket.close(),
  };
}

/**
 * What workerd keeps per outbound socket after it is closed (bytes of heap after GC per socket): a
 * Worker that only opens a TCP connection to `address` (host:port) and closes it, `count` times.
 */
export async function runtimeBytesPerSocket(
  address: string,
  compatibility: { date: string; flags: string[] },
  count = 400,
): Promise<number> {
  const script = `import { connect } from 'cloudflare:sockets';
export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname !== '/socket') return new Response('idle');
    const socket = connect(${JSON.stringify(address)});
    await socket.opened;
    await socket.close();
    return new Response('closed');
  },
};`;
  const worker = await startInspectedWorker({ name: 'socket-probe', script, compatibility });
  try {
    const open = async (n: number) => {
      for (let i = 0; i < n; i++) await (await fetch(`${worker.url}/socket`, { signal: AbortSignal.timeout(INSPECTOR_TIMEOUT_MS) })).text();
    };
    await open(20);
    const before = await worker.heap.measure();
    await open(count);
    const after = await worker.heap.measure();
    return (after.used - before.used) / count;
  } finally {
    await worker.dispose();
  }
}
