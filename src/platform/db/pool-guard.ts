import type { ConnectionGate } from './connection-gate';
import { markUnavailable } from './errors';

/** Wait at most this long for a free slot of the connection gate (503 after). */
export const GATE_WAIT_MS = 5_000;
/** How long close() waits for the pool to end before it gives the gate slot back anyway. */
const CLOSE_WAIT_MS = 5_000;

/** The part of pg's (and Neon's, which bundles pg-pool) Pool that the guard wraps and listens to. */
export interface GuardedPool {
  connect(...args: unknown[]): unknown;
  end(): Promise<void>;
  /** pg-pool sets it once end() was called: a connect after that is a bug, not an outage. */
  ending?: boolean;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  on(event: 'connect', listener: (client: PooledClient) => void): unknown;
}

/** A connected client of pg's Pool, as far as the guard touches it. */
export interface PooledClient {
  on(event: 'error', listener: (error: unknown) => void): unknown;
  release?: (error?: unknown) => void;
  /** pg's Connection; its stream is a net.Socket in Node, pg-cloudflare's CloudflareSocket in workerd, Neon's WebSocket socket. */
  connection?: { stream?: WatchedStream };
}

/** The part of a driver's socket the guard uses. */
export interface WatchedStream {
  write(data: Uint8Array | string, ...rest: unknown[]): boolean;
  on(event: 'data' | 'close', listener: (chunk?: Uint8Array) => void): unknown;
  emit(event: string, ...args: unknown[]): boolean;
  destroy(): unknown;
}

export interface PoolGuardOptions {
  /** Caps the connections of this isolate: a slot on the first connect, given back on close. */
  gate?: ConnectionGate;
  /** Close a connection whose answer does not start within this many ms of a statement (no limit when absent). */
  answerTimeoutMs?: number;
  /**
   * close() also waits (within CLOSE_WAIT_MS, after giving the gate slot back) until every socket write
   * made with a callback has called it back: pg's Terminate, written by end(). For pg's own sockets only (Node's, pg-cloudflare's), whose
   * write takes the callback last; Neon's takes it third and never calls the one pg passes second.
   */
  settleWrites?: boolean;
}

/** The database did not answer a statement in time; its connection was closed (the server rolls back). */
export class DatabaseAnswerTimeout extends Error {
  constructor(ms: number) {
    super(`The database did not answer within ${ms} ms; the connection was closed`);
    this.name = 'DatabaseAnswerTimeout';
  }
}

/**
 * Makes a per-request pool safe to lose its database at any moment, in every runtime:
 *
 * - A failure to open a connection, and the loss of an open one, are marked (markUnavailable) as the
 *   driver reports them, so they answer 503 whatever the runtime calls them: workerd's
 *   "proxy request failed, cannot connect to the specified address" is an Error with nothing but that
 *   message, Node's has a code, Neon's is a WebSocket event.
 * - A lost connection is reported as an `error` event of its client, which pg-pool listens to only
 *   while the client is idle: unheard, it would be an uncaught exception that takes the isolate down
 *   with every request in it. Heard here, and the client is handed back to the pool at once (and so
 *   closed): Drizzle's transaction() never releases its client when BEGIN itself fails, and a client
 *   left checked out keeps pool.end() from ever finishing (the request's gate slot was never given back,
 *   and with a pool of one, the request's next statement waited for it: the Idempotency-Key it had
 *   claimed could not be freed). A second release of the same client (Drizzle's own, later) is ignored.
 * - A statement whose answer does not start within answerTimeoutMs closes its connection (the watchdog
 *   below), so a database that stops answering mid-request ends in a 503, not a request that hangs and
 *   holds its gate slot for good.
 * - close() hands back every client still checked out, ends the pool, gives the gate slot back even if
 *   ending takes longer than CLOSE_WAIT_MS, then waits (within the same CLOSE_WAIT_MS) for the pool's
 *   last socket writes to settle (settleWrites).
 *
 * Patched on the instance, so Drizzle's `instanceof Pool` check still holds. Both Drizzle paths go
 * through pool.connect: transactions call it directly, plain queries through pool.query.
 */
