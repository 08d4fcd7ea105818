// A TCP proxy for the benchmark (scripts/bench): relays a port to a target, optionally adding a delay to
// every chunk in each direction (simulated distance), and counts the round trips it carries.
//
// A round trip ("turn") is one request->response exchange on a connection: it starts when the client
// sends data while nothing it sent is waiting for an answer, and ends with the last chunk the server
// sends back before the client speaks again. A new connection counts as one more turn (the TCP
// handshake: one round trip before the first byte can cross). Turns of different connections that
// overlap in time were made in parallel; countSequential() counts the longest series of turns that
// followed one another, i.e. the round trips a caller had to wait for one after the other.
//
// With `protocol: 'postgres'` it also reads the PostgreSQL frontend messages the client sends and
// records the SQL of every Parse and simple Query message (statements per request).
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

export interface ProxyTarget {
  host: string;
  port: number;
}

export interface Turn {
  connection: number;
  /** performance.now() when the client's first chunk of the turn reached the proxy. */
  start: number;
  /** performance.now() when the last chunk of the answer was handed to the client. */
  end: number;
  kind: 'connect' | 'exchange';
}

export interface TcpProxyOptions {
  target: ProxyTarget;
  /** Added to every chunk, each way (so a round trip costs twice this); 0 relays at once. */
  delayMs?: number;
  /** 'postgres': record the SQL the client sends (Parse and Query messages). */
  protocol?: 'postgres';
  /** Port to listen on (127.0.0.1); default any free one. */
  port?: number;
}

export interface TcpProxy {
  port: number;
  /** Where new connections go; existing ones keep theirs (see dropConnections). */
  target: ProxyTarget;
  /** Turns and statements are recorded only while this is true (the counting phase of the bench). */
  recording: boolean;
  /** Recorded turns, in order of start. */
  readonly turns: Turn[];
  /** Recorded SQL texts (postgres protocol only), in the order the client sent them. */
  readonly statements: { at: number; sql: string }[];
  /** Connections accepted while recording. */
  readonly connections: number;
  /** Forgets what was recorded. */
  clear(): void;
  /** Closes every open connection (after a change of target, so keep-alive clients reconnect). */
  dropConnections(): void;
  close(): Promise<void>;
}

/** One direction of a connection: chunks leave in order, each `delayMs` after it arrived. */
class DelayedPipe {
  private readonly queue: { at: number; chunk: Buffer }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ended = false;

  constructor(
    private readonly to: Socket,
    private readonly delayMs: number,
    private readonly onDelivered: (at: number) => void,
    /** Nothing leaves before this time (a new connection's handshake). */
    private notBefore = 0,
  ) {}

  push(chunk: Buffer): void {
    const now = performance.now();
    if (this.delayMs === 0 && this.notBefore <= now && this.queue.length === 0) {
      this.to.write(chunk);
      this.onDelivered(now);
      return;
    }
    this.queue.push({ at: Math.max(now + this.delayMs, this.notBefore), chunk });
    this.schedule();
  }

  /** The end of the stream, delivered after what is queued. */
  end(): void {
    this.ended = true;
    if (this.queue.length === 0) this.to.end();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.queue.length = 0;
  }

  private schedule(): void {
    if (this.timer || this.queue.length === 0) return;
    this.timer = setTimeout(() => this.drain(), Math.max(0, this.queue[0]!.at - performance.now()));
  }

  private drain(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.queue.length > 0 && this.queue[0]!.at <= now + 0.5) {
      const { chunk } = this.queue.shift()!;
      if (!this.to.destroyed) this.to.write(chunk);
      this.onDelivered(performance.now());
    }
    if (this.queue.length > 0) this.schedule();
    else if (this.ended) this.to.end();
  }
}

/** PostgreSQL frontend messages: an untyped start-up phase, then [type byte][int32 length][payload]. */
class PostgresSniffer {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;

