// The typed client of the Brand Administration API: openapi-fetch over the types openapi-typescript
// generates from the API's OpenAPI document (./schema.d.ts, regenerated with `npm run client:generate`).
import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths, webhooks } from './schema';

export { verifyWebhook, type WebhookEvent, type WebhookEventName, WebhookVerificationError } from './webhooks';
export type { components, operations, paths, webhooks };

/** A schema of the document by name, e.g. `Schema<'Order'>`, `Schema<'CreateCouponRequest'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The order lifecycle's states, as the document enumerates them. */
export type OrderStatus = components['schemas']['OrderStatus'];

export interface BrandAdminClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The API's origin, e.g. https://api.example.com (the paths carry /api/v1). */
  baseUrl: string;
  /** An API key (svc_live_, svc_test_, svc_pk_ or svc_ai_), sent as x-api-key on every call. */
  apiKey?: string;
  /** A brand-admin token (POST /auth/signin), sent as a Bearer token: only the /api-keys routes take one. */
  token?: string;
}

export type BrandAdminClient = Client<paths>;

/**
 * A client for the whole API. Every call is typed by path and method:
 *
 *   const api = createClient({ baseUrl: 'https://api.example.com', apiKey: process.env.API_KEY });
 *   const { data, error } = await api.GET('/api/v1/orders', { params: { query: { page: 1, limit: 20 } } });
 *
 * Answers are `{ data, error, response }`: `data` is the success body (the envelope `{ success, data, ... }`),
 * `error` the error body (`{ success: false, code, message, ... }`) of a 4xx or 5xx.
 */
export function createClient(options: BrandAdminClientOptions): BrandAdminClient {
  const { apiKey, token, headers, ...rest } = options;
  const merged = new Headers(headers as HeadersInit | undefined);
  if (apiKey) merged.set('x-api-key', apiKey);
  if (token) merged.set('authorization', `Bearer ${token}`);
  const all: Record<string, string> = {};
  merged.forEach((value, name) => {
    all[name] = value;
  });
  return createFetchClient<paths>({ ...rest, headers: all });
}

/**
 * Headers for a write that may be retried: the same key on every retry makes the server run it once and
 * answer the retries with the stored answer (`Idempotent-Replayed: true`). Keys live 24 h, at most 255
 * characters; one key per logical operation (docs/api-conventions.md, "Idempotency").
 *
 *   await api.POST('/api/v1/coupons', { body, ...withIdempotencyKey(key) });
 */
export function withIdempotencyKey(key: string = newIdempotencyKey()): { headers: { 'Idempotency-Key': string } } {
  if (key.length === 0 || key.length > 255) throw new RangeError('an Idempotency-Key has 1 to 255 characters');
  return { headers: { 'Idempotency-Key': key } };
}

/** A fresh random key (a UUID) for withIdempotencyKey; keep it to retry the same operation. */
export const newIdempotencyKey = (): string => crypto.randomUUID();
