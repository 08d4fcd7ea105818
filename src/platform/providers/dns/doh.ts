// Host names resolved through DNS over HTTPS, JSON format (Cloudflare's 1.1.1.1 at
// https://cloudflare-dns.com/dns-query; Google's https://dns.google/resolve speaks the same):
//   GET <url>?name=<name>&type=A|AAAA   Accept: application/dns-json
//   -> { Status: 0 (NOERROR) | 3 (NXDOMAIN) | 2 (SERVFAIL) ..., TC: false, Answer?: [{ name, type, TTL, data }] }
// Answer holds the CNAME chain (type 5) followed by the records asked for (A = 1, AAAA = 28). An
// answer that cannot be trusted to be complete (no answer in time, not 200, not JSON, truncated, a
// status other than NOERROR and NXDOMAIN, a record that is not an address) is 'unavailable': the
// caller refuses rather than guesses.
import { CLOUDFLARE_DOH_URL } from '../../../config/endpoints';
import { ProviderError } from '../errors';
import { defaultFetch, type FetchLike, fetchVendor, networkErrorDetail } from '../http';
import type { HostResolver } from './types';

/** A lookup gives up after this long (both record types are asked at once); a webhook registration waits for it. */
export const DOH_TIMEOUT_MS = 2_500;

const RECORD_TYPES = { A: 1, AAAA: 28 } as const;
type RecordType = keyof typeof RECORD_TYPES;

const NOERROR = 0;
const NXDOMAIN = 3;
const RCODES: Record<number, string> = { 1: 'FORMERR', 2: 'SERVFAIL', 4: 'NOTIMP', 5: 'REFUSED' };

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The address as the rest of the code compares it (IPv6 compressed, lower case), or null when `data` is not an address of `type`. */
function addressOf(type: RecordType, data: unknown): string | null {
  if (typeof data !== 'string') return null;
  if (type === 'A') {
    const octets = IPV4.exec(data)?.slice(1).map(Number);
    return octets?.every((octet) => octet <= 255) ? octets.join('.') : null;
  }
  if (!data.includes(':')) return null;
  try {
    // The WHATWG URL parser validates and compresses an IPv6 address (the form the URL policy sees too).
    return new URL(`http://[${data}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

export interface DohResolverOptions {
  /** The resolver's JSON endpoint (default Cloudflare's); tests point it at a local stand-in. */
  url?: string;
  timeoutMs?: number;
  fetchImpl?: FetchLike;
}

export class DohHostResolver implements HostResolver {
  readonly name = 'cloudflare-doh';
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: FetchLike;

  constructor(options: DohResolverOptions = {}) {
    this.url = options.url ?? CLOUDFLARE_DOH_URL;
    this.timeoutMs = options.timeoutMs ?? DOH_TIMEOUT_MS;
    this.fetchImpl = options.fetchImpl ?? defaultFetch;
  }

  async addressesOf(hostname: string): Promise<string[]> {
    const [v4, v6] = await Promise.all([this.query(hostname, 'A'), this.query(hostname, 'AAAA')]);
    return [...v4, ...v6];
  }

  private unavailable(detail: string): ProviderError {
    return new ProviderError('dns', this.name, 'unavailable', `${this.name}: ${detail}`);
  }

  private async query(hostname: string, type: RecordType): Promise<string[]> {
    const url = `${this.url}?name=${encodeURIComponent(hostname)}&type=${type}`;
    let body: unknown;
    try {
      const res = await fetchVendor(this.fetchImpl, url, { headers: { Accept: 'application/dns-json' } }, this.timeoutMs);
      if (res.status !== 200) {
        await res.body?.cancel().catch(() => undefined);
        throw this.unavailable(`HTTP ${res.status} for ${type} ${hostname}`);
      }
      body = JSON.parse(await res.text());
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      // A timeout while reading the body is a timeout too; a body that is not JSON is a SyntaxError.
      const detail = error instanceof SyntaxError ? 'the answer is not JSON' : networkErrorDetail(error);
      throw this.unavailable(`${detail} (${type} ${hostname})`);
    }
    const answer = (typeof body === 'object' && body !== null ? body : {}) as { Status?: unknown; TC?: unknown; Answer?: unknown };
    if (answer.Status === NXDOMAIN) return [];
    if (answer.Status !== NOERROR) {
      const status = typeof answer.Status === 'number' ? (RCODES[answer.Status] ?? `status ${answer.Status}`) : 'no status';
      throw this.unavailable(`${status} for ${type} ${hostname}`);
    }
    if (answer.TC === true) throw this.unavailable(`truncated answer for ${type} ${hostname}`);
    const records = Array.isArray(answer.Answer) ? answer.Answer : [];
    const addresses: string[] = [];
    for (const record of records as { type?: unknown; data?: unknown }[]) {
      if (record?.type !== RECORD_TYPES[type]) continue;
      const address = addressOf(type, record.data);
      if (!address) throw this.unavailable(`an ${type} record of ${hostname} is not an address`);
      addresses.push(address);
    }
    return addresses;
  }
}
