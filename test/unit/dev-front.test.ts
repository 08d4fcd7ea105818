// The front of `npm run dev` (scripts/lib/dev-front.ts) against a stand-in for wrangler dev: it passes
// the Worker's answers through untouched, keeps the client's framing, never forwards a broken body, and
// answers in the envelope where wrangler's proxy answers in plain text (issue 26, finding 4). The real
// chain (front, wrangler, workerd) is test/integration/dev-server.test.ts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type DevFront, startDevFront } from '../../scripts/lib/dev-front';
import { freePort } from '../../scripts/lib/embedded-postgres';
import { abandon, chunked, head, rawExchange } from '../helpers/raw-http';

interface Seen {
  method: string;
  url: string;
  transferEncoding?: string;
  contentLength?: string;
  bytes: number;
}

const MAX_BODY = 1000;
/** wrangler 4.86's ProxyWorker, word for word, when its forward to the Worker fails. */
const RESTARTED =
  'Your worker restarted mid-request. Please try sending the request again. Only GET or HEAD requests are retried automatically.';

describe('the dev server front', () => {
  let upstream: http.Server;
  let front: DevFront;
  let port: number;
  const seen: Seen[] = [];
  const logged: string[] = [];

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => {
        const path = req.url!.split('?')[0];
        seen.push({
          method: req.method!,
          url: req.url!,
          transferEncoding: req.headers['transfer-encoding'],
          contentLength: req.headers['content-length'],
          bytes,
        });
        if (path === '/restarted') {
          res.writeHead(503, { 'Content-Type': 'text/plain;charset=UTF-8', 'Retry-After': '0' });
          return res.end(RESTARTED);
        }
        if (path === '/restarted-gzip') {
          res.writeHead(503, { 'Content-Type': 'text/plain;charset=UTF-8', 'Content-Encoding': 'gzip', 'Retry-After': '0' });
          return res.end(gzipSync(RESTARTED));
        }
        if (path === '/crashed') {
          res.writeHead(500, { 'Content-Type': 'text/plain;charset=UTF-8' });
          return res.end('Error: Network connection lost.\n    at async Object.fetch (entry.worker.js:4661:22)');
        }
        if (path === '/stream') {
          res.writeHead(200, { 'Content-Type': 'text/csv', 'Set-Cookie': ['a=1', 'b=2'] });
          res.write('id,name\n');
          return setTimeout(() => res.end('1,x\n'), 20);
        }
        if (path === '/missing') {
          res.writeHead(404, { 'Content-Type': 'application/json', 'X-Request-Id': 'from-the-worker' });
          return res.end(JSON.stringify({ success: false, message: 'Order not found', code: 'NOT_FOUND' }));
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ success: true, message: 'OK', data: { bytes } }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    port = await freePort();
    front = await startDevFront({
      port,
      target: (upstream.address() as AddressInfo).port,
      maxBodyBytes: () => MAX_BODY,
      log: (line) => logged.push(line),
    });
  });
  afterAll(async () => {
    await front?.close();
    await new Promise((resolve) => upstream?.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    logged.length = 0;
  });

  it("passes the Worker's answers through as they are, streamed, HEAD without a body", async () => {
    const stream = await fetch(`http://127.0.0.1:${port}/stream`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/csv');
    expect(stream.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await stream.text()).toBe('id,name\n1,x\n');
    const missing = await fetch(`http://127.0.0.1:${port}/missing?x=1`, { method: 'DELETE' });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toBe('from-the-worker');
    expect(await missing.json()).toEqual({ success: false, message: 'Order not found', code: 'NOT_FOUND' });
    const headAnswer = await rawExchange(port, head('HEAD', '/json'));
    expect(headAnswer).toMatchObject({ status: 200, body: '' });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /stream', 'DELETE /missing?x=1', 'HEAD /json']);
  });

  it("keeps the client's framing: a chunked body, GET and HEAD included, reaches the Worker chunked", async () => {
    for (const method of ['GET', 'HEAD', 'POST', 'DELETE']) {
      const answer = await rawExchange(
        port,
        Buffer.concat([Buffer.from(head(method, '/json', { 'transfer-encoding': 'chunked' })), chunked('{"a":', '1}')]),
      );
      expect(answer?.status).toBe(200);
    }
    const sized = await fetch(`http://127.0.0.1:${port}/json`, { method: 'PUT', body: '{"a":1}' });
    expect(sized.status).toBe(200);
    expect(seen).toEqual([
      ...['GET', 'HEAD', 'POST', 'DELETE'].map((method) => ({
        method,
        url: '/json',
        transferEncoding: 'chunked',
        contentLength: undefined,
        bytes: 7,
      })),
      { method: 'PUT', url: '/json', transferEncoding: undefined, contentLength: '7', bytes: 7 },
    ]);
  });

  it("answers wrangler's plain-text errors in the envelope, 503 with Retry-After, and says so on the console", async () => {
    for (const path of ['/restarted', '/restarted-gzip', '/crashed']) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(await res.json()).toEqual({
        success: false,
        message: 'The development server restarted or failed mid-request; retry',
        code: 'SERVICE_UNAVAILABLE',
        retryAfterSeconds: 2,
      });
    }
    expect(logged).toEqual([
      `[dev] wrangler answered 503 (${RESTARTED}) to POST /restarted; sent as the envelope`,
      '[dev] wrangler answered 503 (a gzip body) to POST /restarted-gzip; sent as the envelope',
      '[dev] wrangler answered 500 (Error: Network connection lost.) to POST /crashed; sent as the envelope',
    ]);
  });

  it('never forwards a broken body: malformed framing and early ends answer 400, a client that leaves gets nothing', async () => {
    const post = (headers: Record<string, string>) => head('POST', '/json', { 'content-type': 'application/json', ...headers });
    const broken = [
      { request: `${post({ 'transfer-encoding': 'chunked' })}zz\r\n{}\r\n0\r\n\r\n`, message: 'The request is not well-formed HTTP/1.1' },
      {
        request: `${post({ 'transfer-encoding': 'chunked' })}3\r\n{"a":1}\r\n0\r\n\r\n`,
        message: 'The request is not well-formed HTTP/1.1',
      },
      {
        request: `${post({ 'transfer-encoding': 'chunked', 'content-length': '3' })}2\r\n{}\r\n0\r\n\r\n`,
        message: 'The request is not well-formed HTTP/1.1',
      },
      { request: `${post({ 'content-length': '100' })}{"a":`, halfClose: true, message: 'The request ended before its body was complete' },
      {
        request: `${post({ 'transfer-encoding': 'chunked' })}20\r\n{"a":`,
        halfClose: true,
        message: 'The request ended before its body was complete',
      },
    ];
    for (const { request, halfClose, message } of broken) {
      const answer = await rawExchange(port, request, { halfClose });
      expect(answer?.status, request).toBe(400);
      expect(answer?.headers['content-type']).toBe('application/json');
      expect(JSON.parse(answer!.body)).toEqual({ success: false, message, code: 'MALFORMED_REQUEST' });
    }
    await abandon(port, `${post({ 'transfer-encoding': 'chunked' })}40\r\n{"a":`);
    await abandon(port, `${post({ 'content-length': '50' })}{"a":`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual([]);
  });

  it('past the limit forwards a complete request with the limit and one byte more, for the Worker to refuse by its own rule', async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 10) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, 20));
        sent++;
        controller.enqueue(new Uint8Array(MAX_BODY / 2));
      },
    });
    const res = await fetch(`http://127.0.0.1:${port}/json`, { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(200);
    const [forwarded] = seen;
    expect(forwarded!.transferEncoding).toBe('chunked');
    expect(forwarded!.bytes).toBe(MAX_BODY + 1);
  });

  it('answers 503 in the envelope while wrangler is not listening', async () => {
    const alonePort = await freePort();
    const alone = await startDevFront({ port: alonePort, target: await freePort(), maxBodyBytes: () => MAX_BODY, log: () => {} });
    try {
      const res = await fetch(`http://127.0.0.1:${alonePort}/healthz`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(await res.json()).toEqual({
        success: false,
        message: 'The development server is not answering; retry in a moment',
        code: 'SERVICE_UNAVAILABLE',
        retryAfterSeconds: 2,
      });
    } finally {
      await alone.close();
    }
  });
});