export function guardPool(pool: GuardedPool, { gate, answerTimeoutMs, settleWrites }: PoolGuardOptions = {}): { close(): Promise<void> } {
  const held = new Set<PooledClient>();
  const writes = settleWrites ? new WriteTracker() : undefined;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<PooledClient>;
  const end = pool.end.bind(pool);
  let slot: Promise<() => void> | undefined;

  pool.on('error', markUnavailable); // an idle client dropped by the server
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      // A client a request holds lost its connection (the same error object reaches its queries).
      markUnavailable(error);
      if (held.has(client)) client.release?.(error);
    });
    const stream = client.connection?.stream;
    if (stream) giveStreamErrorsAReason(stream);
    if (stream && answerTimeoutMs) watchAnswers(stream, answerTimeoutMs);
    if (stream && writes) writes.track(stream);
  });

  /** The client with a release that may be called twice (Drizzle's after ours) and forgets it here. */
  const hold = (client: PooledClient) => {
    const release = client.release;
    let released = false;
    held.add(client);
    client.release = (error?: unknown) => {
      if (released) return;
      released = true;
      held.delete(client);
      release?.call(client, error);
    };
    return client;
  };

  const connected = async () => {
    if (gate) {
      slot ??= gate.acquire(GATE_WAIT_MS);
      await slot;
    }
    try {
      return hold(await connect());
    } catch (error) {
      if (!pool.ending) markUnavailable(error);
      throw error;
    }
  };
  pool.connect = (callback?: unknown) => {
    const client = connected();
    if (typeof callback !== 'function') return client;
    client.then(
      (c) => callback(undefined, c, c.release),
      (error: unknown) => callback(error),
    );
    return undefined;
  };

  return {
    async close() {
      for (const client of [...held]) client.release?.(new Error('The request ended with this database connection still held'));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
      try {
        try {
          await Promise.race([end(), deadline]);
        } finally {
          // A slot whose wait timed out was never taken, so there is nothing to give back then.
          if (slot)
            await slot.then(
              (release) => release(),
              () => {},
            );
        }
        // The slot is back (the connection is closing); the request lives on until its last writes settle.
        if (writes) await Promise.race([writes.settled(), deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * The socket writes of a pool still waiting for their callback. pg-pool's end() resolves as soon as it
 * has asked each client to end, and a client's end() writes Terminate and closes the socket only in that
 * write's callback. A request's close() therefore resolved with the write still in flight, ending the
 * request's waitUntil and with it the I/O context workerd would have settled the write in: in about one
 * connection in six it never was, and since workerd keeps a socket's objects for the isolate's life, the
 * pending write held pg's whole client (Pool, Client, Connection, Parser, socket, timers) and this
 * guard's closures, ~5 KB a request (docs/benchmarks.md, "Memory"). close() now waits for them. Only
 * writes given a callback are counted: a statement's write is settled before its answer comes.
 */
class WriteTracker {
  private pending = 0;
  private waiting: (() => void)[] = [];

  track(stream: WatchedStream): void {
    const write = stream.write.bind(stream);
    stream.write = (data, ...rest) => {
      const last = rest.length - 1;
      const callback = rest[last];
      if (typeof callback !== 'function') return write(data, ...rest);
      this.pending++;
      let called = false;
      rest[last] = (...args: unknown[]) => {
        if (!called) {
          called = true;
          if (--this.pending === 0) for (const resolve of this.waiting.splice(0)) resolve();
        }
        return (callback as (...a: unknown[]) => unknown)(...args);
      };
      return write(data, ...rest);
    };
  }

  settled(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }
}

/**
 * pg-cloudflare passes every rejection of workerd's socket on as its stream's `error`, and closing a
 * socket the server has already closed (after a FATAL, such as a terminated backend) rejects with no
 * reason at all: pg's handler reads `error.code` of that undefined and throws, an unhandled rejection
 * in the isolate. Such an error is given one.
 */
function giveStreamErrorsAReason(stream: WatchedStream): void {
  const emit = stream.emit.bind(stream);
  stream.emit = (event, ...args) =>
    event === 'error' && (args[0] === undefined || args[0] === null)
      ? emit(event, new Error('The database socket failed without saying why'))
      : emit(event, ...args);
}

/** The last bytes of a ReadyForQuery message ('Z', length 5, transaction status): the server waits for the client. */
function endsWithReadyForQuery(tail: Uint8Array): boolean {
  const n = tail.length;
  return n >= 6 && tail[n - 6] === 0x5a && tail[n - 5] === 0 && tail[n - 4] === 0 && tail[n - 3] === 0 && tail[n - 2] === 5;
}

/**
 * The answer watchdog: once the client writes (a statement), the server must send something within
 * `ms`, and again within `ms` of each chunk, until it says it is ready for the next statement. If it
 * does not, the connection's stream gets a DatabaseAnswerTimeout as its error (pg fails the statement
 * and every one queued behind it with it, and reports it as the client's error event) and is closed.
 * An idle connection (nothing written since the server's last ReadyForQuery) is never timed: a request
 * may keep one between two statements while it calls someone else.
 */
export function watchAnswers(stream: WatchedStream, ms: number): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The last bytes received since the client last wrote. */
  let tail = new Uint8Array(0);
  /** Fired or closed: nothing more to watch (the closing writes must not start a timer again). */
  let done = false;
  const stop = () => {
    done = true;
    clearTimeout(timer);
    timer = undefined;
  };
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stop();
      stream.emit('error', new DatabaseAnswerTimeout(ms));
      stream.destroy();
    }, ms);
  };
  const write = stream.write.bind(stream);
  stream.write = (data, ...rest) => {
    if (!done && timer === undefined) {
      tail = new Uint8Array(0);
      arm();
    }
    return write(data, ...rest);
  };
  stream.on('data', (chunk) => {
    if (done || timer === undefined || !chunk) return;
    const joined = new Uint8Array(tail.length + chunk.length);
    joined.set(tail);
    joined.set(chunk, tail.length);
    tail = joined.subarray(Math.max(0, joined.length - 6));
    if (endsWithReadyForQuery(tail)) {
      clearTimeout(timer);
      timer = undefined;
    } else arm();
  });
  stream.on('close', stop);
}
