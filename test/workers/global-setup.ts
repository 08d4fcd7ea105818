// Global setup of the `workers` project (runs in Node, before workerd starts). It gets its own
// PostgreSQL so it never collides with the `node` project's setup (which names its data folder and
// template after process.pid): an embedded PostgreSQL 17 in a separate data folder on its own free
// port, or a separate database on the server at TEST_DATABASE_URL. It migrates one database, seeds a
// clinic and a key from the Node side, and hands the URL and the raw key to the pool options
// (vitest.config.ts: cloudflareTest(({ inject }) => ...)) and to the tests via provide/inject. It also
// starts the fault proxy in front of that database for the outage walk (test/faults/pg-outage-proxy.ts):
// a test inside workerd cannot open a server, so it reaches the proxy's faults through the URLs given here.
import type { TestProject } from 'vitest/node';
import { connect } from '../../scripts/lib/database';
import { startPgOutageProxy } from '../faults/pg-outage-proxy';
import { makeClinic, makeKey } from '../helpers/factories';
import { startNeonWsProxy } from '../tooling/neon-ws-proxy';
import { startTestServer } from '../tooling/test-postgres';

export interface WorkersDatabase {
  /** Loopback URL of the migrated database the Worker's DATABASE_URL points at. */
  url: string;
  /** A clinic and a raw secret key seeded from Node. */
  clinicId: string;
  apiKey: string;
  keyPrefix: string;
}

export interface OutageProxyAddress {
  /** The workers database through the fault proxy (add ?application_name=<fault>.<at>.<tag>). */
  url: string;
  /** The same database at a port where nothing listens. */
  closedUrl: string;
  /** GET <controlUrl>/stats: what each tag's connections saw. */
  controlUrl: string;
  /** A local stand-in for Neon's WebSocket proxy (neonConfig.wsProxy: host:port/v1, plain ws). */
  neonWsProxy: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    workersDatabase: WorkersDatabase;
    outageProxy: OutageProxyAddress;
  }
}

export default async function setup(project: TestProject) {
  const server = await startTestServer('workers');
  const name = `brand_admin_workers_${process.pid}`;
  const url = await server.createMigratedDatabase(name);

  const connection = connect(url, 1);
  try {
    const clinic = await makeClinic(connection.db);
    const key = await makeKey(connection.db, clinic.id);
    project.provide('workersDatabase', { url, clinicId: clinic.id, apiKey: key.raw, keyPrefix: key.row.keyPrefix });
  } finally {
    await connection.close();
  }
  const proxy = await startPgOutageProxy(url);
  const neon = await startNeonWsProxy();
  const at = (port: number) => {
    const address = new URL(url);
    address.hostname = '127.0.0.1';
    address.port = String(port);
    return address.toString();
  };
  project.provide('outageProxy', {
    url: at(proxy.port),
    closedUrl: at(proxy.closedPort),
    controlUrl: proxy.controlUrl,
    neonWsProxy: neon.wsProxy,
  });
  console.log(
    `Workers tests use ${server.embedded ? 'their own embedded PostgreSQL 17' : 'the PostgreSQL at TEST_DATABASE_URL'}; database ${name}.`,
  );
  return async () => {
    await proxy.close();
    await neon.close();
    await server.stop();
  };
}
