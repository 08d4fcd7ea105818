import type { Context } from 'hono';
import type { AppEnv } from '../context';
import { type RuleOutcome, rateLimitHeaders, refusedOutcome, scaleRules, secondsUntil } from '../rate-limit/policy';
import type { RateLimitRule } from '../rate-limit/types';
import { ERROR_MESSAGES } from '../values/error-messages';
import { ApiError } from '../values/errors';
import { setResponseHeaders } from './response-headers';

type Check = 'limit' | 'peek';

/**
 * Replaced by each check. Retry-After is not among them: only a refusal sets it (and throws), so an
 * earlier check never leaves one behind, and a handler's own (a 503's) must survive the key's limits
 * answering after it (reads run alongside them, src/platform/http/gateway.ts).
 */
const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];

/**
 * Checks every rule for one identifier (all must pass): `limit` counts the request, `peek` only looks.
 * The outcomes join those of earlier checks of the same request, and the RateLimit-* headers always
 * show the most restrictive of them all (so sign-in, limited per IP and per account, reports the
 * tighter one). The headers are set at once, so they reach every answer, errors and 5xx included.
 * Throws 429 RATE_LIMIT_EXCEEDED when a rule is exhausted.
 */
export async function enforceRateLimits(
  c: Context<AppEnv>,
  rules: RateLimitRule[],
  identifier: string,
  check: Check = 'limit',
): Promise<void> {
  const services = c.get('services');
  const scaled = scaleRules(rules, services.config.rateLimitMultiplier ?? 1);
  const outcomes: RuleOutcome[] = await Promise.all(
    scaled.map(async (rule) => ({ rule, result: await services.rateLimiter[check](rule, identifier) })),
  );
  applyRateLimitOutcomes(c, outcomes);
}

/**
 * Joins checked outcomes to the request's earlier ones, sets the RateLimit-* headers (the tightest of
 * them all) and throws 429 RATE_LIMIT_EXCEEDED when one of these outcomes refused.
 */
export function applyRateLimitOutcomes(c: Context<AppEnv>, outcomes: RuleOutcome[]): void {
  const services = c.get('services');
  for (const { result } of outcomes) if (result.pending) services.background(result.pending);
  const all = [...(c.get('rateLimitOutcomes') ?? []), ...outcomes];
  c.set('rateLimitOutcomes', all);
  const now = services.now().getTime();
  const headers = rateLimitHeaders(all, now);
  // An earlier check's values must not linger: each name is set, or removed when this check has none.
  const changes: [string, string | undefined][] = RATE_LIMIT_HEADERS.map((name) => [name, headers[name]]);
  for (const [name, value] of Object.entries(headers)) if (!RATE_LIMIT_HEADERS.includes(name)) changes.push([name, value]);
  setResponseHeaders(c, changes);
  const refused = refusedOutcome(outcomes);
  if (refused) {
    const retryAfterSeconds = secondsUntil(refused.result.reset, now);
    throw new ApiError(
      429,
      'RATE_LIMIT_EXCEEDED',
      ERROR_MESSAGES.RATE_LIMIT_EXCEEDED(retryAfterSeconds),
      {
        retryAfterSeconds,
      },
      headers,
    );
  }
}

/** The header Cloudflare's edge sets on every request it forwards; clients cannot forge it there. */
export const CLIENT_IP_HEADER = 'cf-connecting-ip';

/**
 * The caller's address as Cloudflare reports it. In development and tests a request without it comes
 * from the developer's own tools and shares the bucket "local". In production every request through
 * Cloudflare's edge carries it, so one without it (a misrouted internal call) cannot be told apart
 * from any other such request; sharing one bucket would let one caller lock all the others out, so
 * the gateway refuses it instead (see requireClientIp).
 */
export function clientIp(c: Context<AppEnv>): string {
  return c.req.header(CLIENT_IP_HEADER) ?? 'local';
}

export function requireClientIp(c: Context<AppEnv>): void {
  if (c.get('services').config.environment !== 'production' || c.req.header(CLIENT_IP_HEADER)) return;
  throw new ApiError(400, 'CLIENT_IP_REQUIRED', 'Requests must reach the API through its public hostname (no CF-Connecting-IP header)');
}
