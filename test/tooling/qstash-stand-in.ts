// A local stand-in for QStash, test tooling only (no network): it speaks the publish API the official
// @upstash/qstash Client uses (POST /v2/publish/<destination>, Bearer token, Upstash-* headers,
// deduplication ids) and calls destinations back with requests signed the way QStash signs them
// (an HS256 JWT in Upstash-Signature: iss Upstash, sub = the destination URL, body = base64url
// SHA-256 of the body), honouring 2xx, 489 + Upstash-NonRetryable-Error, and retries otherwise.

import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { QStashConfig } from '../../src/config';
import { readBody } from './http-stand-in';

export interface StandInMessage {
  messageId: string;
  destination: string;
  body: string;
  headers: Record<string, string>;
  notBefore: number | null;
  deduplicationId: string | null;
  retries: number;
  retried: number;
  state: 'pending' | 'delivered' | 'failed';
  lastStatus: number | null;
  /** Flow control (Upstash-Flow-Control-Key and its parallelism=N): at most N callbacks of the key at once. */
  flowControl: { key: string; parallelism: number } | null;
}

/** How the stand-in reaches a destination: in tests, the app's request() instead of a socket. */
export type Caller = (url: string, init: { method: 'POST'; headers: Record<string, string>; body: string }) => Promise<Response>;

export interface QStashStandIn {
  url: string;
  token: string;
  currentSigningKey: string;
  nextSigningKey: string;
  messages: StandInMessage[];
  publishCalls: number;
  /** Which key signs the callbacks deliverDue makes: QStash signs with the current key, and with the next one during a rotation. */
  signWith: 'current' | 'next';
  /** Seconds before a failed callback is due again (by retries made so far); default 0: due at once. Real QStash backs off exponentially. */
  retryBackoffSeconds: (retried: number) => number;
  /** Calls back every pending message due at `nowSeconds` once; answers how many were called. */
  deliverDue(call: Caller, nowSeconds?: number): Promise<number>;
  /**
   * Calls back as QStash does once started: each message on its own, as soon as it is published (or
   * when its not-before time comes), concurrently with the others, its retries on the backoff; no
   * polling, and a slow callback holds up only its own message. A message under flow control waits
   * while its key has `parallelism` callbacks in flight. Answers the function that stops it (and waits
   * for the callbacks in flight).
   */
  deliverContinuously(call: Caller, onError?: (error: unknown) => void): () => Promise<void>;
  /** A signature as QStash makes it, for tests that forge or tamper. */
  sign(destination: string, body: string, key?: string): string;
  close(): Promise<void>;
}

const b64url = (input: Buffer | string) => Buffer.from(input).toString('base64url');

