// CPU profiles of the benchmark's Workers (`npm run bench -- --profile <dir>`): V8's sampling profiler in
// workerd, reached through wrangler's inspector (the Chrome DevTools protocol), so the profile is of the
// real bundle in the real runtime. Each profile is written as <dir>/<worker>.cpuprofile (open it in Chrome
// DevTools or speedscope) and summarised: self time by function and by package.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
  /** Not V8's: the source of each bundle the profile ran in, by scriptId (read through the debugger). */
  sources?: Record<string, string>;
}

/** Opens the DevTools session of the Worker behind wrangler's inspector port. */
async function connect(inspectorPort: number): Promise<{ send(method: string, params?: object): Promise<unknown>; close(): void }> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as { webSocketDebuggerUrl: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${inspectorPort}`);
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let next = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id!);
    if (message.error) waiting.reject(new Error(message.error.message));
    else waiting.resolve(message.result);
  });
  return {
    send(method, params = {}) {
      const id = next++;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    close: () => socket.close(),
  };
}

/**
 * Turns off the network inspection `wrangler dev` turns on for every Worker (its inspector proxy sends
 * Network.enable when it connects to workerd, for DevTools' network tab): with it, workerd reports each
 * subrequest (fetch) to wrangler as DevTools events, CPU that a deployed Worker never spends and that
 * only a Worker making subrequests pays (ours, for each Upstash call; bare makes none). The proxy sends
 * what a DevTools client says on its own session with workerd, so Network.disable reaches that session.
 */
export async function disableNetworkInspection(inspectorPort: number): Promise<void> {
  const session = await connect(inspectorPort);
  try {
    await session.send('Network.disable');
  } finally {
    session.close();
  }
}

/** Profiles the Worker while `during` runs; writes <dir>/<name>.cpuprofile. */
export async function profileWorker(name: string, inspectorPort: number, dir: string, during: () => Promise<unknown>): Promise<CpuProfile> {
  const session = await connect(inspectorPort);
  try {
    await session.send('Profiler.enable');
    await session.send('Profiler.setSamplingInterval', { interval: 100 }); // µs
    await session.send('Profiler.start');
    await during();
    const { profile } = (await session.send('Profiler.stop')) as { profile: CpuProfile };
    // The bundles' text, to trace frames back to their modules (moduleLines); the debugger only after the run.
    await session.send('Debugger.enable');
    profile.sources = {};
    for (const scriptId of new Set(profile.nodes.map((node) => node.callFrame.scriptId))) {
      const url = profile.nodes.find((node) => node.callFrame.scriptId === scriptId)!.callFrame.url;
      if (!url.endsWith('.js') || url.startsWith('node-internal:')) continue;
      profile.sources[scriptId] = ((await session.send('Debugger.getScriptSource', { scriptId })) as { scriptSource: string }).scriptSource;
    }
    await session.send('Debugger.disable');
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    return profile;
  } finally {
    session.close();
  }
}

/**
 * The module of each line of an unminified esbuild bundle: esbuild opens every module's code with a
 * `// <path>` comment, so a frame of the bundle is traced back to its file without source maps.
 */
function moduleLines(source: string): string[] {
  let current = '';
  return source.split('\n').map((text) => {
    const marker = /^\/\/ ((?:\.\.\/)*(?:node_modules|src|drizzle|scripts)\/\S+)$/.exec(text);
    if (marker) current = marker[1]!.replace(/^(\.\.\/)+/, '');
    return current;
  });
}

/** Where a frame's code comes from: a package of node_modules, a folder of our tree, or V8 itself. */
function packageOf(url: string, file: string | undefined, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  file ||= url;
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (module) return module[1]!;
  const source = /(?:^|\/)(src|scripts|drizzle)\/(.+?)(?:\.ts)?$/.exec(file);
  if (source) return `${source[1]}/${source[2]!}`;
  return file.replace(/^.*\//, '');
}

/**
 * Self time (µs) per function and per module file, sorted. A minified bundle has neither names nor
 * module comments: the bench starts the Workers unminified when it profiles them (--minify=false).
 */
export function summarizeProfile(
  profile: CpuProfile,
  top = 25,
): { total: number; byFunction: [string, number][]; byPackage: [string, number][] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const lines = new Map(Object.entries(profile.sources ?? {}).map(([scriptId, source]) => [scriptId, moduleLines(source)]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0));
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') continue;
    total += us;
    const where = packageOf(frame.url, lines.get(frame.scriptId)?.[frame.lineNumber], frame.functionName);
    const fn = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byPackage.set(where, (byPackage.get(where) ?? 0) + us);
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  return { total, byFunction: sorted(byFunction), byPackage: sorted(byPackage) };
}
