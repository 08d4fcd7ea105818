/**
 * Which URLs a webhook endpoint may have (docs/webhooks.md, "What stops a webhook URL reaching our
 * network"). A pure function of the URL as written: it is parsed with the WHATWG URL parser (the one
 * fetch uses, so the host checked is the host called), which already turns every IPv4 spelling
 * (2130706433, 0x7f000001, 0x7f.0.0.1, 0177.0.0.1, 127.1, percent-encoded or full-width digits) into
 * dotted decimal and compresses IPv6; the checks below run on that normalised hostname. What a name
 * resolves to is checked apart (destination.ts), with the addresses judged by refusedAddress below.
 */

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface UrlPolicyOptions {
  /** Development/test only: also allow http(s)://127.0.0.1[:port] and http(s)://localhost[:port]. */
  allowInsecureLocalhost?: boolean;
}

export type UrlPolicyResult =
  | {
      ok: true;
      /** The URL as the parser normalised it: what is stored and called. */
      url: string;
      /** The name whose addresses must be checked before the URL is called; null for the development loopback exemption. */
      resolve: string | null;
    }
  | { ok: false; reason: string };

/** The ports a receiver may listen on: HTTPS's own and its common alternative (both proxied by Cloudflare). */
export const WEBHOOK_PORTS = ['443', '8443'] as const;

/** Names that are never public, or that are cloud metadata services. */
const BLOCKED_NAMES = new Set([
  'localhost',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);
/**
 * Suffixes of private or local-only names (Kubernetes services, mDNS, reverse-lookup zones), and the
 * best-known public wildcard-DNS services that resolve to any address written in the name. A list
 * cannot be complete: what a name resolves to is the real check (destination.ts); this one answers
 * the obvious cases early, the same in every environment.
 */
const BLOCKED_SUFFIXES = [
  '.localhost',
  '.internal',
  '.local',
  '.localdomain',
  '.svc',
  '.arpa',
  '.onion',
  '.lan',
  '.intranet',
  '.corp',
  '.private',
  '.nip.io',
  '.sslip.io',
  '.xip.io',
  '.localtest.me',
  '.lvh.me',
];
const BLOCKED_DOMAINS = new Set(['nip.io', 'sslip.io', 'xip.io', 'localtest.me', 'lvh.me']);

/** IPv4 ranges that are not public unicast addresses (RFC 6890 and friends), with the reason given. */
const IPV4_BLOCKS: [string, number, string][] = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT (shared) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (cloud metadata lives here)'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'an IETF protocol assignment address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a 6to4 relay anycast address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved or broadcast address'],
];

const ipv4ToInt = (ip: string) => ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);

/** Why a dotted-decimal IPv4 address is refused, or null when it is public. */
export function refusedIpv4(ip: string): string | null {
  const value = ipv4ToInt(ip);
  for (const [base, bits, reason] of IPV4_BLOCKS) {
    const size = 2 ** (32 - bits);
    const start = ipv4ToInt(base);
    if (value >= start && value < start + size) return reason;
  }
  return null;
}

