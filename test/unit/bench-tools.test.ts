// The benchmark's instruments (scripts/bench): the TCP delay proxy's round-trip counting and SQL
// sniffing, and the closed-loop load generator, each against a tiny local server. The benchmark itself
// (`npm run bench`) is not run here.
import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { percentile, runLoad, summarize } from '../../scripts/bench/load';
import { countSequential, startTcpProxy, type TcpProxy, type Turn } from '../../scripts/bench/tcp-proxy';

const DELAY_MS = 15;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function listen<T extends Server | HttpServer>(server: T): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** A line protocol: every line received is answered with "ok <line>\n". */
async function lineServer(): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString();
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        socket.write(`ok ${buffered.slice(0, newline)}\n`);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
      }
    });
    socket.on('close', () => sockets.delete(socket));
  });
  closers.push(async () => {
    for (const socket of sockets) socket.destroy();
  });
  return listen(server);
}

/** A client of lineServer: send() writes lines and resolves once that many answers have come back. */
async function lineClient(port: number) {
  const socket = tcpConnect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  closers.push(async () => socket.destroy());
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk.toString();
  });
  return {
    /** Each line in its own write, 1 ms apart (so several lines are several chunks sent before any answer). */
    async send(...lines: string[]): Promise<void> {
      const before = received.split('\n').length - 1;
      for (const [i, line] of lines.entries()) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1));
        socket.write(`${line}\n`);
      }
      while (received.split('\n').length - 1 < before + lines.length) await new Promise((resolve) => setTimeout(resolve, 1));
    },
    answers: () => received.trim().split('\n'),
  };
}

async function proxyTo(port: number, options: { delayMs?: number; protocol?: 'postgres' } = {}): Promise<TcpProxy> {
  const proxy = await startTcpProxy({ target: { host: '127.0.0.1', port }, ...options });
  closers.push(() => proxy.close());
  proxy.recording = true;
  return proxy;
}

