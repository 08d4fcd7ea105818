import type { Context, MiddlewareHandler } from 'hono';
import { isWellFormedApiKey } from '../auth/api-key-format';
import { findKeyPrincipal } from '../auth/key-auth';
import type { AppEnv } from '../context';
import { clientIp, enforceRateLimits, requireClientIp } from '../rate-limit/enforce';
import { IP_MINUTE, KEY_BURST, keyMinuteRule } from '../rate-limit/policy';
import { statusOf } from './error-handler';
import { unauthorized } from './errors';

/** /api/v1 paths that need no key. */
export const PUBLIC_API_PATHS = new Set(['/api/v1/openapi.json']);

/**
 * Front door of every /api/v1 request, ordered so that what can be refused without the database is:
 * 1. a value that cannot be a key (no key, unknown prefix, wrong length, no or bad checksum): 401, counted against the
 *    client address; no lookup;
 * 2. an address over its limit of failed key attempts: 429 before any lookup, so a blocked flood
 *    costs no database work;
 * 3. the key lookup (one indexed query): unknown, revoked or expired keys are 401 and counted as a
 *    failed attempt of the address;
 * 4. the key's own limits (per key, never per address: a brand server behind one address keeps its
 *    full rate): 429.
 * Every request made with a valid key is logged after the response, 429s included.
 */
export const apiKeyGateway: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (PUBLIC_API_PATHS.has(c.req.path)) return ipGateway(c, next);
  requireClientIp(c);
  const services = c.get('services');
  const started = Date.now();
  const address = `ip:${clientIp(c)}`;
  const raw = c.req.header('x-api-key');
  if (!isWellFormedApiKey(raw)) return refuseKey(c, address);
  await enforceRateLimits(c, [IP_MINUTE], address, 'peek');
  const key = await findKeyPrincipal(services.db, raw, services.now());
  if (!key) return refuseKey(c, address);

  c.set('apiKey', key);
  c.set('rateLimitOutcomes', []); // the address's failure count says nothing about this key's limits
  let status = 500;
  try {
    await enforceRateLimits(c, [keyMinuteRule(key), KEY_BURST], `key:${key.keyId}`);
    await next();
    status = c.res.status;
  } catch (error) {
    status = statusOf(error);
    throw error;
  } finally {
    services.requestLog.add({
      apiKeyId: key.keyId,
      clinicId: key.clinicId,
      requestId: c.get('requestId'),
      method: c.req.method,
      route: c.get('routePattern') ?? 'unmatched',
      status,
      durationMs: Date.now() - started,
    });
    services.background(services.requestLog.flush(services.db));
  }
};

/** A failed key attempt: counted against the address (429 once over), else 401. */
async function refuseKey(c: Context<AppEnv>, address: string): Promise<never> {
  c.set('rateLimitOutcomes', []); // the count replaces the earlier peek at the same limit
  await enforceRateLimits(c, [IP_MINUTE], address);
  throw unauthorized();
}

/** Root routes (sign-in, key management, health, docs): limited per client IP. */
export const ipGateway: MiddlewareHandler<AppEnv> = async (c, next) => {
  requireClientIp(c);
  await enforceRateLimits(c, [IP_MINUTE], `ip:${clientIp(c)}`);
  await next();
};
