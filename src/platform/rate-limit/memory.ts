import type { GatewayCheck, GatewayCheckResult, GatewayStore, RateLimiter, RateLimitResult, RateLimitRule } from './types';

/**
 * In-process sliding-window limiter with the same arithmetic as @upstash/ratelimit's slidingWindow
 * (current window count plus the previous window's count weighted by the part of it still in view),
 * and the same blocking as its ephemeral cache (a refused identifier stays refused until the window
 * ends), so development answers like production. State lives in the isolate: one process only.
 */
export class MemoryRateLimiter implements RateLimiter, GatewayStore {
  private readonly counters = new Map<string, { count: number; expiresAt: number }>();
  private readonly blockedUntil = new Map<string, number>();
  /** Markers (key-cache revocations) and when they lapse; the same isolate's memory as the counters. */
  private readonly markers = new Map<string, number>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async limit(rule: RateLimitRule, identifier: string): Promise<RateLimitResult> {
    return this.checkRule(rule, identifier, true);
  }

  async peek(rule: RateLimitRule, identifier: string): Promise<RateLimitResult> {
    return this.checkRule(rule, identifier, false);
  }

  /** The whole front-door check at once, as the Upstash script does it (see GatewayCheck). */
  async check(request: GatewayCheck): Promise<GatewayCheckResult> {
    const now = this.now();
    const peek = request.peek.map(({ rule, identifier }) => this.checkRule(rule, identifier, false));
    const refused = peek.some((result) => !result.success);
    const limit = request.limit.map(({ rule, identifier }) => this.checkRule(rule, identifier, !refused));
    const marked = request.markers.some((name) => (this.markers.get(name) ?? 0) > now);
    return { peek, limit, marked };
  }

  async mark(markers: string[], ttlMs: number): Promise<void> {
    const until = this.now() + ttlMs;
    for (const name of markers) this.markers.set(name, Math.max(until, this.markers.get(name) ?? 0));
  }

  private checkRule(rule: RateLimitRule, identifier: string, count: boolean): RateLimitResult {
    const now = this.now();
    const windowMs = rule.windowSeconds * 1000;
    const currentWindow = Math.floor(now / windowMs);
    const reset = (currentWindow + 1) * windowMs;
    const base = `${rule.name}:${rule.limit}:${rule.windowSeconds}:${identifier}`;
    this.sweep(now);
    const blocked = this.blockedUntil.get(base);
    if (blocked !== undefined && blocked > now) return { success: false, limit: rule.limit, remaining: 0, reset: blocked };

    const current = this.read(`${base}:${currentWindow}`, now);
    const previous = this.read(`${base}:${currentWindow - 1}`, now);
    const weightedPrevious = Math.floor((1 - (now % windowMs) / windowMs) * previous);
    if (weightedPrevious + current >= rule.limit) {
      if (count) this.blockedUntil.set(base, reset);
      return { success: false, limit: rule.limit, remaining: 0, reset };
    }
    if (!count) return { success: true, limit: rule.limit, remaining: rule.limit - (current + weightedPrevious), reset };
    const next = current + 1;
    this.counters.set(`${base}:${currentWindow}`, { count: next, expiresAt: now + windowMs * 2 + 1000 });
    return { success: true, limit: rule.limit, remaining: Math.max(0, rule.limit - (next + weightedPrevious)), reset };
  }

  private read(key: string, now: number): number {
    const entry = this.counters.get(key);
    return entry && entry.expiresAt > now ? entry.count : 0;
  }

  /** Drops expired windows now and then so memory stays bounded by the active identifiers. */
  private sweep(now: number) {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, entry] of this.counters) if (entry.expiresAt <= now) this.counters.delete(key);
    for (const [key, until] of this.blockedUntil) if (until <= now) this.blockedUntil.delete(key);
    for (const [name, until] of this.markers) if (until <= now) this.markers.delete(name);
  }
}
