// Link values the page builder and the custom website accept (docs/page-builder.md, "Links").
import { isHttpsUrl, isSitePath } from '../../../platform/values/markup';
import { safeString } from '../../../platform/values/strings';

/** The URL rules are the platform's (shared with the markup of rich HTML fields). */
export { isHttpsUrl, isSitePath };

export const MAX_URL_LENGTH = 2048;

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