describe('TCP delay proxy', () => {
  it('counts one round trip per request->response turn, plus one for the handshake', async () => {
    const proxy = await proxyTo(await lineServer(), { delayMs: DELAY_MS });
    const client = await lineClient(proxy.port);
    const started = performance.now();
    await client.send('a');
    await client.send('b');
    await client.send('c');
    expect(client.answers()).toEqual(['ok a', 'ok b', 'ok c']);
    expect(proxy.turns.map((turn) => turn.kind)).toEqual(['connect', 'exchange', 'exchange', 'exchange']);
    expect(countSequential(proxy.turns)).toBe(4);
    expect(proxy.connections).toBe(1);
    // The delay is really there (a lower bound only): handshake then three round trips, 2 x 15 ms each.
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * 2 * DELAY_MS - 5);
  });

  it('counts requests sent one after another before any answer (pipelined) as one turn', async () => {
    const proxy = await proxyTo(await lineServer(), { delayMs: DELAY_MS });
    const client = await lineClient(proxy.port);
    await client.send('a', 'b', 'c');
    expect(client.answers()).toEqual(['ok a', 'ok b', 'ok c']);
    expect(proxy.turns.filter((turn) => turn.kind === 'exchange')).toHaveLength(1);
  });

  it('counts round trips made in parallel on several connections once when sequential', async () => {
    const port = await lineServer();
    const proxy = await proxyTo(port, { delayMs: DELAY_MS });
    const [one, two] = await Promise.all([lineClient(proxy.port), lineClient(proxy.port)]);
    await Promise.all([one!.send('x'), two!.send('y')]);
    await one!.send('z');
    // 2 handshakes and 3 exchanges on the wire; in sequence: handshakes, the parallel pair, then z.
    expect(proxy.turns).toHaveLength(5);
    expect(countSequential(proxy.turns)).toBe(3);
  });

  it('merges overlapping turns and counts touching ones apart', () => {
    const turn = (start: number, end: number): Turn => ({ connection: 0, start, end, kind: 'exchange' });
    expect(countSequential([turn(0, 10), turn(5, 12), turn(12, 20), turn(30, 31)])).toBe(3);
    expect(countSequential([turn(0, 10), turn(20, 30)], 15)).toBe(1);
    // Two chains side by side: 0-10 then 10-20 on one connection, 5-15 on another: two in sequence.
    expect(countSequential([turn(0, 10), turn(5, 15), turn(10, 20)])).toBe(2);
    expect(countSequential([])).toBe(0);
  });

  it('records nothing while not recording, and relays without delay when none is set', async () => {
    const proxy = await proxyTo(await lineServer());
    proxy.recording = false;
    const client = await lineClient(proxy.port);
    await client.send('a');
    expect(client.answers()).toEqual(['ok a']);
    expect(proxy.turns).toHaveLength(0);
    proxy.recording = true;
    await client.send('b');
    expect(proxy.turns).toHaveLength(1);
  });

  it('reads the SQL of Parse and Query messages from a PostgreSQL client, across chunk boundaries', async () => {
    const received: Buffer[] = [];
    const server = createServer((socket) => socket.on('data', (chunk) => received.push(chunk)));
    const proxy = await proxyTo(await listen(server), { protocol: 'postgres' });
    const int32 = (n: number) => Buffer.from([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
    const message = (type: string, body: Buffer) => Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);
    const sslRequest = Buffer.concat([int32(8), int32(80877103)]);
    const startupBody = Buffer.from('user\0postgres\0database\0db\0\0');
    const startup = Buffer.concat([int32(startupBody.length + 8), int32(196608), startupBody]);
    const parse = message('P', Buffer.concat([Buffer.from('\0select $1::int\0'), Buffer.from([0, 0])]));
    const query = message('Q', Buffer.from('select 2\0'));
    const sync = message('S', Buffer.alloc(0));
    const stream = Buffer.concat([sslRequest, startup, parse, sync, query]);
    const socket = tcpConnect({ host: '127.0.0.1', port: proxy.port });
    await once(socket, 'connect');
    closers.push(async () => socket.destroy());
    for (let i = 0; i < stream.length; i += 7) {
      socket.write(stream.subarray(i, i + 7));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    while (Buffer.concat(received).length < stream.length) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(Buffer.concat(received).equals(stream)).toBe(true);
    expect(proxy.statements.map((statement) => statement.sql)).toEqual(['select $1::int', 'select 2']);
  });
});

describe('load generator', () => {
  it('keeps exactly `concurrency` requests in flight on as many kept-alive connections, and records each', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let served = 0;
    const sockets = new Set<unknown>();
    const server = createHttpServer((req, res) => {
      sockets.add(req.socket);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      served += 1;
      const status = served % 5 === 0 ? 500 : 200;
      setTimeout(() => {
        inFlight -= 1;
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(req.headers['x-api-key'] === 'k' ? 'hello' : 'no key');
      }, 5);
    });
    const port = await listen(server);
    closers.push(async () => server.closeAllConnections());
    const result = await runLoad({ url: `http://127.0.0.1:${port}/x`, headers: { 'x-api-key': 'k' }, concurrency: 4, durationMs: 400 });
    expect(maxInFlight).toBe(4);
    expect(sockets.size).toBe(4);
    expect(result.requests).toBe(served);
    expect(result.latencies).toHaveLength(result.requests);
    expect(result.statuses['500']).toBe(Math.floor(served / 5));
    expect(result.errors).toBe(result.statuses['500']);
    expect(Math.min(...result.latencies)).toBeGreaterThanOrEqual(4);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(400);
  });

  it('counts a refused connection as an error and stops at the deadline', async () => {
    const server = createServer();
    const port = await listen(server);
    await new Promise((resolve) => server.close(resolve));
    const result = await runLoad({ url: `http://127.0.0.1:${port}/`, concurrency: 2, durationMs: 100 });
    expect(result.requests).toBe(0);
    expect(result.errors).toBeGreaterThan(0);
    expect(result.statuses.failed).toBe(result.errors);
  });

  it('a write run POSTs the body and headers `next` makes for each request, and ends when `next` has no more', async () => {
    const seen: { method?: string; type?: string; key?: string; idem?: string; body: string }[] = [];
    const server = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        seen.push({
          method: req.method,
          type: req.headers['content-type'],
          key: req.headers['x-api-key'] as string,
          idem: req.headers['idempotency-key'] as string,
          body,
        });
        res.writeHead(201).end('{}');
      });
    });
    const port = await listen(server);
    closers.push(async () => server.closeAllConnections());
    let n = 0;
    const next = () => (n < 7 ? { body: JSON.stringify({ n: ++n }), headers: { 'idempotency-key': `k${n}` } } : undefined);
    const result = await runLoad({
      url: `http://127.0.0.1:${port}/w`,
      headers: { 'x-api-key': 'k' },
      next,
      concurrency: 3,
      durationMs: 5_000,
    });
    expect(result.requests).toBe(7);
    expect(result.errors).toBe(0);
    expect(result.elapsedMs).toBeLessThan(5_000);
    expect(seen.map((r) => JSON.parse(r.body).n).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const r of seen) {
      expect(r).toMatchObject({ method: 'POST', type: 'application/json', key: 'k' });
      expect(r.idem).toBe(`k${JSON.parse(r.body).n}`);
    }
  });

  it('only targets this machine', async () => {
    await expect(runLoad({ url: 'http://example.com/', concurrency: 1, durationMs: 10 })).rejects.toThrow(/only targets this machine/);
  });

  it('summarizes rounds as one: requests over total time, nearest-rank percentiles', () => {
    const latencies = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100 ms
    const run = { requests: 100, errors: 1, statuses: { '200': 99, '500': 1 }, latencies, elapsedMs: 1000 };
    const summary = summarize([run, { ...run, latencies: [...latencies].reverse() }]);
    expect(summary).toEqual({ requests: 200, errors: 2, rps: 100, p50: 50, p99: 99 });
    expect(percentile([], 0.5)).toBeNaN();
    expect(percentile([7], 0.99)).toBe(7);
  });
});
