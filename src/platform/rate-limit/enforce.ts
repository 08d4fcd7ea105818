import type { Context } from 'hono';
import type { AppEnv } from '../context';
import { ApiError } from '../http/errors';
import { rateLimitHeaders, refusedOutcome, secondsUntil, type RuleOutcome } from './policy';
import type { RateLimitRule } from './types';

/**
 * Counts one request against every rule (all must pass), puts the RateLimit-* headers on the
 * response whatever happens next, and throws 429 RATE_LIMIT_EXCEEDED when a rule is exhausted.
 */
export async function enforceRateLimits(c: Context<AppEnv>, rules: RateLimitRule[], identifier: string): Promise<void> {
  const services = c.get('services');
  const outcomes: RuleOutcome[] = await Promise.all(
    rules.map(async (rule) => ({ rule, result: await services.rateLimiter.limit(rule, identifier) })),
  );
  for (const { result } of outcomes) if (result.pending) services.background(result.pending);
  const now = services.now().getTime();
  const headers = rateLimitHeaders(outcomes, now);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  const refused = refusedOutcome(outcomes);
  if (refused) {
    const retryAfterSeconds = secondsUntil(refused.result.reset, now);
    throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `Rate limit exceeded; retry in ${retryAfterSeconds} seconds`, {
      retryAfterSeconds,
    }, headers);
  }
}

/** The caller's address as Cloudflare reports it; local tools that set nothing share one bucket. */
export function clientIp(c: Context<AppEnv>): string {
  return c.req.header('cf-connecting-ip') ?? 'local';
}
