import type { RateLimitResult, RateLimitRule } from './types';

/** Default limits (spec, Limits). A key's rateLimitPerMin replaces the minute limit. */
export const KEY_MINUTE_LIMIT = 300;
export const SANDBOX_MINUTE_LIMIT = 60;
export const KEY_BURST: RateLimitRule = { name: 'key-burst', limit: 100, windowSeconds: 10, onStoreFailure: 'open' };
/**
 * Per client IP: every request to the root routes (sign-in, key management, health, docs) and every
 * failed key attempt on /api/v1. An address over it is refused before any key lookup.
 */
export const IP_MINUTE: RateLimitRule = { name: 'ip-minute', limit: 120, windowSeconds: 60, onStoreFailure: 'local' };
/** Sign-in attempts per client IP and email. */
export const SIGN_IN_ATTEMPTS: RateLimitRule = { name: 'sign-in', limit: 10, windowSeconds: 900, onStoreFailure: 'local' };
/** Sign-in attempts per email from any address, so a password cannot be guessed from many addresses. */
export const SIGN_IN_ACCOUNT: RateLimitRule = { name: 'sign-in-account', limit: 30, windowSeconds: 900, onStoreFailure: 'local' };

export function keyMinuteRule(key: { isSandbox: boolean; rateLimitPerMin: number | null }): RateLimitRule {
  const limit = key.rateLimitPerMin ?? (key.isSandbox ? SANDBOX_MINUTE_LIMIT : KEY_MINUTE_LIMIT);
  return { name: 'key-minute', limit, windowSeconds: 60, onStoreFailure: 'open' };
}

/**
 * The rules with their limits multiplied (RATE_LIMIT_MULTIPLIER, development only: the benchmark
 * raises them so it measures the limiter's cost, not its refusals). The limit is part of a rule's
 * counter namespace, so raised limits never share counters with the real ones.
 */
export function scaleRules(rules: RateLimitRule[], multiplier: number): RateLimitRule[] {
  return multiplier === 1 ? rules : rules.map((rule) => ({ ...rule, limit: rule.limit * multiplier }));
}

export interface RuleOutcome {
  rule: RateLimitRule;
  result: RateLimitResult;
}

/**
 * The RateLimit-* headers for a set of checked rules: the refused rule if any, else the one with the
 * fewest requests left. Reset and Retry-After are seconds from now.
 */
export function rateLimitHeaders(outcomes: RuleOutcome[], now: number): Record<string, string> {
  const policy = outcomes.map(({ rule }) => `${rule.limit};w=${rule.windowSeconds}`).join(', ');
  const binding = pickBinding(outcomes);
  if (!binding || binding.result.degraded) {
    // The store did not answer: the counts are unknown, so only the configured policy is reported.
    const rule = binding?.rule ?? outcomes[0]?.rule;
    return rule ? { 'RateLimit-Limit': String(rule.limit), 'RateLimit-Policy': policy } : {};
  }
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(binding.result.limit),
    'RateLimit-Remaining': String(binding.result.remaining),
    'RateLimit-Reset': String(secondsUntil(binding.result.reset, now)),
    'RateLimit-Policy': policy,
  };
  if (!binding.result.success) headers['Retry-After'] = headers['RateLimit-Reset']!;
  return headers;
}

export function refusedOutcome(outcomes: RuleOutcome[]): RuleOutcome | undefined {
  return outcomes.filter((o) => !o.result.success).sort((a, b) => b.result.reset - a.result.reset)[0];
}

function pickBinding(outcomes: RuleOutcome[]): RuleOutcome | undefined {
  return (
    refusedOutcome(outcomes) ??
    [...outcomes].filter((o) => !o.result.degraded).sort((a, b) => a.result.remaining - b.result.remaining)[0] ??
    outcomes[0]
  );
}

export function secondsUntil(resetMs: number, now: number): number {
  return Math.max(1, Math.ceil((resetMs - now) / 1000));
}
