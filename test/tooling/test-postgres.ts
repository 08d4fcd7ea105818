// The PostgreSQL server a test project runs on: the one at TEST_DATABASE_URL, or an embedded
// PostgreSQL 17 of its own (data folder and port unique to the run).

import { databaseUrl, withClient } from '../../scripts/lib/database';
import { freePort, startEmbeddedPostgres } from '../../scripts/lib/embedded-postgres';
import { migrateDatabase } from '../../scripts/lib/migrations';

/**
 * Test files run two at a time, each with a pool of 4, plus the Worker's per-request connections
 * (capped by its gate, 20 by default) and the burst tests: 200 leaves room for all of them.
 */
export const TEST_MAX_CONNECTIONS = 200;

export interface TestServer {
  serverUrl: string;
  embedded: boolean;
  /** (Re)creates database `name`, empty or cloned from `template`, and returns its URL. */
  createDatabase(name: string, template?: string): Promise<string>;
  /** Creates database `name` and applies the migrations to it. */
  createMigratedDatabase(name: string): Promise<string>;
  /** Drops the databases made here (on a shared server) or stops the embedded server. */
  stop(): Promise<void>;
}

export const dropDatabase = (serverUrl: string, name: string) =>
  withClient(serverUrl, (client) => client.query(`drop database if exists ${name} with (force)`));

export async function startTestServer(label: string): Promise<TestServer> {
  const embedded = process.env.TEST_DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: `/tmp/brand-admin-${label}-pg-${process.pid}`,
        port: await freePort(),
        persistent: false,
        maxConnections: TEST_MAX_CONNECTIONS,
      });
  const serverUrl = embedded?.url ?? process.env.TEST_DATABASE_URL!;
  const created: string[] = [];
  const server: TestServer = {
    serverUrl,
    embedded: !!embedded,
    async createDatabase(name, template) {
      await dropDatabase(serverUrl, name);
      await withClient(serverUrl, (client) => client.query(`create database ${name}${template ? ` template ${template}` : ''}`));
      created.push(name);
      return databaseUrl(serverUrl, name);
    },
    async createMigratedDatabase(name) {
      const url = await server.createDatabase(name);
      await migrateDatabase(url);
      return url;
    },
    async stop() {
      if (embedded) return embedded.stop();
      for (const name of created) await dropDatabase(serverUrl, name);
    },
  };
  return server;
}
