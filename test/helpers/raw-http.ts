// HTTP/1.1 written byte by byte over node:net, for the requests no HTTP client sends: bodies on GET and
// HEAD, malformed chunk framing, bodies shorter than their Content-Length, clients that leave mid-body.
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** `parts` as chunked framing: each part one chunk, then the last chunk. */
export const chunked = (...parts: (string | Buffer)[]): Buffer =>
  Buffer.concat([
    ...parts.flatMap((part) => {
      const bytes = Buffer.from(part);
      return [Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')];
    }),
    Buffer.from('0\r\n\r\n'),
  ]);

/** A request head: the request line, Host, the given headers, the blank line. */
export const head = (method: string, path: string, headers: Record<string, string> = {}): string =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

/** The body of a chunked answer, or null while it is incomplete. */
function dechunk(bytes: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  for (let at = 0; ; ) {
    const line = bytes.indexOf('\r\n', at);
    if (line < 0) return null;
    const size = Number.parseInt(bytes.subarray(at, line).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts);
    if (bytes.length < line + 2 + size + 2) return null;
    parts.push(bytes.subarray(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
}

/** The first complete answer in `bytes` (a HEAD answer has no body), or null. */
function parse(bytes: Buffer, isHead: boolean, closed: boolean): RawAnswer | null {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine!.split(' ')[1]);
  const rest = bytes.subarray(end + 4);
  let body: Buffer | null;
  if (isHead || status === 204 || status === 304) body = Buffer.alloc(0);
  else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    body = rest.length >= length ? rest.subarray(0, length) : null;
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(rest);
  else body = closed ? rest : null;
  return body && { status, headers, body: body.toString('utf8') };
}

/**
 * Sends `request` on a new connection (optionally half-closing it after, as a client that has nothing
 * more to say), and resolves with the answer, or null when the server closed the connection without one.
 */
export function rawExchange(
  port: number,
  request: string | Buffer,
  options: { halfClose?: boolean; timeoutMs?: number } = {},
): Promise<RawAnswer | null> {
  const isHead = Buffer.from(request).subarray(0, 5).toString() === 'HEAD ';
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const finish = (answer: RawAnswer | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${options.timeoutMs ?? 15_000} ms to ${Buffer.from(request).subarray(0, 60).toString()}`));
    }, options.timeoutMs ?? 15_000);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const answer = parse(received, isHead, false);
      if (answer) finish(answer);
    });
    socket.on('error', () => {}); // a reset after the answer, or instead of one: 'close' decides
    socket.on('close', () => finish(parse(received, isHead, true)));
    socket.write(request);
    if (options.halfClose) socket.end();
  });
}

/** A client that sends the head and part of a body, then leaves (a reset, not a half-close). */
export function abandon(port: number, partial: string | Buffer, afterMs = 20): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(partial, () => {
      setTimeout(() => {
        socket.resetAndDestroy();
        resolve();
      }, afterMs);
    });
  });
}
