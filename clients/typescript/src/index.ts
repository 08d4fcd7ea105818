// The typed client of the Brand Administration API: openapi-fetch over the types openapi-typescript
// generates from the API's OpenAPI document (./schema.d.ts, regenerated with `npm run client:generate`),
// with what integrators of payment APIs rely on: retries with backoff (one Idempotency-Key across the
// retries of a write), a timeout, auto-pagination and errors that carry the API's code and request id.
import createFetchClient, { type Client, type ClientOptions, type MaybeOptionalInit } from 'openapi-fetch';
import { BrandAdminError } from './errors';
import { type RetryOptions, retryingFetch } from './retry';
import type { components, operations, paths, webhooks } from './schema';

export { BrandAdminConnectionError, BrandAdminError, BrandAdminTimeoutError, type ErrorBody } from './errors';
export { verifyWebhook, type WebhookEvent, type WebhookEventName, WebhookVerificationError } from './webhooks';
export type { components, operations, paths, webhooks };

/** A schema of the document by name, e.g. `Schema<'Order'>`, `Schema<'CreateCouponRequest'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The order lifecycle's states, as the document enumerates them. */
export type OrderStatus = components['schemas']['OrderStatus'];

export interface BrandAdminClientOptions extends Omit<ClientOptions, 'baseUrl'>, RetryOptions {
  /** The API's origin, e.g. https://api.example.com (the paths carry /api/v1). */
  baseUrl: string;
  /** An API key (svc_live_, svc_test_, svc_pk_ or svc_ai_), sent as x-api-key on every call. */
  apiKey?: string | undefined;
  /** A brand-admin token (POST /auth/signin), sent as a Bearer token: only the /api-keys routes take one. */
  token?: string | undefined;
}

/** The paths whose GET answers a page: `{ data: Item[], pagination: { page, totalPages, ... } }`. */
export type PaginatedPath = {
  [P in keyof paths]: paths[P] extends {
    get: { responses: { 200: { content: { 'application/json': { data: unknown[]; pagination: unknown } } } } };
  }
    ? P
    : never;
}[keyof paths];

/** One item of a paginated path's pages. */
export type PageItem<P extends PaginatedPath> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': { data: (infer Item)[] } } } } };
}
  ? Item
  : never;

export type BrandAdminClient = Client<paths> & {
  /**
   * Every item of a list, page after page (one request per page, fetched as the loop asks for it):
   *
   *   for await (const order of api.paginate('/api/v1/orders')) console.log(order.orderNumber);
   *
   * `params.query.limit` sets the page size (default: the API's); a failed page throws BrandAdminError.
   */
  paginate<P extends PaginatedPath>(path: P, init?: MaybeOptionalInit<paths[P], 'get'>): AsyncIterable<PageItem<P>>;
};

/**
 * A client for the whole API. Every call is typed by path and method:
 *
 *   const api = createClient({ baseUrl: 'https://api.example.com', apiKey: process.env.API_KEY });
 *   const { data, error } = await api.GET('/api/v1/orders', { params: { query: { page: 1, limit: 20 } } });
 *
 * Answers are `{ data, error, response }`: `data` is the success body (the envelope `{ success, data, ... }`),
 * `error` the error body (`{ success: false, code, message, ... }`) of a 4xx or 5xx; `unwrap()` turns an
 * answer into its data or a thrown BrandAdminError. 429, 5xx and network failures are retried
 * (`maxRetries`, default 2) with backoff and Retry-After; every attempt is bounded by `timeout` (ms).
 */
export function createClient(options: BrandAdminClientOptions): BrandAdminClient {
  const { apiKey, token, headers, maxRetries, timeout, maxRetryDelay, fetch: baseFetch, ...rest } = options;
  const merged = new Headers(headers as HeadersInit | undefined);
  if (apiKey) merged.set('x-api-key', apiKey);
  if (token) merged.set('authorization', `Bearer ${token}`);
  const all: Record<string, string> = {};
  merged.forEach((value, name) => {
    all[name] = value;
  });
  const fetch = retryingFetch(baseFetch ?? ((request: Request, ext?: RequestInit) => globalThis.fetch(request, ext)), {
    maxRetries,
    timeout,
    maxRetryDelay,
  });
  const client = createFetchClient<paths>({ ...rest, headers: all, fetch });
  return Object.assign(client, {
    paginate<P extends PaginatedPath>(path: P, init?: MaybeOptionalInit<paths[P], 'get'>): AsyncIterable<PageItem<P>> {
      return paginate(client, path, init);
    },
  });
}

interface Page {
  data: unknown[];
  pagination: { page?: number; totalPages?: number };
}

async function* paginate<P extends PaginatedPath>(
  client: Client<paths>,
  path: P,
  init: MaybeOptionalInit<paths[P], 'get'> | undefined,
): AsyncGenerator<PageItem<P>> {
  const base = (init ?? {}) as { params?: { query?: Record<string, unknown>; path?: Record<string, unknown> } };
  const get = client.GET as unknown as (path: string, init: unknown) => Promise<{ data?: Page; error?: unknown; response: Response }>;
  for (let page = Number(base.params?.query?.page ?? 1); ; page++) {
    const answer = await get(path, { ...base, params: { ...base.params, query: { ...base.params?.query, page } } });
    const body = unwrap(answer);
    for (const item of body.data) yield item as PageItem<P>;
    const totalPages = body.pagination.totalPages ?? 0;
    if (body.data.length === 0 || page >= totalPages) return;
  }
}

/**
 * The data of an answer, or its error thrown as a BrandAdminError (status, code, message, requestId):
 *
 *   const { data } = unwrap(await api.GET('/api/v1/orders/{id}', { params: { path: { id } } }));
 */
export function unwrap<Data>(answer: { data?: Data; error?: unknown; response: Response }): Data {
  if (answer.error !== undefined || !answer.response.ok) throw BrandAdminError.from(answer.response, answer.error);
  return answer.data as Data;
}

/**
 * Headers for a write that may be retried: the same key on every retry makes the server run it once and
 * answer the retries with the stored answer (`Idempotent-Replayed: true`). Keys live 24 h, at most 255
 * characters; one key per logical operation (docs/api-conventions.md, "Idempotency"). The client's own
 * retries already reuse one key; this is for retries of your own (after a crash, from a queue).
 *
 *   await api.POST('/api/v1/coupons', { body, ...withIdempotencyKey(key) });
 */
export function withIdempotencyKey(key: string = newIdempotencyKey()): { headers: { 'Idempotency-Key': string } } {
  if (key.length === 0 || key.length > 255) throw new RangeError('an Idempotency-Key has 1 to 255 characters');
  return { headers: { 'Idempotency-Key': key } };
}

/** A fresh random key (a UUID) for withIdempotencyKey; keep it to retry the same operation. */
export const newIdempotencyKey = (): string => crypto.randomUUID();
