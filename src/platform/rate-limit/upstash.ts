import { Ratelimit } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis/cloudflare';
import type { RateLimiter, RateLimitResult, RateLimitRule } from './types';

/**
 * Kept at module level on purpose: the ephemeral cache remembers identifiers that are already blocked,
 * so a flood from one key is refused inside the isolate without a Redis round trip. It holds no I/O.
 */
const ephemeralCache = new Map<string, number>();

export interface UpstashRateLimiterOptions {
  url: string;
  token: string;
  /** Milliseconds to wait for Redis before letting the request through (fail open). */
  timeoutMs?: number;
  prefix?: string;
}

const degraded = (rule: RateLimitRule): RateLimitResult => ({ success: true, limit: rule.limit, remaining: rule.limit, reset: 0, degraded: true });

/** @upstash/ratelimit over Upstash Redis (REST), sliding windows; one Ratelimit per distinct rule. */
export class UpstashRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly limiters = new Map<string, Ratelimit>();

  constructor(private readonly options: UpstashRateLimiterOptions) {
    this.redis = new Redis({ url: options.url, token: options.token, enableTelemetry: false });
  }

  async limit(rule: RateLimitRule, identifier: string): Promise<RateLimitResult> {
    let result: Awaited<ReturnType<Ratelimit['limit']>>;
    try {
      result = await this.limiterFor(rule).limit(identifier);
    } catch (error) {
      // An Upstash error (bad token, outage) must not turn every API call into a 500: fail open, as
      // on a timeout. The error text holds the Redis key (a key id or IP), so only its kind is logged.
      console.error(JSON.stringify({ level: 'error', msg: 'rate limiter unavailable', rule: rule.name, error: error instanceof Error ? error.name : 'unknown' }));
      return degraded(rule);
    }
    if (result.reason === 'timeout') {
      // Upstash answers a timeout with success and limit 0: report the configured rule instead.
      return { ...degraded(rule), pending: result.pending };
    }
    return {
      success: result.success,
      limit: result.limit,
      remaining: Math.max(0, result.remaining),
      reset: result.reset,
      pending: result.pending,
    };
  }

  private limiterFor(rule: RateLimitRule): Ratelimit {
    // A per-key override changes the limit, so the limit is part of the counter namespace.
    const id = `${rule.name}:${rule.limit}:${rule.windowSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new Ratelimit({
        redis: this.redis,
        limiter: Ratelimit.slidingWindow(rule.limit, `${rule.windowSeconds} s`),
        prefix: `${this.options.prefix ?? 'brand-admin:rl'}:${id}`,
        ephemeralCache,
        timeout: this.options.timeoutMs ?? 1000,
        analytics: false,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}
