import { Ratelimit } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis/cloudflare';
import { MemoryRateLimiter } from './memory';
import type { GatewayCheck, GatewayCheckResult, GatewayStore, RateLimiter, RateLimitResult, RateLimitRule, RuleCheck } from './types';

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

/**
 * The front door's whole check in one script (one round trip): @upstash/ratelimit's sliding window
 * arithmetic and counter keys (`<prefix>:<identifier>:<window>`, so counters carry over from limit()),
 * for every rule at once, then whether any marker is set.
 * KEYS: per rule its current and previous window counters, then the markers.
 * ARGV: now (ms), the number of rules, then per rule: limit, window (ms), mode (0 look, 1 count).
 * Looked-at rules are evaluated first; when one refuses, nothing is counted.
 * Answer: per rule [allowed (1/0), used after this request], then the number of markers set.
 */
const GATEWAY_SCRIPT = `
local now = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local used = {}
local allowed = {}
local refused = false
for pass = 0, 1 do
  for i = 1, n do
    local base = 2 + (i - 1) * 3
    local limit = tonumber(ARGV[base + 1])
    local window = tonumber(ARGV[base + 2])
    local mode = tonumber(ARGV[base + 3])
    if (pass == 0 and mode == 0) or (pass == 1 and mode == 1) then
      local current = tonumber(redis.call('GET', KEYS[2 * i - 1]) or '0')
      local previous = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
      local total = math.floor((1 - (now % window) / window) * previous) + current
      if total >= limit then
        allowed[i] = 0
        if mode == 0 then refused = true end
      elseif mode == 1 and not refused then
        local value = redis.call('INCR', KEYS[2 * i - 1])
        if value == 1 then redis.call('PEXPIRE', KEYS[2 * i - 1], window * 2 + 1000) end
        allowed[i] = 1
        total = total + 1
      else
        allowed[i] = 1
      end
      used[i] = total
    end
  end
end
local out = {}
for i = 1, n do
  out[#out + 1] = allowed[i]
  out[#out + 1] = used[i]
end
local marked = 0
if #KEYS > 2 * n then
  marked = redis.call('EXISTS', unpack(KEYS, 2 * n + 1, #KEYS))
end
out[#out + 1] = marked
return out
`;

/** @upstash/ratelimit over Upstash Redis (REST), sliding windows; one Ratelimit per distinct rule. */
export class UpstashRateLimiter implements RateLimiter, GatewayStore {
  private readonly redis: Redis;
  private gatewayScript: ReturnType<Redis['createScript']> | undefined;
  private readonly limiters = new Map<string, Ratelimit>();
  private readonly fallback: RateLimiter;

  constructor(private readonly options: UpstashRateLimiterOptions) {
    // No auto-pipelining: every command of ours is already one request (the gateway's script, mark()'s
    // explicit pipeline), and the auto-pipeline wraps each in a Proxy, a deferred pipeline and a
    // /pipeline call, CPU on every request for nothing to merge (measured with `npm run bench -- --profile`).
    this.redis = new Redis({ url: options.url, token: options.token, enableTelemetry: false, enableAutoPipelining: false });
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

  /**
   * The front door's check in one round trip (GATEWAY_SCRIPT). Identifiers this isolate already saw
   * refused stay refused until their window ends without being sent (as the ephemeral cache does for
   * limit()). When the store fails, each rule falls back as limit() and peek() do, and `marked` is null.
   */
  async check(request: GatewayCheck): Promise<GatewayCheckResult> {
    const now = Date.now();
    const entries = [
      ...request.peek.map((entry) => ({ ...entry, mode: 0 as const })),
      ...request.limit.map((entry) => ({ ...entry, mode: 1 as const })),
    ];
    const keys: string[] = [];
    const args: string[] = [String(now), String(entries.length)];
    for (const { rule, identifier, mode } of entries) {
      const windowMs = rule.windowSeconds * 1000;
      const window = Math.floor(now / windowMs);
      const base = `${this.prefixFor(rule)}:${identifier}`;
      keys.push(`${base}:${window}`, `${base}:${window - 1}`);
      // A rule this isolate saw refused is only looked at (it answers refused below anyway).
      const blocked = (ephemeralCache.get(base) ?? 0) > now;
      args.push(String(rule.limit), String(windowMs), String(blocked ? 0 : mode));
    }
    keys.push(...request.markers.map((name) => this.markerKey(name)));
    let answer: number[];
    try {
      this.gatewayScript ??= this.redis.createScript(GATEWAY_SCRIPT);
      answer = (await this.withTimeout(this.gatewayScript.exec(keys, args))) as number[];
    } catch (error) {
      const fallback = (list: RuleCheck[], call: 'limit' | 'peek') =>
        Promise.all(list.map(({ rule, identifier }) => this.storeFailed(rule, identifier, error, call)));
      const peek = await fallback(request.peek, 'peek');
      const limit = await fallback(request.limit, peek.some((r) => !r.success) ? 'peek' : 'limit');
      return { peek, limit, marked: null };
    }
    const results = entries.map(({ rule, identifier }, i): RateLimitResult => {
      const windowMs = rule.windowSeconds * 1000;
      const reset = (Math.floor(now / windowMs) + 1) * windowMs;
      const base = `${this.prefixFor(rule)}:${identifier}`;
      const blockedUntil = ephemeralCache.get(base) ?? 0;
      if (blockedUntil > now) return { success: false, limit: rule.limit, remaining: 0, reset: blockedUntil };
      const allowed = Number(answer[2 * i]) === 1;
      const used = Number(answer[2 * i + 1]);
      if (!allowed && entries[i]!.mode === 1) ephemeralCache.set(base, reset);
      return { success: allowed, limit: rule.limit, remaining: allowed ? Math.max(0, rule.limit - used) : 0, reset };
    });
    return {
      peek: results.slice(0, request.peek.length),
      limit: results.slice(request.peek.length),
      marked: Number(answer[2 * entries.length]) > 0,
    };
  }

  async mark(markers: string[], ttlMs: number): Promise<void> {
    if (markers.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const name of markers) pipeline.set(this.markerKey(name), '1', { px: ttlMs });
    await this.withTimeout(pipeline.exec());
  }

  private markerKey(name: string): string {
    return `${this.options.prefix ?? 'brand-admin:rl'}:marker:${name}`;
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
