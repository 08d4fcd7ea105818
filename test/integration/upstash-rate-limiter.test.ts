// The production rate limiter (UpstashRateLimiter: @upstash/ratelimit over @upstash/redis) against a
// real Redis, reached through test/tooling/upstash-rest-server.ts, a local stand-in for Upstash's REST
// API. Needs Redis: TEST_REDIS_URL, default redis://127.0.0.1:6379. When it does not answer, the Redis
// suite is skipped with a warning (it never passes silently); the fail-open test needs no Redis and
// always runs. Keys are written under a per-run prefix and only those are deleted (never FLUSHALL).
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis as UpstashRedis } from '@upstash/redis/cloudflare';
import { Redis as IORedis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryRateLimiter } from '../../src/platform/rate-limit/memory';
import { IP_MINUTE, KEY_BURST, keyMinuteRule, rateLimitHeaders, SIGN_IN_ATTEMPTS } from '../../src/platform/rate-limit/policy';
import type { RateLimiter, RateLimitResult, RateLimitRule } from '../../src/platform/rate-limit/types';
import { UpstashRateLimiter } from '../../src/platform/rate-limit/upstash';
import {
  probeRedis,
  startHangingServer,
  startUpstashRestServer,
  TEST_REDIS_URL,
  type UpstashRestServer,
} from '../tooling/upstash-rest-server';

const REDIS_URL = TEST_REDIS_URL;
const PREFIX = `itest:rl:${process.pid}:${randomUUID().slice(0, 8)}`;

/** The URL without its password, for messages. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

const probeError = await probeRedis(REDIS_URL);
const redisUp = probeError === null;
if (!redisUp) {
  console.warn(
    `[upstash-rate-limiter] Redis was not reachable at ${shown(REDIS_URL)} (${probeError}); ` +
      'the Redis suite is SKIPPED, not passed. Start Redis or set TEST_REDIS_URL to run it.',
  );
}

const windowNumber = (windowSeconds: number, at = Date.now()) => Math.floor(at / (windowSeconds * 1000));

/** Waits for the next window when fewer than `needMs` are left in this one, so a burst stays in one window. */
async function roomInWindow(windowSeconds: number, needMs: number) {
  const windowMs = windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await sleep(left + 25);
}

async function calls(limiter: RateLimiter, rule: RateLimitRule, identifier: string, n: number): Promise<RateLimitResult[]> {
  const results: RateLimitResult[] = [];
  for (let i = 0; i < n; i++) results.push(await limiter.limit(rule, identifier));
  return results;
}

const counts = (results: RateLimitResult[]) => results.map(({ success, remaining }) => ({ success, remaining }));
const id = (label: string) => `${label}-${randomUUID()}`;

