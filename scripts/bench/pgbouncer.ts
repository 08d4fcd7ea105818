// PgBouncer for the benchmark's pooled settings (scripts/bench): Debian's package, in transaction mode
// (what Hyperdrive and Neon's pooler do), started from a configuration written to a temporary folder.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../lib/embedded-postgres';

const CANDIDATES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer', '/usr/local/sbin/pgbouncer'];

function findBinary(): string | null {
  for (const path of CANDIDATES) if (existsSync(path)) return path;
  try {
    return execFileSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8', stdio: 'pipe' }).trim() || null;
  } catch {
    return null;
  }
}

/**
 * The pgbouncer binary; when missing and this is root on Debian/Ubuntu, `apt-get install -y pgbouncer`
 * (after `apt-get update` if the first attempt fails). Null, with the reason logged, when neither works.
 */
export function findOrInstallPgbouncer(log: (message: string) => void): string | null {
  const found = findBinary();
  if (found) return found;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    log('PgBouncer is not installed (apt-get install pgbouncer); the pooled settings are skipped.');
    return null;
  }
  log("PgBouncer is not installed; installing Debian's package (apt-get install -y pgbouncer)…");
  const install = () =>
    execFileSync('apt-get', ['install', '-y', '-qq', 'pgbouncer'], {
      stdio: 'pipe',
      timeout: 180_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    try {
      install();
    } catch {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'pipe', timeout: 180_000 });
      install();
    }
  } catch (error) {
    log(`Installing PgBouncer failed (${String(error).split('\n')[0]}); the pooled settings are skipped.`);
    return null;
  }
  return findBinary();
}

export function pgbouncerVersion(binary: string): string {
  try {
    return execFileSync(binary, ['--version'], { encoding: 'utf8', stdio: 'pipe' }).split('\n')[0]!.trim();
  } catch {
    return 'PgBouncer';
  }
}

export interface RunningPgbouncer {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * A PgBouncer in transaction mode in `dir`, serving `database` from 127.0.0.1:serverPort with the
 * user and password of the server (cleartext auth on both sides, as the embedded PostgreSQL uses).
 * As root it runs as the `postgres` user (PgBouncer refuses root), which must own `dir`.
 */
export async function startPgbouncer(options: {
  binary: string;
  dir: string;
  serverPort: number;
  database: string;
  user: string;
  password: string;
  poolSize: number;
}): Promise<RunningPgbouncer> {
  const port = await freePort();
  const ini = join(options.dir, 'pgbouncer.ini');
  const logFile = join(options.dir, 'pgbouncer.log');
  writeFileSync(join(options.dir, 'userlist.txt'), `"${options.user}" "${options.password}"\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      `${options.database} = host=127.0.0.1 port=${options.serverPort} dbname=${options.database} user=${options.user} password=${options.password}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = plain',
      `auth_file = ${join(options.dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      `default_pool_size = ${options.poolSize}`,
      // No "select 1" before handing out a connection that sat idle: Hyperdrive does not add one either.
      'server_check_query =',
      'ignore_startup_parameters = extra_float_digits',
      `logfile = ${logFile}`,
      `pidfile = ${join(options.dir, 'pgbouncer.pid')}`,
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    for (const file of [options.dir, ini, join(options.dir, 'userlist.txt')]) chownSync(file, uid, gid);
  }
  const output = openSync(join(options.dir, 'pgbouncer.out'), 'a');
  const child: ChildProcess = spawn(options.binary, asRoot ? ['-u', 'postgres', ini] : [ini], { stdio: ['ignore', output, output] });
  for (let waited = 0; !(await accepts(port)); waited += 100) {
    if (child.exitCode !== null || waited > 10_000) {
      child.kill('SIGKILL');
      const said = [logFile, join(options.dir, 'pgbouncer.out')]
        .map((file) => (existsSync(file) ? readFileSync(file, 'utf8') : ''))
        .join('');
      throw new Error(
        `PgBouncer did not start (${child.exitCode === null ? 'no answer in 10 s' : `exit ${child.exitCode}`}): ${said.slice(-600)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM'); // immediate shutdown (SIGINT would wait for clients)
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
