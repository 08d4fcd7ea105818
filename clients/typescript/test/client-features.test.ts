// The client's own behaviour with a scripted fetch (no server): which answers are retried and how often,
// Retry-After, one Idempotency-Key across the retries of a write, the body sent again, the timeout, and
// the errors it throws. Pagination and errors from the real API are in workflow.test.ts.
import { describe, expect, it } from 'vitest';
import { BrandAdminConnectionError, BrandAdminError, BrandAdminTimeoutError, createClient, unwrap } from '../src/index';
import { retryAfterMs } from '../src/retry';

interface Seen {
  method: string;
  key: string | null;
  body: string;
}

/** A fetch answering from a script, one step per attempt, that records what each attempt sent. */
function scripted(steps: (Response | Error | 'hang')[]) {
  const seen: Seen[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    seen.push({ method: request.method, key: request.headers.get('idempotency-key'), body: await request.text() });
    const step = steps[Math.min(seen.length - 1, steps.length - 1)];
    if (step === 'hang') {
      return new Promise((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason)));
    }
    if (step instanceof Error) throw step;
    return step!.clone();
  };
  return { fetch, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const ok = json(200, { success: true, data: [], pagination: { page: 1, limit: 20, total: 0, totalPages: 0 } });
const unavailable = json(
  503,
  { success: false, code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable' },
  { 'x-request-id': 'req-503' },
);
const limited = (retryAfter: string) =>
  json(429, { success: false, code: 'RATE_LIMITED', message: 'Too many requests' }, { 'retry-after': retryAfter });
const coupon = { code: 'WELCOME15', discountType: 'percent' as const, discountValue: 15 };

describe('the client: retries', () => {
  it('retries a 429 after its Retry-After and a 5xx with backoff, then answers the success', async () => {
    const { fetch, seen } = scripted([limited('0'), unavailable, ok]);
    const api = createClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch, maxRetryDelay: 5 });
    const answer = await api.GET('/api/v1/orders');
    expect(answer.response.status).toBe(200);
    expect(seen).toHaveLength(3);
  });

  it('sends one Idempotency-Key and the same body on every attempt of a write, and keeps a key the caller set', async () => {
    const first = scripted([unavailable, new TypeError('fetch failed'), json(201, { success: true, data: {} })]);
    const api = createClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: first.fetch, maxRetryDelay: 5 });
    await api.POST('/api/v1/coupons', { body: coupon });
    expect(first.seen).toHaveLength(3);
    expect(first.seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(first.seen.map((s) => s.key)).size).toBe(1);
    expect(first.seen.map((s) => JSON.parse(s.body))).toEqual([coupon, coupon, coupon]);

    const second = scripted([unavailable, json(201, { success: true, data: {} })]);
    const again = createClient({ baseUrl: 'http://api.test', fetch: second.fetch, maxRetryDelay: 5 });
    await again.POST('/api/v1/coupons', { body: coupon, headers: { 'Idempotency-Key': 'mine-1' } });
    expect(second.seen.map((s) => s.key)).toEqual(['mine-1', 'mine-1']);

    // Reads carry no key.
    const read = scripted([ok]);
    await createClient({ baseUrl: 'http://api.test', fetch: read.fetch }).GET('/api/v1/orders');
    expect(read.seen[0]!.key).toBeNull();
  });

  it('gives up after maxRetries and answers the last error; 4xx other than 429 are never retried', async () => {
    const failing = scripted([unavailable]);
    const api = createClient({ baseUrl: 'http://api.test', fetch: failing.fetch, maxRetries: 3, maxRetryDelay: 5 });
    const answer = await api.GET('/api/v1/orders');
    expect(failing.seen).toHaveLength(4);
    expect(answer.response.status).toBe(503);

    const refused = scripted([json(400, { success: false, code: 'VALIDATION_ERROR', message: 'body.code: Required' })]);
    await createClient({ baseUrl: 'http://api.test', fetch: refused.fetch, maxRetryDelay: 5 }).POST('/api/v1/coupons', { body: coupon });
    expect(refused.seen).toHaveLength(1);

    const none = scripted([unavailable]);
    await createClient({ baseUrl: 'http://api.test', fetch: none.fetch, maxRetries: 0 }).GET('/api/v1/orders');
    expect(none.seen).toHaveLength(1);
  });

  it('does not wait out a Retry-After longer than maxRetryDelay: the 429 is answered at once', async () => {
    const { fetch, seen } = scripted([limited('120'), ok]);
    const started = Date.now();
    const answer = await createClient({ baseUrl: 'http://api.test', fetch, maxRetryDelay: 1_000 }).GET('/api/v1/orders');
    expect(answer.response.status).toBe(429);
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const at = Date.parse('2026-11-27T10:00:00Z');
    expect(retryAfterMs(new Response(null, { headers: { 'retry-after': '2' } }), at)).toBe(2_000);
    expect(retryAfterMs(new Response(null, { headers: { 'retry-after': 'Fri, 27 Nov 2026 10:00:05 GMT' } }), at)).toBe(5_000);
    expect(retryAfterMs(new Response(null, { headers: { 'retry-after': 'soon' } }), at)).toBeUndefined();
    expect(retryAfterMs(new Response(null), at)).toBeUndefined();
  });
});

