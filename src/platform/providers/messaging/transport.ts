import type { MessageChannel, MessageFormat } from '../../../../drizzle/schema';

/** A queued messages row, as a provider adapter needs it. */
export interface DeliverableMessage {
  /** The messages row id (also the provider's idempotency key where it has one). */
  id: string;
  channel: MessageChannel;
  to: string;
  subject: string | null;
  body: string;
  /** html: an HTML email body (the allow-list's markup); absent or text: plain text. */
  format?: MessageFormat;
}

/** What a provider answered: accepted (with its message id), or refused; retry says whether trying again later may work. */
export type DeliveryResult = { ok: true; providerMessageId: string } | { ok: false; retry: boolean; error: string };

/** One provider for one channel (Resend for email, Twilio for SMS). deliver never throws. */
export interface ChannelTransport {
  /** Stored in messages.provider: resend, twilio. */
  readonly provider: string;
  deliver(message: DeliverableMessage): Promise<DeliveryResult>;
}

/** The providers of a deployment, per channel; null: the channel has none. */
export interface MessageTransport {
  email: ChannelTransport | null;
  sms: ChannelTransport | null;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** The global fetch, called unbound (workerd refuses fetch called with another `this`). */
export const defaultFetch: FetchLike = (input, init) => fetch(input, init);

/** Provider calls give up after this long (the row stays queued and is tried again). */
export const PROVIDER_TIMEOUT_MS = 10_000;
const MAX_ERROR = 500;

export const truncateError = (text: string) => (text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR - 1)}…` : text);

/** 429 and 5xx are worth retrying; other 4xx are not. */
export const isRetryableStatus = (status: number) => status === 429 || status >= 500;

/**
 * What a failed provider fetch says: "no answer in time" for a timeout or abort, else the error's name
 * and message. Never the request (it carries the credentials). Shared by every provider adapter.
 */
export function networkErrorDetail(error: unknown): string {
  const name = error instanceof Error ? error.name : 'Error';
  if (name === 'TimeoutError' || name === 'AbortError') return 'no answer in time';
  return `${name}: ${error instanceof Error ? error.message : String(error)}`;
}

/** A network failure or timeout: always retryable. */
export function networkFailure(provider: string, error: unknown): DeliveryResult {
  return { ok: false, retry: true, error: truncateError(`${provider}: ${networkErrorDetail(error)}`) };
}

/** The body of an error answer as an object (providers answer JSON), or {} when it is not JSON. */
export async function errorJson(res: Response): Promise<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(await res.text());
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export const stringOr = (value: unknown, fallback = '') =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : fallback;