export function signLikeQStash(key: string, destination: string, body: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(
    JSON.stringify({
      iss: 'Upstash',
      sub: destination,
      exp: nowSeconds + 300,
      nbf: nowSeconds,
      iat: nowSeconds,
      jti: randomUUID(),
      body: createHash('sha256').update(body).digest('base64url'),
    }),
  );
  const signature = createHmac('sha256', key).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

export async function startQStashStandIn(): Promise<QStashStandIn> {
  const token = `qstash_test_${randomUUID()}`;
  const currentSigningKey = `sig_current_${randomUUID()}`;
  const nextSigningKey = `sig_next_${randomUUID()}`;
  const messages: StandInMessage[] = [];
  const seen = new Map<string, string>();
  let publishCalls = 0;
  let continuous: { schedule(message: StandInMessage): void } | null = null;

  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'invalid token' });
    const path = req.url ?? '';
    if (req.method !== 'POST' || !path.startsWith('/v2/publish/')) return send(404, { error: 'not found' });
    publishCalls++;
    const destination = decodeURIComponent(path.slice('/v2/publish/'.length));
    if (!/^https?:\/\//.test(destination)) return send(400, { error: 'invalid destination url' });
    const body = await readBody(req);
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const deduplicationId = header('upstash-deduplication-id') ?? null;
    if (deduplicationId && seen.has(deduplicationId)) return send(201, { messageId: seen.get(deduplicationId), deduplicated: true });
    const notBefore = header('upstash-not-before');
    const flowKey = header('upstash-flow-control-key');
    const parallelism = /(?:^|,)\s*parallelism=(\d+)/.exec(header('upstash-flow-control-value') ?? '');
    const forwarded: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (name.startsWith('upstash-forward-') && typeof value === 'string') forwarded[name.slice('upstash-forward-'.length)] = value;
    }
    const message: StandInMessage = {
      messageId: `msg_${randomUUID()}`,
      destination,
      body,
      headers: { 'content-type': header('content-type') ?? 'application/json', ...forwarded },
      notBefore: notBefore ? Number(notBefore) : null,
      deduplicationId,
      retries: Number(header('upstash-retries') ?? 3),
      retried: 0,
      state: 'pending',
      lastStatus: null,
      flowControl: flowKey && parallelism ? { key: flowKey, parallelism: Number(parallelism[1]) } : null,
    };
    messages.push(message);
    if (deduplicationId) seen.set(deduplicationId, message.messageId);
    send(201, { messageId: message.messageId });
    continuous?.schedule(message);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** One callback of a message, and what QStash does with the answer. */
  const callOnce = async (message: StandInMessage, call: Caller, nowSeconds: number) => {
    const res = await call(message.destination, {
      method: 'POST',
      headers: {
        ...message.headers,
        'upstash-signature': signLikeQStash(
          standIn.signWith === 'next' ? nextSigningKey : currentSigningKey,
          message.destination,
          message.body,
        ),
        'upstash-message-id': message.messageId,
        'upstash-retried': String(message.retried),
      },
      body: message.body,
    });
    message.lastStatus = res.status;
    await res.body?.cancel().catch(() => undefined);
    if (res.status >= 200 && res.status < 300) message.state = 'delivered';
    else if (res.status === 489 && res.headers.get('upstash-nonretryable-error') === 'true') message.state = 'failed';
    else retryLater(message, nowSeconds);
  };
  /** A failed callback: retried after the backoff, until its retries are spent. */
  const retryLater = (message: StandInMessage, nowSeconds: number) => {
    if (message.retried >= message.retries) {
      message.state = 'failed';
      return;
    }
    message.retried++;
    const backoff = standIn.retryBackoffSeconds(message.retried);
    if (backoff > 0) message.notBefore = nowSeconds + backoff;
  };

  const standIn: QStashStandIn = {
    url,
    token,
    currentSigningKey,
    nextSigningKey,
    messages,
    get publishCalls() {
      return publishCalls;
    },
    signWith: 'current',
    retryBackoffSeconds: () => 0,
    sign: (destination, body, key = currentSigningKey) => signLikeQStash(key, destination, body),
    async deliverDue(call, nowSeconds = Math.floor(Date.now() / 1000)) {
      const due = messages.filter((m) => m.state === 'pending' && (m.notBefore === null || m.notBefore <= nowSeconds));
      for (const message of due) await callOnce(message, call, nowSeconds);
      return due.length;
    },
    deliverContinuously(call, onError = () => {}) {
      const timers = new Set<NodeJS.Timeout>();
      const inFlight = new Set<Promise<void>>();
      /** Per flow-control key: callbacks in flight, and messages due that wait for one to end. */
      const flows = new Map<string, { running: number; waiting: StandInMessage[] }>();
      let stopped = false;
      const start = (message: StandInMessage) => {
        const flow = message.flowControl ? flows.get(message.flowControl.key) : undefined;
        if (message.flowControl) {
          const f = flow ?? { running: 0, waiting: [] };
          flows.set(message.flowControl.key, f);
          if (f.running >= message.flowControl.parallelism) {
            f.waiting.push(message);
            return;
          }
          f.running++;
        }
        const at = Math.floor(Date.now() / 1000);
        const run = callOnce(message, call, at)
          .catch((error) => {
            // Our callback not reached (a network error): QStash retries it like a 5xx.
            onError(error);
            retryLater(message, at);
          })
          .then(() => {
            if (message.flowControl) {
              const f = flows.get(message.flowControl.key)!;
              f.running--;
              let next = f.waiting.shift();
              while (next && next.state !== 'pending') next = f.waiting.shift();
              if (next && !stopped) start(next);
            }
            schedule(message);
          })
          .finally(() => inFlight.delete(run));
        inFlight.add(run);
      };
      const schedule = (message: StandInMessage) => {
        if (stopped || message.state !== 'pending') return;
        const wait = message.notBefore === null ? 0 : Math.max(0, message.notBefore * 1000 - Date.now());
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (stopped || message.state !== 'pending') return;
          start(message);
        }, wait);
        timers.add(timer);
      };
      continuous = { schedule };
      for (const message of messages) schedule(message);
      return async () => {
        stopped = true;
        continuous = null;
        for (const timer of timers) clearTimeout(timer);
        await Promise.all([...inFlight]);
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return standIn;
}

/** The app's QStash settings pointing at a stand-in, with our callback URL as its destination. */
export function qstashConfigFor(standIn: QStashStandIn, callbackUrl: string): QStashConfig {
  return {
    token: standIn.token,
    baseUrl: standIn.url,
    currentSigningKey: standIn.currentSigningKey,
    nextSigningKey: standIn.nextSigningKey,
    callbackUrl,
  };
}
