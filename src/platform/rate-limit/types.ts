/** A limit: at most `limit` requests per sliding window of `windowSeconds`. */
export interface RateLimitRule {
  /** Namespaces the counters, e.g. "key-minute". */
  name: string;
  limit: number;
  windowSeconds: number;
  /**
   * What happens when the shared store (Upstash) fails or times out. "open": let the request through,
   * marked degraded (key limits: an outage must not stop every brand). "local": count in this isolate
   * instead (sign-in and unauthenticated limits, which guard against guessing and must not fail open).
   */
  onStoreFailure: 'open' | 'local';
}

export interface RateLimitResult {
  success: boolean;
  limit: number;
  remaining: number;
  /** Unix milliseconds at which the current window ends. */
  reset: number;
  /** The store did not answer in time and the request was let through; counts are unknown. */
  degraded?: boolean;
  /** Work the limiter left running (Upstash analytics, multi-region sync); hand it to waitUntil. */
  pending?: Promise<unknown>;
}

/** Counts requests. Production: Upstash Redis; development and tests: in-process memory. */
export interface RateLimiter {
  /** Counts one request and says whether it may proceed. */
  limit(rule: RateLimitRule, identifier: string): Promise<RateLimitResult>;
  /** Whether the next request would be refused, without counting anything (success false = refused). */
  peek(rule: RateLimitRule, identifier: string): Promise<RateLimitResult>;
}

/** One rule and who it counts. */
export interface RuleCheck {
  rule: RateLimitRule;
  identifier: string;
}

/**
 * Everything the front door asks the store on one request, answered in ONE round trip (one Lua
 * script on Upstash): rules only looked at, rules counted, and whether any of some markers is set
 * (the key cache's revocation markers, src/platform/auth/key-cache.ts).
 */
export interface GatewayCheck {
  /** Looked at, not counted. When one of them refuses, nothing of `limit` is counted either. */
  peek: RuleCheck[];
  /** Counted, each on its own (as separate limit() calls would). */
  limit: RuleCheck[];
  /** Names of markers; the answer says whether one of them is set. */
  markers: string[];
}

export interface GatewayCheckResult {
  peek: RateLimitResult[];
  limit: RateLimitResult[];
  /** One of the markers is set; null when the store could not say (it failed or timed out). */
  marked: boolean | null;
}

/** A store that keeps markers and answers a whole GatewayCheck in one round trip. */
export interface GatewayStore {
  check(request: GatewayCheck): Promise<GatewayCheckResult>;
  /**
   * Sets markers for `ttlMs` (Upstash: one SET ... PX per marker, in one pipeline). Rejects when the
   * store could not record them, so the caller can refuse to go on without them.
   */
  mark(markers: string[], ttlMs: number): Promise<void>;
}

/**
 * The front door's check with any limiter: in one round trip when it is a GatewayStore, else rule by
 * rule and without markers (marked null, so a cached key is never trusted on such a limiter).
 */
export async function gatewayCheck(limiter: RateLimiter, request: GatewayCheck): Promise<GatewayCheckResult> {
  if (isGatewayStore(limiter)) return limiter.check(request);
  const peek = await Promise.all(request.peek.map(({ rule, identifier }) => limiter.peek(rule, identifier)));
  if (peek.some((result) => !result.success)) {
    return { peek, limit: await Promise.all(request.limit.map(({ rule, identifier }) => limiter.peek(rule, identifier))), marked: null };
  }
  const limit = await Promise.all(request.limit.map(({ rule, identifier }) => limiter.limit(rule, identifier)));
  return { peek, limit, marked: null };
}

export function isGatewayStore(limiter: RateLimiter): limiter is RateLimiter & GatewayStore {
  const candidate = limiter as Partial<GatewayStore>;
  return typeof candidate.check === 'function' && typeof candidate.mark === 'function';
}
