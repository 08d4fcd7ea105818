// A TCP proxy in front of PostgreSQL for the outage walk that runs inside workerd
// (database-outage.workers.test.ts). The fault is chosen per connection by the application_name the
// client sends in its startup message, so a test inside workerd picks one per request through the
// DATABASE_URL it hands the Worker (`?application_name=<fault>.<at>.<tag>`), with no channel to switch
// the proxy. The faults:
//   - pass: bytes go through both ways;
//   - refuse: the connection is reset as soon as its startup message arrives (something answers on the
//     port, nothing serves it);
//   - hang-connect: the startup message is read and nothing ever answers (a frozen server, a black hole);
//   - hyperdrive: the startup is answered with the ErrorResponse Hyperdrive sends when it cannot reach
//     the origin database (SQLSTATE 58000, its documented message), then the connection is closed;
//   - reset (at k): through until the client sends its k-th statement, then both sockets are reset
//     (the network dropped; the statement never reaches the server, which rolls back);
//   - terminate (at k): the same, but the client reads FATAL 57P01 first (the backend killed: a
//     restart, a failover) and the socket closes;
//   - hang (at k): the k-th statement and everything after it are swallowed and nothing answers; the
//     server's side is closed (PostgreSQL rolls back) while the client's stays open.
// Statements are Query ('Q') and Parse ('P') messages. The request log's (SQL that names request_logs)
// neither count nor are cut: it is written after the answer, batched across requests.
//
// Every connection is recorded under its tag; GET <controlUrl>/stats answers
// { [tag]: { connections, statements, cut } } as JSON, for the test in workerd to read.
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { freePort } from '../../scripts/lib/embedded-postgres';
import { cString, MessageReader } from './pg-fault-proxy';

export const OUTAGE_FAULTS = ['pass', 'refuse', 'hang-connect', 'hyperdrive', 'reset', 'terminate', 'hang'] as const;
export type OutageFault = (typeof OUTAGE_FAULTS)[number];

/** What one tag's connections saw. */
export interface TagStats {
  connections: number;
  /** The statements that counted, each cut to 100 characters, in order over the tag's connections. */
  statements: string[];
  /** The fault that was applied on reaching statement `at` (or at the startup), if it was. */
  cut: OutageFault | null;
}

export interface PgOutageProxy {
  port: number;
  /** A port where nothing listens (reserved and closed at start): a stopped server. */
  closedPort: number;
  /** http://127.0.0.1:<port>; GET /stats answers every tag's TagStats. */
  controlUrl: string;
  stats: Map<string, TagStats>;
  close(): Promise<void>;
}

/** The application_name a client sends for a fault: `<fault>.<at>.<tag>` (at most 63 characters). */
export function outageApplicationName(fault: OutageFault, at: number, tag: string): string {
  const name = `${fault}.${at}.${tag}`;
  if (name.length > 63 || !/^[\x21-\x7e]+$/.test(name)) throw new Error(`application_name too long or not printable: ${name}`);
  return name;
}

function parseApplicationName(name: string | undefined): { fault: OutageFault; at: number; tag: string } {
  const [fault, at, ...rest] = (name ?? '').split('.');
  if (!OUTAGE_FAULTS.includes(fault as OutageFault)) return { fault: 'pass', at: 0, tag: name || 'untagged' };
  return { fault: fault as OutageFault, at: Number(at) || 1, tag: rest.join('.') || 'untagged' };
}

/** The startup message's parameters (user, database, application_name, ...). */
function startupParameters(body: Buffer): Record<string, string> {
  const parameters: Record<string, string> = {};
  let offset = 4; // after the protocol version
  while (offset < body.length && body[offset] !== 0) {
    const key = cString(body, offset);
    offset += Buffer.byteLength(key) + 1;
    const value = cString(body, offset);
    offset += Buffer.byteLength(value) + 1;
    parameters[key] = value;
  }
  return parameters;
}

/** An ErrorResponse ('E') message: severity, SQLSTATE and message. */
export function errorResponse(severity: 'ERROR' | 'FATAL', code: string, message: string): Buffer {
  const fields = Buffer.concat(
    [
      ['S', severity],
      ['V', severity],
      ['C', code],
      ['M', message],
    ].map(([field, value]) => Buffer.from(`${field}${value}\0`)),
  );
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(4 + fields.length + 1, 1);
  return Buffer.concat([header, fields, Buffer.from([0])]);
}