  constructor(private readonly onStatement: (sql: string) => void) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (!this.started) {
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        if (this.buffer.length < length) return;
        // 196608 = protocol 3.0: the StartupMessage; SSLRequest, GSSENCRequest and CancelRequest come before it.
        if (this.buffer.readInt32BE(4) === 196608) this.started = true;
        this.buffer = this.buffer.subarray(length);
        continue;
      }
      if (this.buffer.length < 5) return;
      const type = String.fromCharCode(this.buffer[0]!);
      const length = this.buffer.readInt32BE(1);
      if (this.buffer.length < 1 + length) return;
      const payload = this.buffer.subarray(5, 1 + length);
      if (type === 'Q') this.onStatement(cString(payload, 0));
      if (type === 'P') {
        const nameEnd = payload.indexOf(0);
        this.onStatement(cString(payload, nameEnd + 1));
      }
      this.buffer = this.buffer.subarray(1 + length);
    }
  }
}

function cString(buffer: Buffer, from: number): string {
  const end = buffer.indexOf(0, from);
  return buffer.toString('utf8', from, end === -1 ? buffer.length : end);
}

export async function startTcpProxy(options: TcpProxyOptions): Promise<TcpProxy> {
  const delayMs = options.delayMs ?? 0;
  const turns: Turn[] = [];
  const statements: { at: number; sql: string }[] = [];
  const open = new Set<Socket>();
  let connectionCount = 0;
  let nextId = 0;

  const proxy: TcpProxy = {
    port: 0,
    target: options.target,
    recording: false,
    turns,
    statements,
    get connections() {
      return connectionCount;
    },
    clear() {
      turns.length = 0;
      statements.length = 0;
      connectionCount = 0;
    },
    dropConnections() {
      for (const socket of open) socket.destroy();
      open.clear();
    },
    close: () => closeServer(server, open),
  };

  const server = createServer((client) => {
    const id = nextId++;
    const accepted = performance.now();
    const recording = proxy.recording;
    if (recording) connectionCount += 1;
    // The handshake with a distant server costs one round trip before any byte reaches it.
    const ready = delayMs > 0 ? accepted + 2 * delayMs : 0;
    if (recording && delayMs > 0) turns.push({ connection: id, start: accepted, end: ready, kind: 'connect' });
    let current: (Turn & { answered: boolean }) | undefined;
    const upstream = tcpConnect(proxy.target);
    open.add(client);
    open.add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const sniffer = options.protocol === 'postgres' ? new PostgresSniffer((sql) => statements.push({ at: performance.now(), sql })) : null;

    const toServer = new DelayedPipe(upstream, delayMs, () => {}, ready);
    const toClient = new DelayedPipe(client, delayMs, (at) => {
      if (current) {
        current.answered = true;
        current.end = at;
      }
    });
    client.on('data', (chunk: Buffer) => {
      if (proxy.recording) {
        sniffer?.push(chunk);
        if (!current || current.answered) {
          // Bytes sent during the handshake leave once it is done: the exchange starts then.
          const start = Math.max(performance.now(), ready);
          current = { connection: id, start, end: start, kind: 'exchange', answered: false };
          turns.push(current);
        }
      }
      toServer.push(chunk);
    });
    upstream.on('data', (chunk: Buffer) => toClient.push(chunk));
    client.on('end', () => toServer.end());
    upstream.on('end', () => toClient.end());
    const teardown = () => {
      toServer.stop();
      toClient.stop();
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', teardown);
    upstream.on('error', teardown);
    client.on('close', teardown);
    upstream.on('close', teardown);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  proxy.port = typeof address === 'object' && address ? address.port : 0;
  return proxy;
}

function closeServer(server: Server, open: Set<Socket>): Promise<void> {
  return new Promise((resolve) => {
    for (const socket of open) socket.destroy();
    open.clear();
    server.close(() => resolve());
  });
}

/**
 * Round trips made one after the other among `turns` (of any number of proxies) that started within
 * [from, to]: the longest series of turns each starting once the previous one had ended (turns in
 * flight together count once). At a fixed delay this is what a caller waited for in sequence.
 */
export function countSequential(turns: Turn[], from = Number.NEGATIVE_INFINITY, to = Number.POSITIVE_INFINITY): number {
  // Earliest end first: the classic greedy choice of the most pairwise disjoint intervals.
  const inWindow = turns.filter((turn) => turn.start >= from && turn.start <= to).sort((a, b) => a.end - b.end);
  let series = 0;
  let ended = Number.NEGATIVE_INFINITY;
  for (const turn of inWindow) {
    if (turn.start >= ended) {
      series += 1;
      ended = turn.end;
    }
  }
  return series;
}
