import type { TwilioConfig } from '../../../config/messaging';
import { callVendor, defaultFetch, type FetchLike, isRetryableStatus, PROVIDER_TIMEOUT_MS } from '../http';
import { type ChannelTransport, type DeliverableMessage, type DeliveryResult, networkFailure, stringOr, truncateError } from './transport';

/**
 * SMS through Twilio's REST API: POST https://api.twilio.com/2010-04-01/Accounts/{AccountSid}/Messages.json
 * with HTTP basic auth (account SID : auth token) and a form body To, From, Body. 201 { sid } is success:
 * Twilio has accepted the message (its later delivery receipts are not tracked). Twilio has no
 * idempotency key for messages, so a crash between its answer and the commit can send one SMS twice.
 */
export class TwilioSmsTransport implements ChannelTransport {
  readonly provider = 'twilio';

  constructor(
    private readonly config: TwilioConfig,
    private readonly fetchImpl: FetchLike = defaultFetch,
    private readonly timeoutMs = PROVIDER_TIMEOUT_MS,
  ) {}

  async deliver(message: DeliverableMessage): Promise<DeliveryResult> {
    const { accountSid, authToken, fromNumber, baseUrl } = this.config;
    const url = `${baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`;
    const res = await callVendor(
      this.fetchImpl,
      url,
      {
        method: 'POST',
        headers: {
          Authorization: `Basic ${btoa(`${accountSid}:${authToken}`)}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body: new URLSearchParams({ To: message.to, From: fromNumber, Body: message.body }).toString(),
      },
      this.timeoutMs,
    );
    if (!res.reached) return networkFailure(this.provider, res.detail);
    const { body } = res;
    if (res.ok) {
      const sid = stringOr(body.sid);
      if (!sid) return { ok: false, retry: false, error: `twilio: HTTP ${res.status} without a message sid` };
      return { ok: true, providerMessageId: sid };
    }
    const code = stringOr(body.code);
    const detail = stringOr(body.message);
    return {
      ok: false,
      retry: isRetryableStatus(res.status),
      error: truncateError(`twilio: HTTP ${res.status}${code ? ` error ${code}` : ''}${detail ? `: ${detail}` : ''}`),
    };
  }
}