/** What Hyperdrive answers when it cannot open a connection to the origin database (its troubleshooting page). */
export const HYPERDRIVE_REFUSED = { code: '58000', message: 'Server connection attempt failed: connection_refused' };
const SSL_REQUEST = 80877103;
const IGNORED = /\brequest_logs\b/;

export async function startPgOutageProxy(targetUrl: string): Promise<PgOutageProxy> {
  const target = new URL(targetUrl);
  const stats = new Map<string, TagStats>();
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const server = createServer((client) => {
    track(client);
    let reader = new MessageReader(true);
    let upstream: Socket | null = null;
    /** Set once the fault has been applied: nothing more goes either way (hang), or everything is closed. */
    let stopped = false;
    let fault: ReturnType<typeof parseApplicationName> | null = null;
    let entry: TagStats | null = null;
    let counted = 0;

    const stop = () => {
      stopped = true;
      upstream?.destroy();
    };
    const apply = (kind: OutageFault) => {
      entry!.cut = kind;
      if (kind === 'reset' || kind === 'refuse') {
        stop();
        client.resetAndDestroy();
      } else if (kind === 'terminate') {
        stop();
        client.end(errorResponse('FATAL', '57P01', 'terminating connection due to administrator command'));
      } else if (kind === 'hyperdrive') {
        stop();
        client.end(errorResponse('FATAL', HYPERDRIVE_REFUSED.code, HYPERDRIVE_REFUSED.message));
      } else {
        // hang, hang-connect: the client's socket stays open and unanswered; the server's is closed.
        stop();
      }
    };

    client.on('data', (chunk: Buffer) => {
      if (stopped) return;
      let forwardFrom = 0;
      for (const { type, body, end } of reader.push(chunk)) {
        if (type === '') {
          if (body.readInt32BE(0) === SSL_REQUEST) {
            // No TLS here: say so, and read the startup message that follows.
            client.write('N');
            reader = new MessageReader(true);
            forwardFrom = end;
            continue;
          }
          fault = parseApplicationName(startupParameters(body).application_name);
          entry = stats.get(fault.tag) ?? { connections: 0, statements: [], cut: null };
          stats.set(fault.tag, entry);
          entry.connections++;
          if (fault.fault === 'refuse' || fault.fault === 'hang-connect' || fault.fault === 'hyperdrive') {
            apply(fault.fault);
            return;
          }
          upstream = connect({ host: target.hostname, port: Number(target.port || 5432) });
          track(upstream);
          upstream.on('data', (data: Buffer) => {
            if (!stopped) client.write(data);
          });
          upstream.on('close', () => {
            if (!stopped) client.destroy();
          });
          client.on('close', () => upstream?.destroy());
          continue;
        }
        if (type !== 'Q' && type !== 'P') continue;
        const sql = type === 'Q' ? cString(body) : cString(body, body.indexOf(0) + 1);
        if (IGNORED.test(sql)) continue;
        counted++;
        entry!.statements.push(sql.trim().slice(0, 100));
        if (fault!.fault !== 'pass' && counted === fault!.at) {
          // What came before this statement in the chunk still goes; the statement itself never does.
          const start = end - (5 + body.length);
          if (start > forwardFrom) upstream!.write(chunk.subarray(forwardFrom, start));
          apply(fault!.fault);
          return;
        }
      }
      if (upstream && forwardFrom < chunk.length) upstream.write(forwardFrom === 0 ? chunk : chunk.subarray(forwardFrom));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  const control = createHttpServer((req, res) => {
    if (req.url?.startsWith('/stats')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(Object.fromEntries(stats)));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const controlPort = (control.address() as { port: number }).port;

  return {
    port,
    closedPort: await freePort(),
    controlUrl: `http://127.0.0.1:${controlPort}`,
    stats,
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => server.close(() => resolve())),
        new Promise<void>((resolve) => control.close(() => resolve())),
      ]);
    },
  };
}