describe('the client: timeouts and errors', () => {
  it('abandons an attempt after `timeout` ms, retries it, and throws BrandAdminTimeoutError at the end', async () => {
    const { fetch, seen } = scripted(['hang']);
    const api = createClient({ baseUrl: 'http://api.test', fetch, timeout: 50, maxRetries: 1, maxRetryDelay: 5 });
    const started = Date.now();
    const failure = await api.GET('/api/v1/orders').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BrandAdminTimeoutError);
    expect(failure).toBeInstanceOf(BrandAdminConnectionError);
    expect((failure as Error).message).toMatch(/within 50 ms/);
    expect(seen).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('throws BrandAdminConnectionError when the API cannot be reached, with the cause', async () => {
    const { fetch, seen } = scripted([new TypeError('fetch failed')]);
    const failure = await createClient({ baseUrl: 'http://api.test', fetch, maxRetries: 2, maxRetryDelay: 5 })
      .GET('/api/v1/orders')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BrandAdminConnectionError);
    expect(failure).not.toBeInstanceOf(BrandAdminTimeoutError);
    expect((failure as Error).cause).toBeInstanceOf(TypeError);
    expect(seen).toHaveLength(3);
  });

  it('never retries an abort of the caller', async () => {
    const { fetch, seen } = scripted(['hang']);
    const controller = new AbortController();
    const pending = createClient({ baseUrl: 'http://api.test', fetch, maxRetryDelay: 5 }).GET('/api/v1/orders', {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });

  it('unwrap answers the data, or throws BrandAdminError with the status, code, message, field errors and request id', async () => {
    const { fetch } = scripted([unavailable]);
    const api = createClient({ baseUrl: 'http://api.test', fetch, maxRetries: 0 });
    const error = await api
      .GET('/api/v1/orders')
      .then(unwrap)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrandAdminError);
    expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable', requestId: 'req-503' });

    const invalid = scripted([
      json(400, {
        success: false,
        code: 'VALIDATION_ERROR',
        message: 'Invalid body',
        errors: [{ field: 'body.code', message: 'Required' }],
      }),
    ]);
    const refused = await createClient({ baseUrl: 'http://api.test', fetch: invalid.fetch })
      .POST('/api/v1/coupons', { body: coupon })
      .then(unwrap)
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', errors: [{ field: 'body.code', message: 'Required' }] });

    const fine = scripted([ok]);
    const body = unwrap(await createClient({ baseUrl: 'http://api.test', fetch: fine.fetch }).GET('/api/v1/orders'));
    expect(body.pagination.total).toBe(0);
  });
});
