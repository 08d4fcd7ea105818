// The front of `npm run dev` (README, "What `npm run dev` puts in front of wrangler"): an HTTP server on
// the dev port that hands each request to `wrangler dev` on a private port once its body has arrived
// whole, and answers in the API's envelope where wrangler's own layers would answer in plain text.
//
// Why (issue 26, finding 4): wrangler dev's proxy (the ProxyWorker of wrangler 4.86) streams each
// request to the Worker, and when the forward fails it takes the failure for a reload of the Worker: it
// compares the URL it forwarded to (with the request's path) to the bare URL of the current Worker, which
// differ for every path but `/`. So any write whose body breaks on the way (the client closes mid-body, a
// body shorter than its Content-Length, malformed chunk framing) answered `503 text/plain "Your worker
// restarted mid-request"`; a GET or HEAD was queued for a retry that waits for the next request and then
// fails (`500 text/plain`, "Cannot reconstruct a Request with a used body"); and on `/`, where the URLs
// match, the failure is reported to wrangler as an error, and wrangler exited. A real reload (a file in
// src/ or public/ changed) answers the same plain-text 503 to a write in flight. The front sends wrangler
// only complete, well-formed requests (Node's parser reads the framing; a broken body is answered here
// and never forwarded), and wraps any non-JSON error of wrangler's in the envelope.
import { randomUUID } from 'node:crypto';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export interface DevFront {
  close(): Promise<void>;
}

/** Headers of one hop (RFC 9110, 7.6.1): never passed on; the front frames each side itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'expect',
]);

/** The envelope's error body, with the headers every answer carries. */
function envelope(status: number, code: string, message: string, extra: Record<string, unknown> = {}) {
  const body = JSON.stringify({ success: false, message, code, ...extra });
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': randomUUID(),
    'X-Content-Type-Options': 'nosniff',
  };
  if (extra.retryAfterSeconds !== undefined) headers['Retry-After'] = String(extra.retryAfterSeconds);
  return { status, headers, body };
}

/** What the development server answers when wrangler could not: retry, as after a database outage. */
const unavailable = (message: string) => envelope(503, 'SERVICE_UNAVAILABLE', message, { retryAfterSeconds: 2 });

/** A request Node's parser refused: its framing, or its body, never arrived whole. */
function refused(error: NodeJS.ErrnoException) {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return envelope(431, 'HEADERS_TOO_LARGE', 'Request headers are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return envelope(408, 'REQUEST_TIMEOUT', 'The request did not arrive in time');
    case 'HPE_INVALID_EOF_STATE':
      return envelope(400, 'MALFORMED_REQUEST', 'The request ended before its body was complete');
    default:
      return envelope(400, 'MALFORMED_REQUEST', 'The request is not well-formed HTTP/1.1');
  }
}

function send(res: ServerResponse, answer: ReturnType<typeof envelope>) {
  if (res.headersSent) return void res.destroy();
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/** The upstream request's headers: the client's, with this hop's framing replaced by the body as sent. */
function forwardedHeaders(headers: IncomingHttpHeaders, body: Buffer): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  // The Worker sees the framing the client chose (a chunked body stays chunked, as at Cloudflare's edge).
  if (headers['transfer-encoding'] !== undefined) out['transfer-encoding'] = 'chunked';
  else if (headers['content-length'] !== undefined || body.length > 0) out['content-length'] = String(body.length);
  return out;
}

/**
 * Starts the front on 127.0.0.1:port, passing requests to wrangler dev on 127.0.0.1:target. A body is
 * buffered until it ends or passes the app's limit for its Content-Type (maxBodyBytes); past that the
 * request goes on with the limit's bytes and one more, for the Worker to refuse with its own 413, and
 * the rest is read and dropped. (Passed whole, a body far over the limit stalls wrangler's proxy: the
 * Worker answers once past its limit, and the proxy holds that answer while the rest waits unread.)
 */
export async function startDevFront(options: {
  port: number;
  target: number;
  maxBodyBytes: (contentType: string | undefined) => number;
  log?: (line: string) => void;
}): Promise<DevFront> {
  const log = options.log ?? ((line: string) => console.warn(line));
  // One connection per request: a pooled connection that workerd closes as the next request is written
  // on it would fail a request that never reached the Worker.
  const agent = new http.Agent({ keepAlive: false });

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const upstream = http.request(
      { host: '127.0.0.1', port: options.target, method: req.method, path: req.url, headers: forwardedHeaders(req.headers, body), agent },
      (answer) => {
        const status = answer.statusCode ?? 502;
        const type = answer.headers['content-type'] ?? '';
        if (status >= 400 && !type.includes('json')) {
          // wrangler's or miniflare's own answer, never the Worker's (its errors are all JSON).
          let text = '';
          answer.setEncoding('utf8');
          answer.on('data', (chunk: string) => (text += text.length < 500 ? chunk : ''));
          answer.on('end', () => {
            // workerd compresses a text answer for a client that accepts it: then only the encoding is said.
            const encoding = answer.headers['content-encoding'];
            const said = encoding ? `a ${encoding} body` : text.split('\n')[0]!.slice(0, 200);
            log(`[dev] wrangler answered ${status} (${said}) to ${req.method} ${req.url}; sent as the envelope`);
            send(
              res,
              status >= 500
                ? unavailable('The development server restarted or failed mid-request; retry')
                : envelope(status, 'MALFORMED_REQUEST', `The development server refused the request (${said})`),
            );
          });
          return;
        }
        const headers: string[] = [];
        for (let i = 0; i < answer.rawHeaders.length; i += 2) {
          const name = answer.rawHeaders[i]!;
          if (!HOP_BY_HOP.has(name.toLowerCase()) || name.toLowerCase() === 'content-length') headers.push(name, answer.rawHeaders[i + 1]!);
        }
        res.writeHead(status, answer.statusMessage, headers);
        answer.pipe(res);
        res.on('close', () => answer.resume()); // a client gone mid-answer: the rest is read and dropped
      },
    );
    // wrangler is not listening (starting, or gone: dev.ts then stops) or dropped the connection.
    upstream.on('error', () => send(res, unavailable('The development server is not answering; retry in a moment')));
    upstream.end(body);
  };

  const server = http.createServer((req, res) => {
    const limit = options.maxBodyBytes(req.headers['content-type']);
    const chunks: Buffer[] = [];
    let size = 0;
    let forwarded = false;
    const go = () => {
      if (forwarded) return;
      forwarded = true;
      forward(req, res, Buffer.concat(chunks).subarray(0, limit + 1));
    };
    // A body that breaks (the client closes, or the parser refuses the framing) ends here: 'clientError'
    // answers when the client can still read, and nothing is forwarded.
    req.on('error', () => {});
    req.on('data', (chunk: Buffer) => {
      if (forwarded) return; // past the limit: read and dropped while the Worker answers
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) go();
    });
    req.on('end', go);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const response = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) return void socket.destroy();
    const answer = refused(error);
    const head = Object.entries({ ...answer.headers, Connection: 'close' })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(`HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status]}\r\n${head}\r\n${answer.body}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
