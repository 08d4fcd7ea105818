// One HTTP attempt of a webhook, whoever makes it (the delivery engine, a test send): the destination
// checked again, signed fresh with the endpoint's active secrets, POSTed with a timeout, the answer's
// status, the first 1 KiB of its body and a closed error kind (docs/webhooks.md, "Attempts").
import type { Queryable } from '../../../../platform/db/client';
import { logLine } from '../../../../platform/log';
import { ProviderError } from '../../../../platform/providers/errors';
import type { MessageSender } from '../../../../platform/providers/messaging/types';
import type { DestinationCheck } from '../destination';
import { deliveryHeaders } from './delivery-headers';
import { parseRetryAfter } from './schedule';

/** A receiver must answer 2xx within this long. */
export const DELIVERY_TIMEOUT_MS = 5_000;
/** How much of a receiver's answer is kept with the attempt: 1 KiB, as text. */
export const RESPONSE_BODY_LIMIT_BYTES = 1024;

/** Why an attempt failed: a closed set (the attempt's text `errorDetail` says more). */
export const ATTEMPT_ERRORS = ['timeout', 'connection_refused', 'dns', 'tls', 'invalid_response', 'http_status'] as const;
export type AttemptError = (typeof ATTEMPT_ERRORS)[number];

/** The endpoint's decrypted active signing secrets, newest first. */
export type SigningSecrets = (db: Queryable, clinicId: string, endpointId: string, now: Date) => Promise<string[]>;

export interface DeliveryOptions {
  secrets: SigningSecrets;
  /**
   * Whether the endpoint's stored URL may be called now: the URL policy and what its name resolves to,
   * checked again before every attempt (a name can point elsewhere since registration). Throws
   * ProviderError when the resolver gives no answer.
   */
  checkDestination(url: string): Promise<DestinationCheck>;
  /** Sends the email of the alert when an attempt turns the endpoint off (docs/webhooks.md). */
  messaging: MessageSender;
  fetchImpl?: typeof fetch;
  /** Jitter source in [0, 1); Math.random by default. */
  random?: () => number;
  /** Attempt even when next_attempt_at is in the future (the dev flush). */
  ignoreSchedule?: boolean;
  timeoutMs?: number;
}

export interface SendResult {
  status: number | null;
  /** Our description of a failure (null on success). */
  error: string | null;
  /** The failure's kind (null on success). */
  errorKind: AttemptError | null;
  /** The first 1 KiB of the receiver's answer, as text; null when nothing was answered. */
  responseBody: string | null;
  retryAfterMs: number | null;
  durationMs: number;
  /**
   * Whether a failure counts toward the endpoint's consecutive failures (and its cut-off). Everything
   * the endpoint is answerable for does; our resolver not answering does not: nothing was sent.
   */
  countsAgainstEndpoint: boolean;
}

const notSent = (error: string, errorKind: AttemptError, countsAgainstEndpoint: boolean): SendResult => ({
  status: null,
  error: error.slice(0, 500),
  errorKind,
  responseBody: null,
  retryAfterMs: null,
  durationMs: 0,
  countsAgainstEndpoint,
});

/**
 * The attempt's failure when the URL may not be called now (refused: it counts toward the cut-off, as
 * any failure of the endpoint does), or when its name could not be resolved (recorded, retried on the
 * schedule, not counted); null when it may be called. A name refused for what it resolves to (or for
 * having no address) is a `dns` failure; a URL refused as written, `connection_refused` (we refuse to
 * connect to it).
 */
export async function refusedDestination(
  options: DeliveryOptions,
  delivery: { id: string; endpointId: string; url: string },
): Promise<SendResult | null> {
  try {
    const check = await options.checkDestination(delivery.url);
    if (check.ok) return null;
    logLine('warn', 'webhook destination refused', { deliveryId: delivery.id, endpointId: delivery.endpointId, reason: check.reason });
    const kind: AttemptError = /resolves to|has no address/.test(check.reason) ? 'dns' : 'connection_refused';
    return notSent(`not sent: url ${check.reason}`, kind, true);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    logLine('warn', 'webhook destination not checked', { deliveryId: delivery.id, endpointId: delivery.endpointId, detail: error.message });
    return notSent(`not sent: the URL's addresses could not be checked (${error.message})`, 'dns', false);
  }
}

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const REFUSED_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'EADDRNOTAVAIL']);
const TLS_CODE = /^(CERT_|ERR_TLS|ERR_SSL|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_(VERIFY|GET)|HOSTNAME_MISMATCH|ERR_OSSL)/;

