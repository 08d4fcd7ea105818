// A TCP proxy in front of PostgreSQL that cuts a connection at a chosen point of a write transaction,
// for the faults suite. It reads the wire protocol's messages, whatever the driver: from the server,
// BackendKeyData ('K') names the backend's pid, CommandComplete ('C') tags a finished statement
// ("INSERT 0 3", "UPDATE 1", "DELETE 2"), and ReadyForQuery ('Z') ends every statement with the
// transaction status: 'I' idle, 'T' in a transaction block, 'E' in a failed one; from the client,
// Parse ('P') and Query ('Q') carry the statement's text, and Execute ('E') runs the last one parsed
// (no driver here names prepared statements). Statements may be pipelined (node-postgres in pipeline
// mode writes BEGIN with the next statement, and the last one with COMMIT): each is answered in order by
// CommandComplete, ErrorResponse ('E') or EmptyQueryResponse ('I'), then its ReadyForQuery. No TLS: the
// drivers are pointed at it without SSL, as the tests' own PostgreSQL is.
//
// When armed with `cutAfterWrites(n)`, the n-th statement that wrote rows (counted from arming, over
// every connection) is let through up to its ReadyForQuery, and then the connection dies before the
// client can send anything else (its next bytes are dropped, so a COMMIT never reaches the server):
//   - 'terminate': the server kills the backend (pg_terminate_backend), as on a shutdown or failover;
//     the client reads FATAL 57P01 and the socket closes;
//   - 'reset': the proxy destroys both sockets, as when the network drops; the server rolls back.
// Either way the client is between two statements of an open transaction, the point the issue names:
// "connection killed while a write transaction is open".
import { connect, createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';

export type CutKind = 'terminate' | 'reset';

/** One statement that wrote rows, as the server reported it. */
export interface WriteSeen {
  tag: string;
  /** Its SQL (the first 300 characters), for messages. */
  sql: string;
  /** The transaction status after it: 'T' inside a transaction block, 'I' autocommitted. */
  status: string;
  connection: number;
  /** Which transaction of its connection it belongs to (an autocommitted statement is one of its own). */
  transaction: number;
}

export interface CutDone {
  kind: CutKind;
  /** The statement after which the connection died. */
  after: WriteSeen;
  /** The backend's pid (terminate) and whether PostgreSQL confirmed it gone. */
  pid: number | null;
  terminated: boolean;
}

export interface PgFaultProxy {
  /** postgres://... through the proxy, for the same database as `targetUrl`. */
  url: string;
  /** Every write seen since the last reset(), in order. */
  writes: WriteSeen[];
  /** Connections opened through the proxy since start. */
  readonly connections: number;
  /** Cut the connection after the n-th write from now (1 = the first). */
  cutAfterWrites(n: number, kind?: CutKind): void;
  /**
   * Cut the connection at the next COMMIT, once the server has done it: its answer never reaches the
   * client (the sockets are destroyed), which therefore cannot know whether it committed.
   */
  cutAtCommit(): void;
  /** Clears the write log and disarms. */
  reset(): void;
  /** The cut made since the last arming, once made. */
  readonly cut: CutDone | null;
  /** Resolves when the armed cut is done (the backend gone, or the sockets destroyed). */
  cutSettled(): Promise<CutDone | null>;
  close(): Promise<void>;
}

const WRITE_TAG = /^(INSERT \d+|UPDATE|DELETE|MERGE|COPY) (\d+)$/;
/** A statement whose tag says SELECT may still write, in a data-modifying WITH (`with x as (insert ...) select ...`). */
const WRITING_WITH = /^\s*with\b[\s\S]*\b(insert\s+into|update\s+"?\w+"?\s+set|delete\s+from)\b/i;

/** Whether a completed statement wrote: rows by its tag, or a data-modifying WITH that returned any. */
export function wrote(tag: string, sql: string): boolean {
  const match = WRITE_TAG.exec(tag);
  if (match) return Number(match[2]) > 0;
  return /^SELECT [1-9]/.test(tag) && WRITING_WITH.test(sql);
}

export interface PgFaultProxyOptions {
  /** Writes whose SQL matches are neither logged nor counted (the request log, written after the answer). */
  ignore?: RegExp;
}

/** Splits a stream into protocol messages: [type, body]; the first message of a client has no type byte. */
export class MessageReader {
  private buffer: Buffer = Buffer.alloc(0);
  constructor(private untypedFirst: boolean) {}

  /** The complete messages in `chunk` (with what was left over before), each with its end offset in the bytes read so far. */
  push(chunk: Buffer): { type: string; body: Buffer; end: number }[] {
    const start = this.buffer.length;
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const messages: { type: string; body: Buffer; end: number }[] = [];
    let offset = 0;
    for (;;) {
      const header = this.untypedFirst ? 4 : 5;
      if (this.buffer.length - offset < header) break;
      const length = this.buffer.readInt32BE(offset + header - 4);
      const total = header - 4 + length;
      if (this.buffer.length - offset < total) break;
      const type = this.untypedFirst ? '' : String.fromCharCode(this.buffer[offset]!);
      messages.push({ type, body: this.buffer.subarray(offset + header, offset + total), end: offset + total - start });
      offset += total;
      this.untypedFirst = false;
    }
    this.buffer = this.buffer.subarray(offset);
    return messages;
  }
}

/** The NUL-terminated string of a message body at `from`. */
export const cString = (body: Buffer, from = 0) => body.toString('utf8', from, body.indexOf(0, from));

export async function startPgFaultProxy(targetUrl: string, options: PgFaultProxyOptions = {}): Promise<PgFaultProxy> {
  const target = new URL(targetUrl);
  const host = target.hostname;
  const port = Number(target.port || 5432);
  // Terminates backends on the target server (a superuser, or the same role, may).
  const admin = new pg.Client({ connectionString: targetUrl, application_name: 'faults-admin' });
  admin.on('error', () => {});
  await admin.connect();

  const sockets = new Set<Socket>();
  const writes: WriteSeen[] = [];
  let connections = 0;
  let armed: { remaining: number; kind: CutKind } | null = null;
  let armedCommit = false;
  let cut: CutDone | null = null;
  let cutting: Promise<CutDone | null> = Promise.resolve(null);

  const server: Server = createServer((client) => {
    const connection = ++connections;
    const upstream = connect({ host, port });
    sockets.add(client);
    sockets.add(upstream);
    const fromClient = new MessageReader(true);
    const fromServer = new MessageReader(false);
    /** Statements sent and not yet answered, in order; the text of the last Parse. */
    const running: string[] = [];
    let parsed = '';
    let pid: number | null = null;
    let dead = false;
    /** Cut: the client's bytes are dropped; the server's (its FATAL message) still reach the client. */
    let severed = false;
    let writeSeen: Omit<WriteSeen, 'status' | 'transaction'> | null = null;
    /** Transactions begun on this connection, and whether one is open. */
    let transactions = 0;
    let inTransaction = false;

    const die = () => {
      dead = true;
      client.destroy();
      upstream.destroy();
    };
    client.on('error', die);
    upstream.on('error', die);
    client.on('close', () => {
      sockets.delete(client);
      if (!dead) upstream.end();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      if (!dead) client.end();
    });

    client.on('data', (chunk: Buffer) => {
      // After a cut, nothing the client sends reaches the server (no COMMIT slips through).
      if (dead || severed) return;
      for (const { type, body } of fromClient.push(chunk)) {
        if (type === '' && body.length >= 4 && body.readInt32BE(0) === 80877103) {
          die(); // SSLRequest: this proxy reads plaintext only
          return;
        }
        if (type === 'P') parsed = cString(body, body.indexOf(0) + 1);
        else if (type === 'Q') running.push(cString(body));
        else if (type === 'E') running.push(parsed);
      }
      upstream.write(chunk);
    });

    upstream.on('data', (chunk: Buffer) => {
      if (dead) return;
      if (severed) {
        client.write(chunk);
        return;
      }
      let messageStart = 0;
      for (const { type, body, end } of fromServer.push(chunk)) {
        const start = messageStart;
        messageStart = end;
        if (type === 'K') pid = body.readInt32BE(0);
        else if (type === 'C') {
          const tag = cString(body);
          if (armedCommit && tag === 'COMMIT') {
            // Done by the server; the client gets everything before this message and then a dead socket.
            armedCommit = false;
            severed = true;
            const done: CutDone = {
              kind: 'reset',
              after: { tag, sql: 'commit', status: 'I', connection, transaction: transactions },
              pid,
              terminated: false,
            };
            cut = done;
            client.write(chunk.subarray(0, Math.max(0, start)));
            cutting = makeCut(done, die);
            return;
          }
          const sql = running.shift() ?? '';
          if (wrote(tag, sql) && !options.ignore?.test(sql)) writeSeen = { tag, sql: sql.trim().slice(0, 300), connection };
        } else if (type === 'E' || type === 'I') {
          running.shift(); // this statement failed, or was empty: answered without a CommandComplete
        } else if (type === 'Z') {
          const status = String.fromCharCode(body[0]!);
          // A statement that ends inside a block after one that ended outside began a transaction; so did an autocommitted one.
          if (status === 'I' || !inTransaction) transactions++;
          inTransaction = status !== 'I';
          if (!writeSeen) continue;
          const seen: WriteSeen = { ...writeSeen, status, transaction: transactions };
          writeSeen = null;
          writes.push(seen);
          if (armed && --armed.remaining === 0) {
            // Forward through this ReadyForQuery, then nothing more from the client.
            const kind = armed.kind;
            armed = null;
            severed = true;
            cut = { kind, after: seen, pid, terminated: false };
            client.write(chunk.subarray(0, Math.max(0, end)));
            cutting = makeCut(cut, die);
            return;
          }
        }
      }
      client.write(chunk);
    });
  });

  async function makeCut(done: CutDone, die: () => void): Promise<CutDone> {
    if (done.kind === 'reset' || done.pid === null) {
      die();
      return done;
    }
    const { rows } = await admin.query<{ done: boolean }>('select pg_terminate_backend($1, 5000) as done', [done.pid]);
    done.terminated = rows[0]?.done === true;
    return done;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(targetUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as { port: number }).port);

  return {
    url: proxied.toString(),
    writes,
    get connections() {
      return connections;
    },
    cutAfterWrites(n, kind = 'terminate') {
      if (n < 1) throw new Error('cutAfterWrites counts from 1');
      armed = { remaining: n, kind };
      cut = null;
      cutting = Promise.resolve(null);
    },
    cutAtCommit() {
      armedCommit = true;
      cut = null;
      cutting = Promise.resolve(null);
    },
    reset() {
      writes.length = 0;
      armed = null;
      armedCommit = false;
      cut = null;
      cutting = Promise.resolve(null);
    },
    get cut() {
      return cut;
    },
    cutSettled: () => cutting,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await admin.end().catch(() => {});
    },
  };
}
