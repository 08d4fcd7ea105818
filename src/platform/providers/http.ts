// Calling a vendor over HTTP, written once for every provider adapter (domains, SMS numbers, messaging,
// DNS over HTTPS): the fetch (called unbound), no redirects followed, a timeout, the body read as JSON,
// and what a failure says. A failure's text never includes the request: it carries the credentials.

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** The global fetch, called unbound (workerd refuses fetch called with another `this`). */
export const defaultFetch: FetchLike = (input, init) => fetch(input, init);

/** Provider calls give up after this long. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** 429 and 5xx are worth retrying; other 4xx are not. */
export const isRetryableStatus = (status: number) => status === 429 || status >= 500;

/**
 * What a failed provider fetch says: "no answer in time" for a timeout or abort, else the error's name
 * and message. Never the request.
 */
export function networkErrorDetail(error: unknown): string {
  const name = error instanceof Error ? error.name : 'Error';
  if (name === 'TimeoutError' || name === 'AbortError') return 'no answer in time';
  return `${name}: ${error instanceof Error ? error.message : String(error)}`;
}

/** The body of an answer as an object (providers answer JSON), or {} when it is not JSON (or empty, or unreadable). */
export async function errorJson(res: Response): Promise<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(await res.text());
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The fetch of every vendor call: redirects are not followed (a vendor never needs one), and it gives up after `timeoutMs`. */
export function fetchVendor(fetchImpl: FetchLike, url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  return fetchImpl(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
}

/** An answer of a vendor: its status and its body parsed as JSON ({} when it is not JSON). */
export interface VendorAnswer {
  status: number;
  ok: boolean;
  body: Record<string, unknown>;
}

/** A vendor call's outcome: its answer, or why none came (the network failure's detail). */
export type VendorOutcome = ({ reached: true } & VendorAnswer) | { reached: false; detail: string };

/**
 * One JSON call to a vendor: `headers` as given plus our User-Agent, `body` sent as is. Never throws:
 * a network failure or timeout is `{ reached: false, detail }`, which each adapter turns into its own
 * failure (a ProviderError 'unavailable', or a retryable delivery result).
 */
export async function callVendor(
  fetchImpl: FetchLike,
  url: string,
  request: { method: string; headers: Record<string, string>; body?: string },
  timeoutMs: number,
): Promise<VendorOutcome> {
  let res: Response;
  try {
    res = await fetchVendor(
      fetchImpl,
      url,
      { method: request.method, headers: { ...request.headers, 'User-Agent': 'brand-admin-api' }, body: request.body },
      timeoutMs,
    );
  } catch (error) {
    return { reached: false, detail: networkErrorDetail(error) };
  }
  return { reached: true, status: res.status, ok: res.ok, body: await errorJson(res) };
}
