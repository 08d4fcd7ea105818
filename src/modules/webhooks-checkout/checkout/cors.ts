// CORS for the one route browsers call: POST /api/v1/checkout/sessions (with a publishable key).
// Every other route sends no CORS headers at all, so browsers keep refusing cross-origin reads there.
// The gateway (src/platform/http/gateway.ts) calls applyCheckoutCors before anything else, so the
// headers reach every answer of that route, 401 and 429 included; the preflight is answered by
// checkoutPreflight (a middleware in routes.ts, not an API operation). docs/checkout.md, "CORS".
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../../platform/context';

export const CHECKOUT_SESSIONS_PATH = '/api/v1/checkout/sessions';

/** Browsers keep a preflight at most this long (Chromium caps it at 2 hours, Firefox at 24). */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/**
 * Any origin: the route is called with a publishable key, which is public by design (it sits in the
 * brand's page source), and no cookie or other credential is involved, so naming origins would add
 * nothing. Headers a script may read besides the safelisted ones: the request id and the limits.
 */
export const CHECKOUT_CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Idempotent-Replayed',
};

export const CHECKOUT_PREFLIGHT_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'x-api-key, content-type, idempotency-key',
  'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
};

/**
 * Sets the CORS headers on a POST or OPTIONS to /api/v1/checkout/sessions (nothing elsewhere) and says
 * whether the request is that route's preflight, which carries no x-api-key header by the rules of CORS.
 */
export function applyCheckoutCors(c: Context<AppEnv>): { preflight: boolean } {
  if (c.req.path !== CHECKOUT_SESSIONS_PATH) return { preflight: false };
  const method = c.req.method;
  if (method !== 'POST' && method !== 'OPTIONS') return { preflight: false };
  for (const [name, value] of Object.entries(CHECKOUT_CORS_HEADERS)) c.header(name, value);
  return { preflight: method === 'OPTIONS' };
}

/** Answers the preflight: 204 with the allowed method, headers and max age. */
export const checkoutPreflight: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== 'OPTIONS') return next();
  return c.body(null, 204, CHECKOUT_PREFLIGHT_HEADERS);
};
