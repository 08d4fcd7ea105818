import { Ratelimit } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis/cloudflare';
import { MemoryRateLimiter } from './memory';
import type { RateLimiter, RateLimitResult, RateLimitRule } from './types';

/**
 * Kept at module level on purpose: the ephemeral cache remembers identifiers that are already blocked,
 * so a flood from one key is refused inside the isolate without a Redis round trip. It holds no I/O.
 */
const ephemeralCache = new Map<string, number>();

export interface UpstashRateLimiterOptions {
  url: string;
  token: string;
  /** Milliseconds to wait for Redis before falling back (open or local, per rule). */
  timeoutMs?: number;
  prefix?: string;
  /** Counts the rules marked onStoreFailure "local" while Upstash is failing; in-process by default. */
  fallback?: RateLimiter;
}

const degraded = (rule: RateLimitRule): RateLimitResult => ({
  success: true,
  limit: rule.limit,
  remaining: rule.limit,
  reset: 0,
  degraded: true,
});

class StoreTimeout extends Error {
  override name = 'StoreTimeout';
}

/** @upstash/ratelimit over Upstash Redis (REST), sliding windows; one Ratelimit per distinct rule. */
export class UpstashRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly limiters = new Map<string, Ratelimit>();
  private readonly fallback: RateLimiter;

  constructor(private readonly options: UpstashRateLimiterOptions) {
    this.redis = new Redis({ url: options.url, token: options.token, enableTelemetry: false });
    this.fallback = options.fallback ?? new MemoryRateLimiter();
  }

  async limit(rule: RateLimitRule, identifier: string): Promise<RateLimitResult> {
    let result: Awaited<ReturnType<Ratelimit['limit']>>;
    try {
      result = await this.limiterFor(rule).limit(identifier);
    } catch (error) {
      return this.storeFailed(rule, identifier, error, 'limit');
    }
    if (result.reason === 'timeout') {
      // Upstash answers a timeout with success and limit 0: fall back as for an error.
      const fallback = await this.storeFailed(rule, identifier, new StoreTimeout(), 'limit');
      return { ...fallback, pending: result.pending };
    }
    return {
      success: result.success,
      limit: result.limit,
      remaining: Math.max(0, result.remaining),
      reset: result.reset,
      pending: result.pending,
    };
  }

  async peek(rule: RateLimitRule, identifier: string): Promise<RateLimitResult> {
    const limiter = this.limiterFor(rule);
    // Blocked identifiers are known in the isolate (the same cache limit() fills): no Redis call.
    const blockedUntil = ephemeralCache.get(`${this.prefixFor(rule)}:${identifier}`);
    if (blockedUntil !== undefined && blockedUntil > Date.now()) {
      return { success: false, limit: rule.limit, remaining: 0, reset: blockedUntil };
    }
    try {
      const { remaining, reset, limit } = await this.withTimeout(limiter.getRemaining(identifier));
      return { success: remaining > 0, limit, remaining: Math.max(0, remaining), reset };
    } catch (error) {
      return this.storeFailed(rule, identifier, error, 'peek');
    }
  }

  private storeFailed(
    rule: RateLimitRule,
    identifier: string,
    error: unknown,
    call: 'limit' | 'peek',
  ): Promise<RateLimitResult> | RateLimitResult {
    // The error text holds the Redis key (a key id or IP), so only its kind is logged.
    console.error(
      JSON.stringify({
        level: 'error',
        msg: 'rate limiter store unavailable',
        rule: rule.name,
        fallback: rule.onStoreFailure,
        error: error instanceof Error ? error.name : 'unknown',
      }),
    );
    if (rule.onStoreFailure === 'local') return this.fallback[call](rule, identifier);
    return degraded(rule);
  }

  private withTimeout<T>(work: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreTimeout()), this.options.timeoutMs ?? 1000);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  /** A per-key override changes the limit, so the limit is part of the counter namespace. */
  private prefixFor(rule: RateLimitRule): string {
    return `${this.options.prefix ?? 'brand-admin:rl'}:${rule.name}:${rule.limit}:${rule.windowSeconds}`;
  }

  private limiterFor(rule: RateLimitRule): Ratelimit {
    const prefix = this.prefixFor(rule);
    let limiter = this.limiters.get(prefix);
    if (!limiter) {
      limiter = new Ratelimit({
        redis: this.redis,
        limiter: Ratelimit.slidingWindow(rule.limit, `${rule.windowSeconds} s`),
        prefix,
        ephemeralCache,
        timeout: this.options.timeoutMs ?? 1000,
        analytics: false,
      });
      this.limiters.set(prefix, limiter);
    }
    return limiter;
  }
}
