// The plumbing every local HTTP stand-in of a third-party API shares (node:http on 127.0.0.1, a free
// port, no network): read the body, flatten the headers, answer JSON, listen, close. Each stand-in
// keeps only what is its provider's own (routes, error shapes, state).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a JSON stand-in received: method, path, headers (flatHeaders) and the parsed JSON body. */
export interface RecordedJsonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** The request body as UTF-8 text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The request headers, names lower-cased (as node gives them), repeated values joined with ", ". */
export function flatHeaders(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
}

/** Answers `body` as JSON (no body at all when it is undefined), with any extra headers. */
export function sendJson(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string | number> = {}) {
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export interface LocalServer {
  port: number;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

/**
 * Serves `handle` on 127.0.0.1 (a free port). A handler that throws answers 500 with `onError`'s body
 * (default { error: message }) rather than leaving the client hanging.
 */
export async function startLocalServer(
  handle: (req: IncomingMessage, res: ServerResponse) => unknown,
  onError: (message: string) => unknown = (message) => ({ error: message }),
): Promise<LocalServer> {
  const server = createServer((req, res) => {
    Promise.resolve()
      .then(() => handle(req, res))
      .catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, onError(error instanceof Error ? error.message : 'stand-in failure'));
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
