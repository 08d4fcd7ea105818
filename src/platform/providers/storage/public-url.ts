import { ConfigError } from '../../../config';

/** Without UPLOADS_PUBLIC_BASE_URL, stored objects are addressed under this path of the API's own host. */
export const DEFAULT_UPLOADS_PATH = '/uploads';

/**
 * Builds the URLs of stored objects: `<base>/<key>`. The base is UPLOADS_PUBLIC_BASE_URL (an absolute
 * http(s) URL such as an R2 custom domain, https://cdn.example.com/uploads), or /uploads (a path on
 * the API host, served by a later proxy route) when unset.
 */
export function publicUrlBuilder(base: string | undefined): (key: string) => string {
  const prefix = base ? checkedBase(base) : DEFAULT_UPLOADS_PATH;
  return (key) => `${prefix}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

function checkedBase(base: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ConfigError('UPLOADS_PUBLIC_BASE_URL must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError('UPLOADS_PUBLIC_BASE_URL must be an absolute http(s) URL');
  if (url.search || url.hash) throw new ConfigError('UPLOADS_PUBLIC_BASE_URL must not have a query or fragment');
  return base.replace(/\/+$/, '');
}
