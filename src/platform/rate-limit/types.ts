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
