// What a brand may register as a custom hostname or an email domain (docs/organization.md, "Hostnames").
// The rules are Cloudflare's for custom hostnames (its API refuses the same names with 1407-1411), so
// the development implementation refuses exactly what production would.

import { isUnder, normalizeHostname } from '../../../config';

/** Top-level names that can never be published on the public DNS (RFC 2606, RFC 6761, RFC 6762 and friends). */
export const RESERVED_TOP_LEVEL_NAMES = [
  'test',
  'example',
  'invalid',
  'localhost',
  'local',
  'internal',
  'arpa',
  'onion',
  'home',
  'lan',
] as const;
/** Second-level names reserved for documentation (Cloudflare refuses them and everything under them). */
export const RESERVED_DOMAINS = ['example.com', 'example.net', 'example.org'] as const;

export const MAX_HOSTNAME_LENGTH = 253;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TOP_LEVEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

export { isUnder, normalizeHostname };

/**
 * Why a normalized hostname cannot be registered, or null when it can: a bare DNS name (no scheme,
 * path, port or wildcard), ASCII only (punycode for international names), at least two labels, not an
 * IP address, not on a reserved top-level name or documentation domain.
 */
export function hostnameProblem(hostname: string): string | null {
  if (hostname.length === 0) return 'must not be empty';
  if (/[/:?#@\\]/.test(hostname) || /\s/.test(hostname)) {
    return 'must be a bare hostname such as shop.example-brand.com (no scheme, path, port or spaces)';
  }
  if (hostname.includes('*')) return 'must not be a wildcard';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: every non-ASCII character is refused, so the class starts at U+0000
  if (/[^\x00-\x7f]/.test(hostname)) return 'must be ASCII (write an international name in its punycode form, xn--...)';
  if (hostname.length > MAX_HOSTNAME_LENGTH) return `must be at most ${MAX_HOSTNAME_LENGTH} characters`;
  const labels = hostname.split('.');
  if (labels.length < 2) return 'must be a fully qualified domain name (at least one dot)';
  if (labels.every((label) => /^\d+$/.test(label))) return 'must be a hostname, not an IP address';
  for (const label of labels) {
    if (!LABEL.test(label)) return 'each dot-separated part must be 1-63 letters, digits or hyphens, not starting or ending with a hyphen';
  }
  const top = labels[labels.length - 1]!;
  if (!TOP_LEVEL.test(top)) return 'must end in a top-level domain made of letters';
  if ((RESERVED_TOP_LEVEL_NAMES as readonly string[]).includes(top)) return `must not use the reserved top-level name .${top}`;
  const reserved = RESERVED_DOMAINS.find((domain) => isUnder(hostname, domain));
  if (reserved) return `must not be under ${reserved} (reserved for documentation)`;
  return null;
}

/** The platform domain `hostname` falls under, or null. */
export function platformDomainOf(hostname: string, platformDomains: readonly string[]): string | null {
  return platformDomains.find((domain) => isUnder(hostname, domain)) ?? null;
}
