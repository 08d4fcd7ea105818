// What Stripe's REST API does the same on every endpoint, for the Stripe stand-ins (stripe-stand-in.ts,
// stripe-billing-stand-in.ts): form-encoded bodies, ids like price_<24 chars>, errors shaped
// { error: { type, code?, param?, message } } with a Request-Id header, Bearer secret keys, queued
// failures (failNext) and Idempotency-Key replays. Each stand-in brings only its routes.
import { randomBytes } from 'node:crypto';
import { flatHeaders, readBody, sendJson, startLocalServer } from './http-stand-in';

export interface RecordedStripeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The form body as flat bracketed keys: { unit_amount: '1999', 'product_data[name]': 'X', ... }. */
  form: Record<string, string>;
  headers: Record<string, string>;
}

export type StripeFailure = { type: string; code?: string; message: string };
export type StripeAnswer = { status: number; body: unknown };
export type StripeRoute = (method: string, path: string, query: Record<string, string>, form: Record<string, string>) => StripeAnswer;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const stripeId = (prefix: string) => `${prefix}_${Array.from(randomBytes(24), (b) => ALPHABET[b % ALPHABET.length]).join('')}`;
export const stripeError = (type: string, message: string, extra: Record<string, string> = {}) => ({ error: { type, message, ...extra } });
export const newSecretKey = () => `sk_test_${randomBytes(12).toString('hex')}`;

export interface StripeServer {
  host: '127.0.0.1';
  port: number;
  protocol: 'http';
  requests: RecordedStripeRequest[];
  /** Answer the next request(s) with this status and Stripe error instead of handling them. */
  failNext(status: number, error: StripeFailure, times?: number): void;
  close(): Promise<void>;
}

/**
 * Records every request, then answers: a queued failure; 401 for another key; for a non-GET with an
 * Idempotency-Key already seen, the first answer again (Idempotent-Replayed: true) when method, path
 * and parameters are the same, else 400 idempotency_error, as Stripe does; otherwise `route`.
 */
export async function startStripeServer(secretKey: string, route: StripeRoute): Promise<StripeServer> {
  const requests: RecordedStripeRequest[] = [];
  const failures: { status: number; error: StripeFailure }[] = [];
  const idempotent = new Map<string, { fingerprint: string } & StripeAnswer>();
  const send = (res: Parameters<typeof sendJson>[0], { status, body }: StripeAnswer, headers: Record<string, string> = {}) =>
    sendJson(res, status, body, { 'request-id': stripeId('req'), ...headers });

  const server = await startLocalServer(
    async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const form = Object.fromEntries(new URLSearchParams(await readBody(req)));
      const query = Object.fromEntries(url.searchParams);
      const headers = flatHeaders(req);
      const method = req.method ?? 'GET';
      requests.push({ method, path: url.pathname, query, form, headers });

      const failure = failures.shift();
      if (failure) return send(res, { status: failure.status, body: { error: failure.error } });
      if (headers.authorization !== `Bearer ${secretKey}`) {
        return send(res, {
          status: 401,
          body: stripeError('invalid_request_error', `Invalid API Key provided: ${(headers.authorization ?? '').slice(7, 15)}****`),
        });
      }
      const key = method !== 'GET' ? headers['idempotency-key'] : undefined;
      const fingerprint = `${method} ${url.pathname} ${new URLSearchParams(Object.entries(form).sort(([a], [b]) => a.localeCompare(b))).toString()}`;
      const earlier = key ? idempotent.get(key) : undefined;
      if (earlier && earlier.fingerprint !== fingerprint) {
        return send(res, {
          status: 400,
          body: stripeError(
            'idempotency_error',
            'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          ),
        });
      }
      if (earlier) return send(res, earlier, { 'idempotent-replayed': 'true' });
      const answer = route(method, url.pathname, query, form);
      if (key) idempotent.set(key, { fingerprint, ...answer });
      return send(res, answer);
    },
    (message) => stripeError('api_error', message),
  );

  return {
    host: '127.0.0.1',
    port: server.port,
    protocol: 'http',
    requests,
    failNext(status, error, times = 1) {
      for (let i = 0; i < times; i++) failures.push({ status, error });
    },
    close: server.close,
  };
}
