// Email-domain authentication through Resend's domains API (https://api.resend.com), over fetch:
//   POST   /domains              { name }  -> { id, name, status: not_started, records: [{ record, name, type, value, priority?, status }] }
//   POST   /domains/{id}/verify            -> { object: domain, id } (Resend checks the records asynchronously)
//   GET    /domains/{id}                   -> { status: not_started | pending | verified | failed | temporary_failure, records }
//   DELETE /domains/{id}                   -> { object: domain, id, deleted: true }
// Authorization: Bearer <API key> (a full-access key: sending-only keys cannot manage domains).
// Errors: { statusCode, name, message }.
import type { ResendDomainsConfig } from '../../../config/domains';
import { ProviderError } from '../errors';
import {
  arr,
  callProvider,
  defaultFetch,
  type FetchLike,
  isRetryableStatus,
  obj,
  PROVIDER_TIMEOUT_MS,
  type ProviderAnswer,
  short,
  str,
} from './http';
import type { CreatedEmailDomain, DnsRecord, DnsRecordPurpose, DomainCheck, EmailDomainProvider, EmailDomainRecord } from './types';

/** Resend's record kinds (record) and DNS types, as our purposes. Records of other kinds are not asked for. */
function purposeOf(record: string, type: string): DnsRecordPurpose | null {
  const kind = record.toUpperCase();
  if (kind === 'SPF') return type === 'MX' ? 'return_path' : 'spf';
  if (kind === 'DKIM') return 'dkim';
  if (kind === 'DMARC') return 'dmarc';
  if (kind === 'TRACKING') return 'tracking';
  return null;
}

/** Resend names records relative to the domain (send, resend._domainkey); stored fully qualified. */
const qualified = (name: string, domain: string) =>
  name === '' || name === '@' ? domain : name === domain || name.endsWith(`.${domain}`) ? name : `${name}.${domain}`;
const unquoted = (value: string) => value.replace(/^"(.*)"$/s, '$1');

export function recordsFromResend(records: unknown, domain: string): DnsRecord[] {
  const out: DnsRecord[] = [];
  for (const raw of arr(records).map(obj)) {
    const type = (str(raw.type) ?? '').toUpperCase();
    if (type !== 'MX' && type !== 'TXT' && type !== 'CNAME') continue;
    const purpose = purposeOf(str(raw.record) ?? '', type);
    const name = str(raw.name);
    const value = str(raw.value);
    if (!purpose || name === null || value === null) continue;
    out.push({
      type,
      name: qualified(name, domain),
      value: unquoted(value),
      purpose,
      priority: typeof raw.priority === 'number' ? raw.priority : null,
    });
  }
  return out;
}

export class ResendEmailDomains implements EmailDomainProvider {
  readonly name = 'resend';

  constructor(
    private readonly config: ResendDomainsConfig,
    private readonly fetchImpl: FetchLike = defaultFetch,
    private readonly timeoutMs = PROVIDER_TIMEOUT_MS,
  ) {}

  async create(input: { clinicId: string; domain: string }): Promise<CreatedEmailDomain> {
    const answer = await this.call('POST', '/domains', { name: input.domain });
    if (!answer.ok) this.fail(answer, `create ${input.domain}`);
    const id = str(answer.body.id);
    if (!id) throw new ProviderError('email_domains', this.name, 'refused', 'resend: the created domain has no id');
    const records = recordsFromResend(answer.body.records, input.domain);
    if (records.length === 0)
      throw new ProviderError('email_domains', this.name, 'refused', 'resend: the created domain has no DNS records');
    return { providerDomainId: id, records };
  }

  async verify(record: EmailDomainRecord): Promise<DomainCheck> {
    const path = `/domains/${encodeURIComponent(record.providerDomainId)}`;
    const kick = await this.call('POST', `${path}/verify`);
    if (!kick.ok) this.fail(kick, `verify ${record.domain}`);
    const answer = await this.call('GET', path);
    if (!answer.ok) this.fail(answer, `read ${record.domain}`);
    const status = str(answer.body.status) ?? 'unknown';
    if (status === 'verified') return { verified: true, problems: [] };
    const problems = [
      status === 'failed'
        ? 'Resend stopped checking (failed): correct the records, then verify again'
        : `The domain is ${status} at Resend (records are checked asynchronously; verify again shortly)`,
    ];
    for (const raw of arr(answer.body.records).map(obj)) {
      const recordStatus = str(raw.status);
      if (recordStatus && recordStatus !== 'verified') {
        problems.push(
          `${str(raw.record) ?? 'DNS'} ${str(raw.type) ?? ''} record ${qualified(str(raw.name) ?? '', record.domain)} is ${recordStatus}`.replace(
            / {2}/g,
            ' ',
          ),
        );
      }
    }
    return { verified: false, problems };
  }

  async remove(record: EmailDomainRecord): Promise<void> {
    const answer = await this.call('DELETE', `/domains/${encodeURIComponent(record.providerDomainId)}`);
    if (answer.ok || answer.status === 404) return;
    this.fail(answer, `delete ${record.domain}`);
  }

  private call(method: string, path: string, body?: unknown): Promise<ProviderAnswer> {
    const url = `${this.config.baseUrl.replace(/\/+$/, '')}${path}`;
    return callProvider('email_domains', this.name, this.fetchImpl, url, { method, bearerToken: this.config.apiKey, body }, this.timeoutMs);
  }

  private fail(answer: ProviderAnswer, what: string): never {
    const name = str(answer.body.name) ?? '';
    const detail = str(answer.body.message) ?? '';
    const message = short(`resend: ${what}: HTTP ${answer.status}${name ? ` ${name}` : ''}${detail ? `: ${detail}` : ''}`);
    if (answer.status === 409 || /already|registered/i.test(detail))
      throw new ProviderError('email_domains', this.name, 'duplicate', message);
    if (answer.status === 404) throw new ProviderError('email_domains', this.name, 'not_found', message);
    if (answer.status === 422 || answer.status === 400) throw new ProviderError('email_domains', this.name, 'invalid', message);
    if (isRetryableStatus(answer.status)) throw new ProviderError('email_domains', this.name, 'unavailable', message);
    throw new ProviderError('email_domains', this.name, 'refused', message);
  }
}
