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

// The vendor call itself (fetch, timeout, failure text) is ../http.ts, shared by every provider.

const MAX_ERROR = 500;

export const truncateError = (text: string) => (text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR - 1)}…` : text);

/** A network failure or timeout (its detail from callVendor): always retryable; the row stays queued. */
export function networkFailure(provider: string, detail: string): DeliveryResult {
  return { ok: false, retry: true, error: truncateError(`${provider}: ${detail}`) };
}

export const stringOr = (value: unknown, fallback = '') =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : fallback;
