// Link values the page builder and the custom website accept (docs/page-builder.md, "Links").
import { safeString } from '../../../platform/http/strings';

export const MAX_URL_LENGTH = 2048;

/** An absolute https URL with a host and no user name or password in it. */
export function isHttpsUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '' && !/\s/.test(value);
}

/**
 * A path on the clinic's own site: starts with one '/' (not '//' or '/\', which browsers read as
 * another host), no whitespace. Query and fragment allowed (/programs?x=1#faq).
 */
export function isSitePath(value: string): boolean {
  return value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') && !/\s/.test(value);
}

export const httpsUrl = () =>
  safeString().trim().min(1).max(MAX_URL_LENGTH).refine(isHttpsUrl, { message: 'must be an absolute https:// URL' });

/** An https URL or a site path (navigation links, the Open Graph image). */
export const linkUrl = () =>
  safeString()
    .trim()
    .min(1)
    .max(MAX_URL_LENGTH)
    .refine((value) => isHttpsUrl(value) || isSitePath(value), {
      message: "must be an absolute https:// URL or a path on the site starting with '/'",
    });