/** The eight 16-bit groups of an IPv6 address (compressed or not, maybe with a dotted IPv4 tail), or null. */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const v4 = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(2).map(Number) as [number, number, number, number];
    if ([a, b, c, d].some((x) => x > 255)) return null;
    text = `${v4[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  if (!/^[0-9a-f:]+$/.test(text) || text.split('::').length > 2) return null;
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((x) => (/^[0-9a-f]{1,4}$/.test(x) ? parseInt(x, 16) : NaN)));
  const halves = text.split('::');
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...left, ...right].some(Number.isNaN)) return null;
  if (halves.length === 1) return left.length === 8 ? left : null;
  const missing = 8 - left.length - right.length;
  return missing < 1 ? null : [...left, ...new Array<number>(missing).fill(0), ...right];
}

const groupsToIpv4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');

/** Why an IPv6 address (without brackets) is refused, or null when it is public. Only global unicast (2000::/3) passes. */
export function refusedIpv6(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return 'an unparseable IPv6 address';
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (zeroPrefix && g5 === 0 && g6 === 0 && g7 === 0) return 'an unspecified address';
  if (zeroPrefix && g5 === 0 && g6 === 0 && g7 === 1) return 'a loopback address';
  if (zeroPrefix && g5 === 0xffff) return `an IPv4-mapped IPv6 address (${groupsToIpv4(g6, g7)})`;
  if (zeroPrefix && g5 === 0) return `an IPv4-compatible IPv6 address (${groupsToIpv4(g6, g7)})`;
  if (g0 === 0x64 && g1 === 0xff9b) return `a NAT64 address (${groupsToIpv4(g6, g7)})`;
  if ((g0 & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((g0 & 0xfe00) === 0xfc00) return 'a unique-local (private) address';
  if ((g0 & 0xff00) === 0xff00) return 'a multicast address';
  if ((g0 & 0xe000) !== 0x2000) return 'a reserved (non-global) IPv6 address';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'a documentation address';
  if (g0 === 0x2001 && g1 === 0) return 'a Teredo address';
  if (g0 === 0x2002) {
    const inner = refusedIpv4(groupsToIpv4(g1, g2));
    if (inner) return `a 6to4 address embedding ${inner}`;
  }
  return null;
}

/** Why an address (IPv4 dotted decimal, or IPv6 without brackets) may not be called, or null when it is public. */
export function refusedAddress(address: string): string | null {
  return address.includes(':') ? refusedIpv6(address) : refusedIpv4(address);
}

const refuse = (reason: string): UrlPolicyResult => ({ ok: false, reason });

/**
 * Checks a webhook URL. On success returns the URL as the parser normalised it (what is stored and
 * called) and the name to resolve; otherwise a reason fit for `body.url: <reason>`. IP literals are
 * refused whatever they are (a public one too): a receiver is named, as its certificate is, and a
 * deployed Worker cannot fetch an IP address anyway.
 */
export function checkWebhookUrl(input: string, options: UrlPolicyOptions = {}): UrlPolicyResult {
  if (input.length > MAX_WEBHOOK_URL_LENGTH) return refuse(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return refuse('must be an absolute URL');
  }
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) return refuse(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  if (url.username || url.password) return refuse('must not contain credentials (user:password@)');
  if (url.hash) return refuse('must not contain a fragment (#...)');

  const host = url.hostname.toLowerCase();
  const isLocalDev = options.allowInsecureLocalhost === true && (host === '127.0.0.1' || host === 'localhost');
  if (isLocalDev && (url.protocol === 'http:' || url.protocol === 'https:')) return { ok: true, url: url.href, resolve: null };
  if (url.protocol !== 'https:') return refuse('must use https');
  if (!host) return refuse('must name a host');

  if (host.startsWith('[')) return refuse(`must not point at ${refusedIpv6(host.slice(1, -1)) ?? 'an IP address; use a host name'}`);
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return refuse(`must not point at ${refusedIpv4(host) ?? 'an IP address; use a host name'}`);

  const name = host.replace(/\.+$/, '');
  if (!name.includes('.'))
    return refuse(name === 'localhost' ? 'must not point at localhost' : 'must use a fully qualified public host name');
  if (BLOCKED_NAMES.has(name)) return refuse(`must not point at ${name} (a local or metadata host)`);
  if (BLOCKED_DOMAINS.has(name) || BLOCKED_SUFFIXES.some((suffix) => name.endsWith(suffix))) {
    return refuse(`must not point at ${name} (a local, internal or wildcard-DNS name)`);
  }
  // A name made of digits and dots only, that the parser did not take as IPv4, cannot be public.
  if (/^[\d.]+$/.test(name)) return refuse('must not be a numeric host name');
  // The parser leaves the port empty when it is the scheme's own (443).
  if (url.port && !WEBHOOK_PORTS.includes(url.port as (typeof WEBHOOK_PORTS)[number])) {
    return refuse(`must use port 443 or 8443, not ${url.port}`);
  }
  return { ok: true, url: url.href, resolve: name };
}