describe.skipIf(!redisUp)(`UpstashRateLimiter on a real Redis (${shown(REDIS_URL)}) via the Upstash REST stand-in`, () => {
  let server: UpstashRestServer;
  let redis: IORedis;
  let limiter: UpstashRateLimiter;

  async function deleteRunKeys() {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  }

  /** The counter @upstash/ratelimit's sliding window keeps for one rule, identifier and window. */
  const counterKey = (rule: RateLimitRule, identifier: string, window: number) =>
    `${PREFIX}:${rule.name}:${rule.limit}:${rule.windowSeconds}:${identifier}:${window}`;

  beforeAll(async () => {
    redis = new IORedis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await deleteRunKeys();
    server = await startUpstashRestServer({ redisUrl: REDIS_URL });
    // Generous timeout: these tests are about counting, a slow machine must not turn them degraded.
    limiter = new UpstashRateLimiter({ url: server.url, token: server.token, prefix: PREFIX, timeoutMs: 5000 });
  });

  afterAll(async () => {
    if (redis) {
      await deleteRunKeys();
      const left = await redis.scan('0', 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
      expect(left[1]).toEqual([]);
      await redis.quit();
    }
    await server?.close();
  });

  describe('the REST stand-in (what the limiter tests rely on)', () => {
    it('answers @upstash/redis like Upstash: base64 strings, numbers, null, HGETALL, pipelines, MULTI', async () => {
      const client = new UpstashRedis({ url: server.url, token: server.token, enableTelemetry: false });
      const k = `${PREFIX}:sanity`;
      expect(await client.set(`${k}:s`, 'héllo ✓ {not json')).toBe('OK');
      expect(await client.get(`${k}:s`)).toBe('héllo ✓ {not json');
      expect(await client.get(`${k}:missing`)).toBeNull();
      expect(await client.incrby(`${k}:n`, 41)).toBe(41);
      await client.hset(`${k}:h`, { a: 'x', b: 'y' });
      expect(await client.hgetall(`${k}:h`)).toEqual({ a: 'x', b: 'y' });
      expect(await client.eval('return {1, "two", false, {3, "four"}}', [], [])).toEqual([1, 'two', null, [3, 'four']]);
      const pipeline = client.pipeline();
      pipeline.incr(`${k}:n`).get(`${k}:s`).evalsha('0'.repeat(40), [], []);
      const piped = await pipeline.exec({ keepErrors: true });
      expect(piped.slice(0, 2)).toEqual([
        { result: 42, error: undefined },
        { result: 'héllo ✓ {not json', error: undefined },
      ]);
      expect(piped[2]!.error).toMatch(/^NOSCRIPT/);
      expect(await client.multi().incr(`${k}:n`).get(`${k}:missing`).exec()).toEqual([43, null]);
      await expect(client.evalsha('0'.repeat(40), [], [])).rejects.toThrow(/NOSCRIPT/);
    });

    it('loads shebang scripts Redis 7.0 refuses and answers to the SHA of the original text', async () => {
      const client = new UpstashRedis({ url: server.url, token: server.token, enableTelemetry: false });
      const script = `#!lua flags=allow-key-locking\n  return {tonumber(ARGV[1]) * 2, KEYS[1]}\n`;
      const sha = createHash('sha1').update(script).digest('hex');
      expect(await client.scriptLoad(script)).toBe(sha);
      expect(await client.evalsha(sha, [`${PREFIX}:k`], [21])).toEqual([42, `${PREFIX}:k`]);
      expect(await client.scriptExists(sha)).toEqual([1]);
    });

    it('checks the token and honours Upstash-Encoding', async () => {
      const key = `${PREFIX}:enc`;
      await redis.set(key, 'plain text');
      const post = (headers: Record<string, string>) =>
        fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(['GET', key]),
        });
      expect((await post({ authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await post({})).status).toBe(401);
      const auth = { authorization: `Bearer ${server.token}` };
      expect(await (await post(auth)).json()).toEqual({ result: 'plain text' });
      expect(await (await post({ ...auth, 'upstash-encoding': 'base64' })).json()).toEqual({
        result: Buffer.from('plain text').toString('base64'),
      });
    });
  });

  it('lets requests through up to the limit, counting remaining down, and keeps the count in Redis under the prefix', async () => {
    const rule: RateLimitRule = { name: 'count-down', limit: 3, windowSeconds: 60, onStoreFailure: 'open' as const };
    const who = id('client');
    await roomInWindow(rule.windowSeconds, 3000);
    const window = windowNumber(rule.windowSeconds);
    const logged = server.commandLog.length;
    const results = await calls(limiter, rule, who, 3);
    expect(counts(results)).toEqual([
      { success: true, remaining: 2 },
      { success: true, remaining: 1 },
      { success: true, remaining: 0 },
    ]);
    for (const result of results) {
      expect(result.limit).toBe(3);
      expect(result.degraded).toBeUndefined();
      expect(result.reset).toBe((window + 1) * 60_000);
      await expect(result.pending).resolves.toBeUndefined();
    }
    const key = counterKey(rule, who, window);
    expect(await redis.get(key)).toBe('3');
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000 * 2 + 1000);
    // The limiter's first call met NOSCRIPT and fell back to EVAL; later calls hit the script by SHA.
    expect(server.commandLog.slice(logged)).toEqual(['evalsha', 'eval', 'evalsha', 'evalsha']);
  });

  it('refuses after the limit with remaining 0 and a reset in the future, without counting refusals', async () => {
    const rule: RateLimitRule = { name: 'refuse', limit: 2, windowSeconds: 60, onStoreFailure: 'open' as const };
    const who = id('client');
    await roomInWindow(rule.windowSeconds, 3000);
    const window = windowNumber(rule.windowSeconds);
    const [first, second, third, fourth] = await calls(limiter, rule, who, 4);
    expect([first!.success, second!.success]).toEqual([true, true]);
    for (const refused of [third!, fourth!]) {
      const now = Date.now();
      expect(refused).toMatchObject({ success: false, limit: 2, remaining: 0 });
      expect(refused.degraded).toBeUndefined();
      expect(refused.reset).toBeGreaterThan(now);
      expect(refused.reset).toBeLessThanOrEqual(now + 60_000);
      await expect(refused.pending).resolves.toBeUndefined();
    }
    expect(await redis.get(counterKey(rule, who, window))).toBe('2');
    // The 429 the app would send: Retry-After and RateLimit-Reset from the refused result.
    const headers = rateLimitHeaders([{ rule, result: third! }], Date.now());
    expect(headers['RateLimit-Remaining']).toBe('0');
    expect(Number(headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(Number(headers['Retry-After'])).toBeLessThanOrEqual(60);
  });

  it('peek says whether the next request would be refused without counting it; a blocked identifier costs no Redis call', async () => {
    const rule: RateLimitRule = { name: 'peek', limit: 2, windowSeconds: 60, onStoreFailure: 'local' };
    const who = id('address');
    await roomInWindow(rule.windowSeconds, 3000);
    const window = windowNumber(rule.windowSeconds);
    expect(await limiter.peek(rule, who)).toMatchObject({ success: true, remaining: 2 });
    expect(await limiter.peek(rule, who)).toMatchObject({ success: true, remaining: 2 });
    expect(await redis.get(counterKey(rule, who, window))).toBeNull();
    await calls(limiter, rule, who, 2);
    expect(await limiter.peek(rule, who)).toMatchObject({ success: false, remaining: 0 });
    await limiter.limit(rule, who); // refused: now in the isolate's cache of blocked identifiers
    const logged = server.commandLog.length;
    const blocked = await limiter.peek(rule, who);
    expect(blocked).toMatchObject({ success: false, remaining: 0 });
    expect(blocked.reset).toBe((window + 1) * 60_000);
    expect(server.commandLog.length).toBe(logged);
  });

  it('keeps two rules for the same identifier apart', async () => {
    const burst: RateLimitRule = { name: 'rule-a', limit: 2, windowSeconds: 60, onStoreFailure: 'open' as const };
    const minute: RateLimitRule = { name: 'rule-b', limit: 2, windowSeconds: 60, onStoreFailure: 'open' as const };
    const who = id('shared');
    await roomInWindow(60, 3000);
    expect(counts(await calls(limiter, burst, who, 3)).map((r) => r.success)).toEqual([true, true, false]);
    expect(counts(await calls(limiter, minute, who, 3))).toEqual([
      { success: true, remaining: 1 },
      { success: true, remaining: 0 },
      { success: false, remaining: 0 },
    ]);
    const window = windowNumber(60);
    expect(await redis.get(counterKey(burst, who, window))).toBe('2');
    expect(await redis.get(counterKey(minute, who, window))).toBe('2');
  });

  it('counts a per-key override (same rule name, another limit) separately from the default', async () => {
    const override = keyMinuteRule({ isSandbox: false, rateLimitPerMin: 2 });
    const sandboxDefault = keyMinuteRule({ isSandbox: true, rateLimitPerMin: null });
    expect(override.name).toBe(sandboxDefault.name);
    const key = id('api-key');
    await roomInWindow(60, 3000);
    expect(counts(await calls(limiter, override, key, 3))).toEqual([
      { success: true, remaining: 1 },
      { success: true, remaining: 0 },
      { success: false, remaining: 0 },
    ]);
    const [afterChange] = await calls(limiter, sandboxDefault, key, 1);
    expect(afterChange).toMatchObject({ success: true, limit: 60, remaining: 59 });
    const [raised] = await calls(limiter, { ...override, limit: 5 }, key, 1);
    expect(raised).toMatchObject({ success: true, limit: 5, remaining: 4 });
  });

  it('agrees with MemoryRateLimiter call for call within one window', async () => {
    const rule: RateLimitRule = { name: 'parity', limit: 5, windowSeconds: 60, onStoreFailure: 'open' as const };
    const memory = new MemoryRateLimiter();
    const who = id('parity');
    await roomInWindow(rule.windowSeconds, 5000);
    const upstashResults: RateLimitResult[] = [];
    const memoryResults: RateLimitResult[] = [];
    for (let i = 0; i < 9; i++) {
      upstashResults.push(await limiter.limit(rule, who));
      memoryResults.push(await memory.limit(rule, who));
    }
    const shape = (r: RateLimitResult) => ({ success: r.success, remaining: r.remaining, limit: r.limit, reset: r.reset });
    expect(upstashResults.map(shape)).toEqual(memoryResults.map(shape));
    expect(counts(upstashResults)).toEqual([4, 3, 2, 1, 0, 0, 0, 0, 0].map((remaining, i) => ({ success: i < 5, remaining })));
  });

  describe('with Date pinned (vi.useFakeTimers toFake Date: real I/O and timers, chosen clock)', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('agrees with MemoryRateLimiter across window boundaries, where the previous window is weighted', async () => {
      const rule: RateLimitRule = { name: 'parity-sliding', limit: 10, windowSeconds: 10, onStoreFailure: 'open' as const };
      const memory = new MemoryRateLimiter(() => Date.now());
      const who = id('parity');
      const start = (windowNumber(10) + 1) * 10_000; // the next window's start: keys this run never used
      vi.useFakeTimers({ toFake: ['Date'] });
      const run = async (at: number, n: number) => {
        vi.setSystemTime(at);
        const pairs: { upstash: RateLimitResult; memory: RateLimitResult }[] = [];
        for (let i = 0; i < n; i++) pairs.push({ upstash: await limiter.limit(rule, who), memory: await memory.limit(rule, who) });
        const shape = (r: RateLimitResult) => ({ success: r.success, remaining: r.remaining, reset: r.reset });
        expect(pairs.map((p) => shape(p.upstash))).toEqual(pairs.map((p) => shape(p.memory)));
        return counts(pairs.map((p) => p.upstash));
      };
      // Window k, 20% in: 7 requests.
      expect(await run(start + 2_000, 7)).toEqual([9, 8, 7, 6, 5, 4, 3].map((remaining) => ({ success: true, remaining })));
      // Window k+1, 40% in: the previous 7 weigh floor(0.6 * 7) = 4, so 6 more pass.
      expect(await run(start + 14_000, 7)).toEqual([5, 4, 3, 2, 1, 0, 0].map((remaining, i) => ({ success: i < 6, remaining })));
      // Window k+2, 10% in: the previous 6 weigh floor(0.9 * 6) = 5, so 5 pass.
      expect(await run(start + 21_000, 6)).toEqual([4, 3, 2, 1, 0, 0].map((remaining, i) => ({ success: i < 5, remaining })));
    });

    it('agrees with MemoryRateLimiter after a refusal: a refused identifier stays refused until the window ends', async () => {
      // @upstash/ratelimit's ephemeral cache remembers a refused identifier until `reset` and refuses
      // it in-process even when the previous window's weight has decayed; the memory limiter does too.
      const rule: RateLimitRule = { name: 'cache-block', limit: 10, windowSeconds: 10, onStoreFailure: 'open' as const };
      const memory = new MemoryRateLimiter(() => Date.now());
      const who = id('blocked');
      const start = (windowNumber(10) + 1) * 10_000;
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(start + 1_000);
      await calls(limiter, rule, who, 10);
      await calls(memory, rule, who, 10);
      // Next window, 10% in: previous 10 weigh 9; one passes, the next is refused by both.
      vi.setSystemTime(start + 11_000);
      expect((await calls(limiter, rule, who, 2)).map((r) => r.success)).toEqual([true, false]);
      expect((await calls(memory, rule, who, 2)).map((r) => r.success)).toEqual([true, false]);
      // Half way: the sliding-window arithmetic alone would allow more, but both still refuse.
      vi.setSystemTime(start + 15_000);
      expect(await memory.limit(rule, who)).toMatchObject({ success: false, remaining: 0, reset: start + 20_000 });
      expect(await limiter.limit(rule, who)).toMatchObject({ success: false, remaining: 0, reset: start + 20_000 });
      // Once the window has ended both count normally again.
      vi.setSystemTime(start + 25_000);
      expect((await memory.limit(rule, who)).success).toBe(true);
      expect((await limiter.limit(rule, who)).success).toBe(true);
    });
  });

  it('lets requests through again once a 1-second window has passed (real wait)', async () => {
    const rule: RateLimitRule = { name: 'sliding', limit: 2, windowSeconds: 1, onStoreFailure: 'open' as const };
    const who = id('sliding');
    await roomInWindow(1, 400);
    const burst = await calls(limiter, rule, who, 3);
    expect(counts(burst)).toEqual([
      { success: true, remaining: 1 },
      { success: true, remaining: 0 },
      { success: false, remaining: 0 },
    ]);
    expect(burst[2]!.reset).toBeGreaterThan(Date.now());
    expect(burst[2]!.reset).toBeLessThanOrEqual(Date.now() + 1000);
    await sleep(2000);
    // Two windows on, the previous window is empty: the full limit is back.
    const [again] = await calls(limiter, rule, who, 1);
    expect(again).toMatchObject({ success: true, limit: 2, remaining: 1 });
  });
});

describe('UpstashRateLimiter when the store never answers (no Redis needed)', () => {
  it('key limits fail open after timeoutMs: degraded, the configured limit (not 0), pending resolves', async () => {
    const hanging = await startHangingServer();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const limiter = new UpstashRateLimiter({ url: hanging.url, token: 'unused', timeoutMs: 150, prefix: PREFIX });
      const started = performance.now();
      const result = await limiter.limit(KEY_BURST, id('key'));
      const elapsed = performance.now() - started;
      expect(result).toMatchObject({ success: true, degraded: true, limit: KEY_BURST.limit, remaining: KEY_BURST.limit });
      expect(elapsed).toBeGreaterThanOrEqual(140);
      expect(elapsed).toBeLessThan(2000);
      expect(hanging.requests).toBeGreaterThan(0); // it timed out on a request the server held, not a refused connection
      expect(result.pending).toBeInstanceOf(Promise);
      await expect(result.pending).resolves.toBeUndefined();
      // Degraded results report only the configured policy (counts unknown), never "Remaining: 0".
      expect(rateLimitHeaders([{ rule: KEY_BURST, result }], Date.now())).toEqual({
        'RateLimit-Limit': '100',
        'RateLimit-Policy': '100;w=10',
      });
      expect(logged.mock.calls.flat().join(' ')).toContain('"fallback":"open"');
    } finally {
      logged.mockRestore();
      await hanging.close();
    }
  });

  it('sign-in and per-address limits do not fail open: they count in-process instead, and refuse past the limit', async () => {
    const hanging = await startHangingServer();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const limiter = new UpstashRateLimiter({ url: hanging.url, token: 'unused', timeoutMs: 50, prefix: PREFIX });
      const who = id('sign-in');
      const results = await calls(limiter, SIGN_IN_ATTEMPTS, who, SIGN_IN_ATTEMPTS.limit + 1);
      expect(results.every((r) => !r.degraded)).toBe(true);
      expect(results.slice(0, -1).every((r) => r.success)).toBe(true);
      expect(results.at(-1)).toMatchObject({ success: false, remaining: 0 });
      // peek falls back the same way: the blocked identifier stays blocked, without a Redis answer.
      expect(await limiter.peek(SIGN_IN_ATTEMPTS, who)).toMatchObject({ success: false });
      expect(await limiter.peek(IP_MINUTE, id('ip'))).toMatchObject({ success: true, remaining: IP_MINUTE.limit });
      expect(logged.mock.calls.flat().join(' ')).toContain('"fallback":"local"');
    } finally {
      logged.mockRestore();
      await hanging.close();
    }
  });

  it('fails open, degraded, when the store answers with an error (bad token, outage), logging no identifier', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'WRONGPASS invalid token' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const limiter = new UpstashRateLimiter({ url: `http://127.0.0.1:${address.port}`, token: 'wrong', timeoutMs: 1000, prefix: PREFIX });
      const who = id('secret-identifier');
      const rule = keyMinuteRule({ isSandbox: false, rateLimitPerMin: null });
      expect(await limiter.limit(rule, who)).toMatchObject({ success: true, degraded: true, limit: rule.limit });
      // A per-address rule falls back to counting in-process rather than letting everything through.
      expect(await limiter.limit(IP_MINUTE, who)).toMatchObject({ success: true, remaining: IP_MINUTE.limit - 1 });
      expect(logged).toHaveBeenCalled();
      expect(logged.mock.calls.flat().join(' ')).not.toContain(who);
    } finally {
      logged.mockRestore();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
