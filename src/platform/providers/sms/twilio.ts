// Toll-free numbers through Twilio's REST API, on the clinic's own account (its SID and auth token,
// HTTP basic auth), over fetch:
//   GET    /2010-04-01/Accounts/{sid}/AvailablePhoneNumbers/US/TollFree.json?SmsEnabled=true&PageSize=5
//          -> { available_phone_numbers: [{ phone_number, capabilities }] }
//   POST   /2010-04-01/Accounts/{sid}/IncomingPhoneNumbers/TollFree.json   form PhoneNumber, FriendlyName
//          -> 201 { sid: PN..., phone_number }
//   DELETE /2010-04-01/Accounts/{sid}/IncomingPhoneNumbers/{PN sid}.json   -> 204
// Errors: { code, message, more_info, status }. A number bought by someone else between the search and
// the purchase (21422 and friends) is skipped for the next candidate.
import { TWILIO_API_BASE_URL } from '../../../config';
import { ProviderError } from '../errors';
import { callVendor, defaultFetch, type FetchLike, PROVIDER_TIMEOUT_MS, type VendorAnswer } from '../http';
import type { ProvisionedNumber, SmsAccount, SmsNumberProvider } from './types';

/** How many available numbers are asked for, and tried in order. */
export const TWILIO_CANDIDATES = 5;

type Answer = VendorAnswer;

const str = (value: unknown) => (typeof value === 'string' ? value : null);

export class TwilioSmsNumbers implements SmsNumberProvider {
  readonly name = 'twilio';

  constructor(
    private readonly baseUrl: string = TWILIO_API_BASE_URL,
    private readonly fetchImpl: FetchLike = defaultFetch,
    private readonly timeoutMs = PROVIDER_TIMEOUT_MS,
  ) {}

  async provisionTollFreeNumber(input: { clinicId: string; account: SmsAccount }): Promise<ProvisionedNumber> {
    const { account } = input;
    const search = await this.call(account, 'GET', `/AvailablePhoneNumbers/US/TollFree.json?SmsEnabled=true&PageSize=${TWILIO_CANDIDATES}`);
    if (!search.ok) this.fail(search, 'search toll-free numbers');
    const candidates = (Array.isArray(search.body.available_phone_numbers) ? search.body.available_phone_numbers : [])
      .map((n) => str((n as Record<string, unknown>)?.phone_number))
      .filter((n): n is string => Boolean(n));
    if (candidates.length === 0)
      throw new ProviderError('sms_numbers', this.name, 'no_numbers', 'twilio: no SMS-capable toll-free number is available right now');
    let last: Answer | null = null;
    for (const phoneNumber of candidates) {
      const form = new URLSearchParams({ PhoneNumber: phoneNumber, FriendlyName: `Brand Admin clinic ${input.clinicId}`.slice(0, 64) });
      const bought = await this.call(account, 'POST', '/IncomingPhoneNumbers/TollFree.json', form);
      if (bought.ok) {
        const sid = str(bought.body.sid);
        if (!sid) throw new ProviderError('sms_numbers', this.name, 'refused', `twilio: HTTP ${bought.status} without a number sid`);
        return { phoneNumber: str(bought.body.phone_number) ?? phoneNumber, providerNumberId: sid };
      }
      last = bought;
      // Someone else bought it in between (or it cannot be bought): try the next one.
      if (bought.status !== 400) break;
    }
    this.fail(last!, 'buy a toll-free number');
  }

  async releaseNumber(input: { account: SmsAccount; providerNumberId: string }): Promise<void> {
    const answer = await this.call(input.account, 'DELETE', `/IncomingPhoneNumbers/${encodeURIComponent(input.providerNumberId)}.json`);
    if (answer.ok || answer.status === 404) return;
    this.fail(answer, 'release the number');
  }

  private async call(account: SmsAccount, method: string, path: string, form?: URLSearchParams): Promise<Answer> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(account.accountSid)}${path}`;
    const answer = await callVendor(
      this.fetchImpl,
      url,
      {
        method,
        headers: {
          Authorization: `Basic ${btoa(`${account.accountSid}:${account.authToken}`)}`,
          Accept: 'application/json',
          ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form?.toString(),
      },
      this.timeoutMs,
    );
    if (!answer.reached) throw new ProviderError('sms_numbers', this.name, 'unavailable', `twilio: ${answer.detail}`);
    return { status: answer.status, ok: answer.ok, body: answer.body };
  }

  private fail(answer: Answer, what: string): never {
    const code = answer.body.code === undefined ? '' : ` error ${String(answer.body.code)}`;
    const detail = str(answer.body.message);
    const message = `twilio: ${what}: HTTP ${answer.status}${code}${detail ? `: ${detail.slice(0, 300)}` : ''}`;
    if (answer.status === 401 || answer.status === 403) throw new ProviderError('sms_numbers', this.name, 'credentials_rejected', message);
    if (answer.status === 429 || answer.status >= 500) throw new ProviderError('sms_numbers', this.name, 'unavailable', message);
    throw new ProviderError('sms_numbers', this.name, 'refused', message);
  }
}
