import type { MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { findKeyPrincipal } from '../auth/key-auth';
import type { AppEnv } from '../context';
import { clientIp, enforceRateLimits } from '../rate-limit/enforce';
import { IP_MINUTE, KEY_BURST, keyMinuteRule } from '../rate-limit/policy';
import { logKeyRequest } from '../request-log';
import { ApiError, unauthorized } from './errors';

/** /api/v1 paths that need no key. */
export const PUBLIC_API_PATHS = new Set(['/api/v1/openapi.json']);

/**
 * Front door of every /api/v1 request: the key (401), then its rate limits (429). A request with no
 * valid key is counted against its client IP instead, so key guessing is throttled too. Every request
 * made with a valid key is logged after the response.
 */
export const apiKeyGateway: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (PUBLIC_API_PATHS.has(c.req.path)) return ipGateway(c, next);
  const services = c.get('services');
  const started = Date.now();
  const key = await findKeyPrincipal(services.db, c.req.header('x-api-key'), services.now());
  if (!key) {
    await enforceRateLimits(c, [IP_MINUTE], `ip:${clientIp(c)}`);
    throw unauthorized();
  }
  c.set('apiKey', key);
  let status = 500;
  try {
    await enforceRateLimits(c, [keyMinuteRule(key), KEY_BURST], `key:${key.keyId}`);
    await next();
    status = c.res.status;
  } catch (error) {
    status = error instanceof ApiError || error instanceof HTTPException ? error.status : 500;
    throw error;
  } finally {
    services.background(
      logKeyRequest(services.db, {
        apiKeyId: key.keyId,
        clinicId: key.clinicId,
        requestId: c.get('requestId'),
        method: c.req.method,
        route: c.get('routePattern') ?? 'unmatched',
        status,
        durationMs: Date.now() - started,
      }),
    );
  }
};

/** Root routes (sign-in, key management, health, docs): limited per client IP. */
export const ipGateway: MiddlewareHandler<AppEnv> = async (c, next) => {
  await enforceRateLimits(c, [IP_MINUTE], `ip:${clientIp(c)}`);
  await next();
};
