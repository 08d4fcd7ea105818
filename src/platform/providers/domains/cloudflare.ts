// Custom hostnames through Cloudflare for SaaS (https://api.cloudflare.com/client/v4), over fetch:
//   POST   /zones/{zone}/custom_hostnames        { hostname, ssl: { method: http, type: dv } }
//          -> result { id, hostname, status: pending, ssl { status }, ownership_verification { type: txt, name, value } }
//   GET    /zones/{zone}/custom_hostnames/{id}   -> result { status, verification_errors[], ssl { status, validation_errors[] } }
//   DELETE /zones/{zone}/custom_hostnames/{id}
// Authorization: Bearer <API token>. Every answer is { success, errors: [{ code, message }], messages, result }.
// The certificate is validated over HTTP (method http): once the brand's CNAME points at the zone's
// fallback origin, Cloudflare validates it by itself, so the brand publishes two records only (the
// CNAME and the ownership TXT).
import type { CloudflareConfig } from '../../../config/domains';
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
import type { CreatedCustomHostname, CustomHostnameProvider, CustomHostnameRecord, DomainCheck } from './types';

/** Cloudflare's API codes that refuse the hostname itself (invalid, non-ASCII, reserved, unparsable, documentation domains). */
const INVALID_HOSTNAME_CODES = new Set([1407, 1408, 1409, 1410, 1411]);
const DUPLICATE_CODE = 1406;

export class CloudflareCustomHostnames implements CustomHostnameProvider {
  readonly name = 'cloudflare';

  constructor(
    private readonly config: CloudflareConfig & { cnameTarget: string },
    private readonly fetchImpl: FetchLike = defaultFetch,
    private readonly timeoutMs = PROVIDER_TIMEOUT_MS,
  ) {}

  async create(input: { clinicId: string; hostname: string }): Promise<CreatedCustomHostname> {
    const answer = await this.call('POST', '', {
      hostname: input.hostname,
      ssl: { method: 'http', type: 'dv', settings: { min_tls_version: '1.2' } },
    });
    if (!answer.ok) this.fail(answer, `create ${input.hostname}`);
    const result = obj(answer.body.result);
    const id = str(result.id);
    const token = str(obj(result.ownership_verification).value);
    if (!id || !token)
      throw new ProviderError(
        'custom_hostnames',
        this.name,
        'refused',
        'cloudflare: the created custom hostname has no id or ownership verification',
      );
    return { providerHostnameId: id, verificationToken: token, cnameTarget: this.config.cnameTarget };
  }

  async check(record: CustomHostnameRecord): Promise<DomainCheck> {
    const answer = await this.call('GET', `/${encodeURIComponent(record.providerHostnameId)}`);
    if (!answer.ok) this.fail(answer, `read ${record.hostname}`);
    const result = obj(answer.body.result);
    const status = str(result.status) ?? 'unknown';
    const ssl = obj(result.ssl);
    const sslStatus = str(ssl.status) ?? 'unknown';
    const problems: string[] = [];
    if (status !== 'active') {
      problems.push(`Hostname ownership is ${status} at Cloudflare`);
      for (const e of arr(result.verification_errors)) if (typeof e === 'string') problems.push(short(e));
    }
    if (sslStatus !== 'active') {
      problems.push(`The certificate is ${sslStatus} at Cloudflare`);
      for (const e of arr(ssl.validation_errors)) {
        const message = str(obj(e).message);
        if (message) problems.push(short(message));
      }
    }
    return { verified: problems.length === 0, problems };
  }

  /** Cloudflare serves an active hostname by itself: attaching re-reads it, so nothing stale goes live. */
  attach(record: CustomHostnameRecord): Promise<DomainCheck> {
    return this.check(record);
  }

  async remove(record: CustomHostnameRecord): Promise<void> {
    const answer = await this.call('DELETE', `/${encodeURIComponent(record.providerHostnameId)}`);
    if (answer.ok || answer.status === 404) return;
    this.fail(answer, `delete ${record.hostname}`);
  }

  private call(method: string, path: string, body?: unknown): Promise<ProviderAnswer> {
    const base = this.config.baseUrl.replace(/\/+$/, '');
    const url = `${base}/zones/${encodeURIComponent(this.config.zoneId)}/custom_hostnames${path}`;
    return callProvider(
      'custom_hostnames',
      this.name,
      this.fetchImpl,
      url,
      { method, bearerToken: this.config.apiToken, body },
      this.timeoutMs,
    );
  }

  private fail(answer: ProviderAnswer, what: string): never {
    const errors = arr(answer.body.errors).map(obj);
    const codes = errors.map((e) => Number(e.code));
    const detail = errors.map((e) => `${str(e.message) ?? 'error'}${e.code === undefined ? '' : ` (${String(e.code)})`}`).join('; ');
    const message = short(`cloudflare: ${what}: HTTP ${answer.status}${detail ? `: ${detail}` : ''}`);
    if (answer.status === 409 || codes.includes(DUPLICATE_CODE))
      throw new ProviderError('custom_hostnames', this.name, 'duplicate', message);
    if (answer.status === 404) throw new ProviderError('custom_hostnames', this.name, 'not_found', message);
    if (codes.some((code) => INVALID_HOSTNAME_CODES.has(code))) throw new ProviderError('custom_hostnames', this.name, 'invalid', message);
    if (isRetryableStatus(answer.status)) throw new ProviderError('custom_hostnames', this.name, 'unavailable', message);
    throw new ProviderError('custom_hostnames', this.name, 'refused', message);
  }
}
