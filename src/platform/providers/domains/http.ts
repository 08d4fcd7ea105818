import { type ProviderCapability, ProviderError } from '../errors';
import { callVendor, defaultFetch, type FetchLike, isRetryableStatus, PROVIDER_TIMEOUT_MS, type VendorAnswer } from '../http';

export { defaultFetch, type FetchLike, isRetryableStatus, PROVIDER_TIMEOUT_MS };

/** An answer of a provider: its status and its body parsed as JSON ({} when it is not JSON). */
export type ProviderAnswer = VendorAnswer;

/**
 * One JSON call to a provider with a bearer token (`body`, when given, is sent as JSON). A network
 * failure or timeout is ProviderError 'unavailable' (the message never includes the request:
 * it carries the credentials).
 */
export async function callProvider(
  capability: ProviderCapability,
  provider: string,
  fetchImpl: FetchLike,
  url: string,
  request: { method: string; bearerToken: string; body?: unknown },
  timeoutMs: number,
): Promise<ProviderAnswer> {
  const { method, bearerToken, body } = request;
  const answer = await callVendor(
    fetchImpl,
    url,
    {
      method,
      headers: {
        Authorization: `Bearer ${bearerToken}`,
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
    timeoutMs,
  );
  if (!answer.reached) throw new ProviderError(capability, provider, 'unavailable', `${provider}: ${answer.detail}`);
  return { status: answer.status, ok: answer.ok, body: answer.body };
}

export const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
export const obj = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
export const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** At most 300 characters of a provider's message, for an error answer. */
export const short = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);
