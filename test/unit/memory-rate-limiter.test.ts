import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/platform/rate-limit/memory';
import { rateLimitHeaders } from '../../src/platform/rate-limit/policy';

describe('MemoryRateLimiter (sliding window, as @upstash/ratelimit computes it)', () => {
  const rule = { name: 'test', limit: 3, windowSeconds: 10, onStoreFailure: 'open' as const };

  it('counts down, refuses at the limit and reports the window end', async () => {
    let now = 1_000_000_000_000;
    const limiter = new MemoryRateLimiter(() => now);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.limit(rule, 'a'));
    expect(results.map((r) => [r.success, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(results[3]!.reset).toBe(Math.floor(now / 10_000) * 10_000 + 10_000);
    // Another identifier has its own count.
    expect((await limiter.limit(rule, 'b')).remaining).toBe(2);
    now += 10_000;
    // Right after the window turns, the previous window still weighs almost fully.
    expect((await limiter.limit(rule, 'a')).success).toBe(false);
    now += 10_000;
    expect((await limiter.limit(rule, 'a')).success).toBe(true);
  });

  it('weights the previous window by the part still in view', async () => {
    let now = 2_000_000_000_000; // a window boundary
    const limiter = new MemoryRateLimiter(() => now);
    for (let i = 0; i < 3; i++) await limiter.limit(rule, 'x');
    now += 10_000 + 5_000; // halfway through the next window: floor(3 * 0.5) = 1 still counts
    const r = await limiter.limit(rule, 'x');
    expect(r).toMatchObject({ success: true, remaining: 1 });
  });
});

describe('rateLimitHeaders', () => {
  const minute = { name: 'm', limit: 300, windowSeconds: 60, onStoreFailure: 'open' as const };
  const burst = { name: 'b', limit: 100, windowSeconds: 10, onStoreFailure: 'open' as const };

  it('reports the rule with the fewest requests left, and Retry-After only when refused', () => {
    const now = 1_000;
    const h = rateLimitHeaders(
      [
        { rule: minute, result: { success: true, limit: 300, remaining: 250, reset: now + 30_000 } },
        { rule: burst, result: { success: true, limit: 100, remaining: 40, reset: now + 4_200 } },
      ],
      now,
    );
    expect(h).toEqual({
      'RateLimit-Limit': '100',
      'RateLimit-Remaining': '40',
      'RateLimit-Reset': '5',
      'RateLimit-Policy': '300;w=60, 100;w=10',
    });
    const refused = rateLimitHeaders(
      [
        { rule: minute, result: { success: false, limit: 300, remaining: 0, reset: now + 30_000 } },
        { rule: burst, result: { success: true, limit: 100, remaining: 40, reset: now + 4_200 } },
      ],
      now,
    );
    expect(refused).toMatchObject({ 'RateLimit-Limit': '300', 'RateLimit-Remaining': '0', 'Retry-After': '30' });
  });

  it('reports only the configured policy when the store timed out (no made-up counts)', () => {
    const h = rateLimitHeaders(
      [
        { rule: minute, result: { success: true, limit: 300, remaining: 300, reset: 0, degraded: true } },
        { rule: burst, result: { success: true, limit: 100, remaining: 100, reset: 0, degraded: true } },
      ],
      1_000,
    );
    expect(h).toEqual({ 'RateLimit-Limit': '300', 'RateLimit-Policy': '300;w=60, 100;w=10' });
  });
});
