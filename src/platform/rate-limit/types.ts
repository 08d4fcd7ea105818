/** A limit: at most `limit` requests per sliding window of `windowSeconds`. */
export interface RateLimitRule {
  /** Namespaces the counters, e.g. "key-minute". */
  name: string;
  limit: number;
  windowSeconds: number;
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
  limit(rule: RateLimitRule, identifier: string): Promise<RateLimitResult>;
}
