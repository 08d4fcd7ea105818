import { CLOUDFLARE_API_BASE_URL, RESEND_API_BASE_URL } from './endpoints';
import { ConfigError } from './errors';
import { isUnder, normalizeHostname } from './hostnames';
import { present } from './values';

/**
 * The Worker variables and secrets the domain adapters read (docs/organization.md, "Configuration").
 */
export interface DomainsEnv {
  /** Cloudflare API token with "SSL and Certificates: Edit" on the SaaS zone: custom hostnames. */
  CLOUDFLARE_API_TOKEN?: string;
  /** The zone Cloudflare for SaaS is enabled on (32 hex digits). */
  CLOUDFLARE_ZONE_ID?: string;
  /** The hostname brands point their CNAME at (the zone's fallback origin, e.g. storefronts.brand-admin.com). */
  CUSTOM_DOMAIN_CNAME_TARGET?: string;
  /** Default https://api.cloudflare.com/client/v4; tests point it at a local stand-in. */
  CLOUDFLARE_API_BASE_URL?: string;
  /** Resend API key with full access (domains): email-domain authentication. Also the email sender's key. */
  RESEND_API_KEY?: string;
  /** Default https://api.resend.com; tests point it at a local stand-in. */
  RESEND_API_BASE_URL?: string;
  /** Comma-separated domains of the platform itself, refused as a brand's custom or email domain. */
  PLATFORM_DOMAINS?: string;
  /** Read for its host (a platform domain). */
  PUBLIC_BASE_URL?: string;
  /** Read for its host (a platform domain). */
  CHECKOUT_EMBED_BASE_URL?: string;
}

/**
 * The CNAME target without Cloudflare (development, tests, sandbox clinics). On .invalid, which never
 * resolves, so nobody publishes a development record by mistake.
 */
export const DEVELOPMENT_CNAME_TARGET = 'storefronts.brand-admin.invalid';

export interface CloudflareConfig {
  apiToken: string;
  zoneId: string;
  baseUrl: string;
}

export interface ResendDomainsConfig {
  apiKey: string;
  baseUrl: string;
}

export interface DomainsConfig {
  /** null: custom hostnames go through the development implementation (refused in production). */
  cloudflare: CloudflareConfig | null;
  /** null: email domains go through the development implementation (refused in production). */
  resend: ResendDomainsConfig | null;
  cnameTarget: string;
  /** Domains a brand may not register (each with every name under it). */
  platformDomains: string[];
}

const ZONE_ID = /^[0-9a-f]{32}$/;
const RESEND_KEY = /^re_[A-Za-z0-9_-]+$/;

function hostOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return normalizeHostname(new URL(url).hostname);
  } catch {
    return null;
  }
}

/** The CNAME target's parent (storefronts.brand-admin.com -> brand-admin.com): the platform's own zone. */
function parentOf(hostname: string): string {
  const labels = hostname.split('.');
  return labels.length > 2 ? labels.slice(1).join('.') : hostname;
}

/**
 * Reads the variables. The Cloudflare ones come together (token, zone id and CNAME target) or not at
 * all; a partial set is a ConfigError, as for the other secrets.
 */
export function domainsConfigFrom(env: DomainsEnv | undefined): DomainsConfig {
  const e = env ?? {};
  const apiToken = present(e.CLOUDFLARE_API_TOKEN);
  const zoneId = present(e.CLOUDFLARE_ZONE_ID);
  const target = present(e.CUSTOM_DOMAIN_CNAME_TARGET);
  let cloudflare: CloudflareConfig | null = null;
  if (apiToken || zoneId) {
    if (!apiToken || !zoneId || !target) {
      throw new ConfigError('Set CLOUDFLARE_API_TOKEN, CLOUDFLARE_ZONE_ID and CUSTOM_DOMAIN_CNAME_TARGET together, or none of them');
    }
    if (!ZONE_ID.test(zoneId)) throw new ConfigError('CLOUDFLARE_ZONE_ID must be a Cloudflare zone id (32 hex digits)');
    cloudflare = { apiToken, zoneId, baseUrl: present(e.CLOUDFLARE_API_BASE_URL) ?? CLOUDFLARE_API_BASE_URL };
  }
  const apiKey = present(e.RESEND_API_KEY);
  let resend: ResendDomainsConfig | null = null;
  if (apiKey) {
    if (!RESEND_KEY.test(apiKey)) throw new ConfigError('RESEND_API_KEY must be a Resend API key (re_...)');
    resend = { apiKey, baseUrl: present(e.RESEND_API_BASE_URL) ?? RESEND_API_BASE_URL };
  }
  const cnameTarget = normalizeHostname(target ?? DEVELOPMENT_CNAME_TARGET);
  const listed = (present(e.PLATFORM_DOMAINS) ?? '').split(',').map(normalizeHostname).filter(Boolean);
  const hosts = [hostOf(e.PUBLIC_BASE_URL), hostOf(e.CHECKOUT_EMBED_BASE_URL)].filter((h): h is string => Boolean(h));
  const all = [parentOf(cnameTarget), ...listed, ...hosts];
  // Keep the widest of nested entries only (brand-admin.com covers api.brand-admin.com).
  const platformDomains = [...new Set(all)].filter((d, _, list) => !list.some((other) => other !== d && isUnder(d, other)));
  return { cloudflare, resend, cnameTarget, platformDomains };
}
