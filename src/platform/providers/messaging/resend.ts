import type { ResendConfig } from '../../../config/messaging';
import { htmlToText } from '../../values/markup';
import { callVendor, defaultFetch, type FetchLike, isRetryableStatus, PROVIDER_TIMEOUT_MS } from '../http';
import { type ChannelTransport, type DeliverableMessage, type DeliveryResult, networkFailure, stringOr, truncateError } from './transport';

/** Resend error names (409) that mean "the same request is still being processed": try again. */
const RETRYABLE_NAMES = new Set(['concurrent_idempotent_requests', 'rate_limit_exceeded', 'internal_server_error', 'application_error']);

/**
 * Email through Resend's HTTP API: POST https://api.resend.com/emails with the API key as a Bearer
 * token, JSON { from, to: [address], subject, text } (an html row: { html, text } with the text part
 * made from the HTML), and Idempotency-Key message-<messages.id>, so a
 * row sent again after a crash between the provider's answer and the commit is not delivered twice
 * (Resend keeps keys 24 hours, as long as a row may stay queued). 200 { id } is success.
 */
export class ResendEmailTransport implements ChannelTransport {
  readonly provider = 'resend';

  constructor(
    private readonly config: ResendConfig,
    private readonly fetchImpl: FetchLike = defaultFetch,
    private readonly timeoutMs = PROVIDER_TIMEOUT_MS,
  ) {}

  async deliver(message: DeliverableMessage): Promise<DeliveryResult> {
    const res = await callVendor(
      this.fetchImpl,
      `${this.config.baseUrl.replace(/\/+$/, '')}/emails`,
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${this.config.apiKey}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': `message-${message.id}`,
        },
        body: JSON.stringify({
          from: this.config.from,
          to: [message.to],
          subject: message.subject ?? '',
          ...(message.format === 'html' ? { html: message.body, text: htmlToText(message.body) } : { text: message.body }),
        }),
      },
      this.timeoutMs,
    );
    if (!res.reached) return networkFailure(this.provider, res.detail);
    const { body } = res;
    if (res.ok) {
      const id = stringOr(body.id);
      if (!id) return { ok: false, retry: false, error: `resend: HTTP ${res.status} without an email id` };
      return { ok: true, providerMessageId: id };
    }
    const name = stringOr(body.name, 'error');
    const detail = stringOr(body.message);
    return {
      ok: false,
      retry: isRetryableStatus(res.status) || RETRYABLE_NAMES.has(name),
      error: truncateError(`resend: HTTP ${res.status} ${name}${detail ? `: ${detail}` : ''}`),
    };
  }
}