/**
 * The kind of a failed fetch: by the error's code (Node's fetch puts it on `cause`), else by its
 * message (workerd's fetch has no codes). A connection that was made but gave no usable HTTP answer
 * (reset, closed mid-answer, not HTTP) is `invalid_response`; anything else not recognised is
 * `connection_refused` (no answer could be had).
 */
export function classifyFetchError(error: unknown): AttemptError {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'timeout';
  const chain: { code?: unknown; message?: unknown }[] = [];
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    chain.push(e as { code?: unknown; message?: unknown });
  }
  for (const { code } of chain) {
    if (typeof code !== 'string') continue;
    if (TIMEOUT_CODES.has(code)) return 'timeout';
    if (DNS_CODES.has(code)) return 'dns';
    if (REFUSED_CODES.has(code)) return 'connection_refused';
    if (TLS_CODE.test(code)) return 'tls';
    if (code.startsWith('HPE_') || code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return 'invalid_response';
  }
  const text = chain.map(({ message }) => (typeof message === 'string' ? message : '')).join(' ');
  if (/timed? ?out/i.test(text)) return 'timeout';
  if (/\b(dns|getaddrinfo|name not resolved|could not resolve)\b/i.test(text)) return 'dns';
  if (/\b(tls|ssl|certificate|handshake)\b/i.test(text)) return 'tls';
  if (/refused|unreachable/i.test(text)) return 'connection_refused';
  if (/parse|invalid|malformed|reset|connection lost|closed|hang up|premature/i.test(text)) return 'invalid_response';
  return 'connection_refused';
}

/** Up to `limit` bytes of a body as text (an incomplete last character left out, NUL characters dropped); the rest is not read. */
export async function readBodyStart(body: ReadableStream<Uint8Array> | null, limit = RESPONSE_BODY_LIMIT_BYTES): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let read = 0;
  try {
    while (read < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = value.subarray(0, limit - read);
      read += chunk.length;
      text += decoder.decode(chunk, { stream: true });
    }
  } catch {
    // What arrived before the answer broke off is kept.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  // PostgreSQL text cannot hold NUL.
  return text.replaceAll('\u0000', '');
}

async function send(
  fetchImpl: typeof fetch,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  now: Date,
): Promise<SendResult> {
  const started = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    // Redirects are not followed: a 3xx is a failure, and a redirect cannot lead past the URL checks.
    const res = await fetchImpl(url, { method: 'POST', headers, body, redirect: 'manual', signal });
    const responseBody = await readBodyStart(res.body);
    const ok = res.status >= 200 && res.status < 300;
    return {
      status: res.status,
      error: ok ? null : `HTTP ${res.status}`,
      errorKind: ok ? null : 'http_status',
      responseBody,
      retryAfterMs: ok ? null : parseRetryAfter(res.headers.get('retry-after'), now),
      durationMs: Math.round(performance.now() - started),
      countsAgainstEndpoint: true,
    };
  } catch (error) {
    const errorKind = classifyFetchError(error);
    const message =
      errorKind === 'timeout' ? `timeout after ${timeoutMs} ms` : `network error: ${(error as Error).message ?? String(error)}`;
    return {
      status: null,
      error: message.slice(0, 500),
      errorKind,
      responseBody: null,
      retryAfterMs: null,
      durationMs: Math.round(performance.now() - started),
      countsAgainstEndpoint: true,
    };
  }
}

/** Signs the attempt with the endpoint's active secrets, newest first (fresh timestamp and attempt id) and POSTs it. */
export async function signAndSend(
  secrets: string[],
  row: { clinicId: string; endpointId: string; url: string; eventType: string; idempotencyKey: string },
  body: string,
  attemptId: string,
  now: Date,
  options: DeliveryOptions,
): Promise<SendResult> {
  if (secrets.length === 0) return notSent('no active signing secret', 'connection_refused', true);
  const headers = await deliveryHeaders({
    secrets,
    body,
    eventType: row.eventType,
    attemptId,
    idempotencyKey: row.idempotencyKey,
    timestamp: Math.floor(now.getTime() / 1000),
  });
  return send(options.fetchImpl ?? fetch, row.url, headers, body, options.timeoutMs ?? DELIVERY_TIMEOUT_MS, now);
}
