// Formats of the organization and clinic settings (docs/organization.md, "Field rules").
import { z } from '@hono/zod-openapi';
import { hostnameProblem, MAX_HOSTNAME_LENGTH, normalizeHostname } from '../../../platform/providers/domains';
import { safeString } from '../../../platform/values/strings';
import { toE164, US_STATE_CODES, ZIP_CODE_PATTERN } from '../onboarding/validation';

export { US_STATE_CODES };

/** 3-63 lowercase letters, digits and single hyphens, starting and ending with a letter or digit. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,61}[a-z0-9]$/;
export const SLUG_RULE = '3-63 lowercase letters, digits and single hyphens, starting and ending with a letter or digit';
/** Slugs the platform keeps for itself (its own paths and subdomains): never available. */
export const RESERVED_SLUGS = [
  'admin',
  'api',
  'app',
  'assets',
  'billing',
  'checkout',
  'dashboard',
  'docs',
  'help',
  'login',
  'logout',
  'mail',
  'portal',
  'sandbox',
  'settings',
  'signin',
  'signup',
  'static',
  'status',
  'support',
  'uploads',
  'www',
] as const;
export const isReservedSlug = (slug: string) => (RESERVED_SLUGS as readonly string[]).includes(slug);

export const slugSchema = () =>
  safeString()
    .max(63)
    .regex(SLUG_PATTERN, `must be ${SLUG_RULE}`)
    .openapi({ description: `${SLUG_RULE}; unique across the platform.`, example: 'demo-clinic' });

/** #RGB or #RRGGBB; stored upper-case as #RRGGBB. */
export const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const toHexColor = (value: string) => {
  const hex = value.slice(1);
  return `#${(hex.length === 3 ? hex.replace(/./g, (c) => c + c) : hex).toUpperCase()}`;
};

/** An IANA time zone the runtime knows (Area/Location, or UTC). */
export function isIanaTimeZone(value: string): boolean {
  if (value !== 'UTC' && !/^[A-Za-z]+(?:\/[A-Za-z0-9_+-]+){1,2}$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const emailSchema = () => safeString().trim().toLowerCase().max(254).email('must be an email address');

/** A phone number written as E.164 or as a US national number; stored as E.164. */
export const phoneSchema = () =>
  safeString()
    .trim()
    .max(32)
    .transform((value, ctx) => {
      const e164 = toE164(value);
      if (!e164) {
        ctx.addIssue({ code: 'custom', message: 'must be a phone number: E.164 (+14155550123) or a US number ((415) 555-0123)' });
        return z.NEVER;
      }
      return e164;
    })
    .openapi({ type: 'string', description: 'E.164 (+14155550123) or a US number; stored as E.164.', example: '+14155550123' });

export const stateSchema = () =>
  safeString()
    .max(100)
    .trim()
    .toUpperCase()
    .refine((v) => (US_STATE_CODES as readonly string[]).includes(v), {
      message: 'must be a two-letter US state code (CA, NY, DC, PR, ...)',
    })
    .openapi({ type: 'string', example: 'CA' });

export const zipSchema = () =>
  safeString().max(100).trim().regex(ZIP_CODE_PATTERN, 'must be a US ZIP code (12345 or 12345-6789)').openapi({ example: '94105' });

/**
 * A hostname as the custom-domain and email-domain routes take it: trimmed and lower-cased, one
 * trailing dot dropped, then checked by hostnameProblem (bare name, not an IP, no reserved names).
 * Whether it is one of the platform's own domains is checked by the service (it depends on the deployment).
 */
export const hostnameSchema = (example: string) =>
  safeString()
    .max(MAX_HOSTNAME_LENGTH + 1)
    .transform((value, ctx) => {
      const hostname = normalizeHostname(value);
      const problem = hostnameProblem(hostname);
      if (problem) {
        ctx.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }
      return hostname;
    })
    .openapi({
      type: 'string',
      description:
        "A bare hostname (no scheme, path or port), stored lower-cased; not an IP address, not a reserved or documentation name, not one of the platform's own domains.",
      example,
    });
