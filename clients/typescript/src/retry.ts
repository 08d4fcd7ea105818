// The fetch the client hands openapi-fetch: each attempt bounded by a timeout, and 429, 5xx and network
// failures retried with exponential backoff (full jitter) or the answer's Retry-After. A write (POST, PUT,
// PATCH, DELETE) without an Idempotency-Key gets one before its first attempt, so every retry carries the
// same key and the API runs the write at most once (docs/api-conventions.md, "Idempotency").
import { BrandAdminConnectionError, BrandAdminTimeoutError } from './errors';

export interface RetryOptions {
  /** Retries after the first attempt of a 429, a 5xx or a network failure (default 2; 0: none). */
  maxRetries?: number | undefined;
  /** Milliseconds one attempt may take before it is abandoned (default 60000). */
  timeout?: number | undefined;
  /** The longest wait between two attempts in ms (default 8000); a longer Retry-After is not waited for. */
  maxRetryDelay?: number | undefined;
  /** The fetch to call (default: the global fetch). */
  fetch?: ((input: Request) => Promise<Response>) | undefined;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRY_DELAY_MS = 8_000;
const INITIAL_DELAY_MS = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retry-After in ms (seconds or an HTTP date), or undefined. */
export function retryAfterMs(response: Response, now = Date.now()): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const retryable = (status: number) => status === 429 || status >= 500;

/** A fetch and, as openapi-fetch passes it, its `requestInitExt` (e.g. Node's `dispatcher`) passed through. */
type BaseFetch = (request: Request, ext?: RequestInit) => Promise<Response>;

export function retryingFetch(base: BaseFetch, options: Omit<RetryOptions, 'fetch'>) {
  const maxRetries = Math.max(0, options.maxRetries ?? DEFAULT_MAX_RETRIES);
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const maxDelay = options.maxRetryDelay ?? DEFAULT_MAX_RETRY_DELAY_MS;

  return async (input: Request, ext?: RequestInit): Promise<Response> => {
    const headers = new Headers(input.headers);
    if (WRITES.has(input.method) && !headers.has('idempotency-key')) headers.set('idempotency-key', crypto.randomUUID());
    // The body is read once, so that every attempt can send it again.
    const body = input.body === null ? undefined : await input.arrayBuffer();
    for (let attempt = 0; ; attempt++) {
      const timer = AbortSignal.timeout(timeout);
      const signal = input.signal ? AbortSignal.any([input.signal, timer]) : timer;
      const request = new Request(input.url, { method: input.method, headers, body: body ?? null, signal, redirect: input.redirect });
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await base(request, ext);
      } catch (error) {
        if (input.signal?.aborted) throw error; // the caller's own abort is never retried
        failure = error;
      }
      const backoff = Math.min(maxDelay, INITIAL_DELAY_MS * 2 ** attempt) * (0.5 + Math.random() / 2);
      if (response) {
        if (!retryable(response.status) || attempt >= maxRetries) return response;
        const asked = retryAfterMs(response);
        if (asked !== undefined && asked > maxDelay) return response; // longer than we wait: the caller decides
        // Released without waiting: a cancel can settle only once every reader of the body has let go.
        response.body?.cancel().catch(() => undefined);
        await sleep(asked ?? backoff);
        continue;
      }
      if (attempt >= maxRetries) {
        if (timer.aborted)
          throw new BrandAdminTimeoutError(`no answer from ${input.method} ${input.url} within ${timeout} ms`, { cause: failure });
        throw new BrandAdminConnectionError(
          `could not reach ${input.method} ${input.url}: ${String((failure as Error)?.message ?? failure)}`,
          {
            cause: failure,
          },
        );
      }
      await sleep(backoff);
    }
  };
}
