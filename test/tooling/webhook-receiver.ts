// A local webhook receiver for the delivery tests: records every request (raw body, headers, time)
// and answers with the current mode: 200, 500 (optionally with Retry-After), or hangs past 5 s (the
// sender's timeout). No network beyond 127.0.0.1.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverMode = 'ok' | 'fail' | 'hang';

export interface ReceivedRequest {
  method: string;
  path: string;
  /** Header names lower-cased, as node gives them. */
  headers: Record<string, string>;
  rawBody: string;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port>/hook */
  url: string;
  received: ReceivedRequest[];
  mode: ReceiverMode;
  /** Sent as Retry-After with 'fail' answers when set. */
  retryAfter: string | null;
  /** How long 'hang' holds the response (default 6 s, past the 5 s timeout). */
  hangMs: number;
  /** How long 'ok' and 'fail' wait before answering (a slow receiver); 0 by default. */
  delayMs: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const hanging = new Set<ServerResponse>();
  const receiver = {
    url: '',
    received: [] as ReceivedRequest[],
    mode: 'ok' as ReceiverMode,
    retryAfter: null as string | null,
    hangMs: 6_000,
    delayMs: 0,
    close: async () => {},
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : (value ?? '');
      receiver.received.push({ method: req.method ?? '', path: req.url ?? '', headers, rawBody: Buffer.concat(chunks).toString('utf8') });
      // The mode is read on arrival: a request already received is answered as it was when it came.
      const mode = receiver.mode;
      if (mode !== 'hang' && receiver.delayMs > 0) {
        const timer = setTimeout(() => answer(mode), receiver.delayMs);
        res.on('close', () => clearTimeout(timer));
      } else answer(mode);
    });
    const answer = (mode: ReceiverMode) => {
      if (res.writableEnded || res.destroyed) return;
      if (mode === 'ok') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      } else if (mode === 'fail') {
        res.writeHead(500, receiver.retryAfter ? { 'retry-after': receiver.retryAfter } : {}).end('boom');
      } else {
        hanging.add(res);
        const timer = setTimeout(() => {
          hanging.delete(res);
          if (!res.writableEnded) res.writeHead(200).end('too late');
        }, receiver.hangMs);
        res.on('close', () => {
          clearTimeout(timer);
          hanging.delete(res);
        });
      }
    };
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
