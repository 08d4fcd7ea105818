// Starts scripts/bench/remote.ts in a child process and talks to it over IPC.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Orphans, RemoteInit, RemotePorts, RemoteRequest, RequestCount } from './remote';

export interface Remote {
  ports: RemotePorts;
  /** The child's process id (for its CPU time). */
  pid: number;
  /** Points the Workers' database relay at `dbPort`, and their Upstash relay at the near or the distant stand-in. */
  route(dbPort: number, distant: boolean): Promise<void>;
  /** Starts counting (before a request is sent). */
  begin(): Promise<void>;
  /** Marks the answer's arrival (now, or `at`: performance.timeOrigin + performance.now() when it arrived). */
  end(at?: number): Promise<void>;
  /** What was sent and waited for since begin(); stops counting. */
  report(): Promise<RequestCount>;
  /** What the child stops should the bench die without stopping it (e.g. SIGKILL). */
  adopt(orphans: Orphans): Promise<void>;
  stop(): Promise<void>;
}

export async function startRemote(init: RemoteInit): Promise<Remote> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./remote.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 0;
  child.on('message', (message: { id: number; result?: unknown; error?: string }) => {
    const pending = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error !== undefined) pending?.reject(new Error(`remote: ${message.error}`));
    else pending?.resolve(message.result);
  });
  child.on('exit', (code, signal) => {
    for (const pending of waiting.values()) pending.reject(new Error(`remote exited (${signal ?? code})`));
    waiting.clear();
  });
  const call = <T>(request: RemoteRequest): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, request });
    });

  let ports: RemotePorts;
  try {
    ports = await call<RemotePorts>({ op: 'init', init });
  } catch (error) {
    child.kill();
    throw error;
  }
  return {
    ports,
    pid: child.pid ?? 0,
    route: (dbPort, distant) => call({ op: 'route', dbPort, distant }),
    begin: () => call({ op: 'begin' }),
    end: (at = performance.timeOrigin + performance.now()) => call({ op: 'end', at }),
    report: () => call<RequestCount>({ op: 'report' }),
    adopt: (orphans) => call({ op: 'adopt', orphans }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await call({ op: 'stop' }).catch(() => {});
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
