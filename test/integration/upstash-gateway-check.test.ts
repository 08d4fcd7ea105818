// The front door's one-round-trip check on the production store (UpstashRateLimiter.check, one Lua
// script through the Upstash REST stand-in over a real Redis): the key's two limits counted, the
// address only looked at, the key-cache markers read, all in ONE command; and the same arithmetic
// as @upstash/ratelimit's limit(), whose counters it shares. Needs Redis (TEST_REDIS_URL, default
// redis://127.0.0.1:6379); without it the suite is skipped with a warning, never passed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateLimitRule } from '../../src/platform/rate-limit/types';
import { UpstashRateLimiter } from '../../src/platform/rate-limit/upstash';
import { probeRedis, startUpstashRestServer, TEST_REDIS_URL, type UpstashRestServer } from '../tooling/upstash-rest-server';

const REDIS_URL = TEST_REDIS_URL;
const PREFIX = `itest:gw:${process.pid}:${randomUUID().slice(0, 8)}`;

const redisUp = (await probeRedis(REDIS_URL)) === null;
if (!redisUp) console.warn(`[upstash-gateway-check] Redis at ${REDIS_URL} did not answer: this suite is SKIPPED, not passed.`);

// Windows long enough that none ends during the test.
const minute: RateLimitRule = { name: 'gw-minute', limit: 3, windowSeconds: 3600, onStoreFailure: 'open' };
const burst: RateLimitRule = { name: 'gw-burst', limit: 100, windowSeconds: 3600, onStoreFailure: 'open' };
const address: RateLimitRule = { name: 'gw-ip', limit: 1, windowSeconds: 3600, onStoreFailure: 'local' };

describe.skipIf(!redisUp)('UpstashRateLimiter.check', () => {
  let store: UpstashRestServer;
  let limiter: UpstashRateLimiter;
  beforeAll(async () => {
    store = await startUpstashRestServer({ redisUrl: REDIS_URL });
    limiter = new UpstashRateLimiter({ url: store.url, token: store.token, prefix: PREFIX, timeoutMs: 5000 });
  });
  afterAll(async () => {
    await store?.close();
  });

  it('counts both key limits, looks at the address and reads the markers in one command', async () => {
    const key = `key:${randomUUID()}`;
    const ip = `ip:${randomUUID()}`;
    const request = {
      peek: [{ rule: address, identifier: ip }],
      limit: [
        { rule: minute, identifier: key },
        { rule: burst, identifier: key },
      ],
      markers: [`key:${key}`, `clinic:${key}`],
    };
    await limiter.check({ peek: [], limit: [], markers: [] }); // loads the script (EVALSHA, then EVAL once)
    store.commandLog.length = 0;
    const answer = await limiter.check(request);
    expect(store.commandLog).toEqual(['evalsha']);
    expect(answer).toMatchObject({ marked: false, peek: [{ success: true, remaining: 1 }] });
    expect(answer.limit.map((r) => [r.success, r.remaining])).toEqual([
      [true, 2],
      [true, 99],
    ]);

    // limit() shares the counters: two more calls reach the minute limit; then check refuses it only.
    expect((await limiter.limit(minute, key)).remaining).toBe(1);
    expect((await limiter.limit(minute, key)).remaining).toBe(0);
    const refused = await limiter.check(request);
    expect(refused.limit.map((r) => r.success)).toEqual([false, true]);
    expect(refused.limit[1]!.remaining).toBe(98);

    // A marker set anywhere is seen by the next check.
    await limiter.mark([`clinic:${key}`], 60_000);
    expect((await limiter.check(request)).marked).toBe(true);
  });

  it('an address over its limit is refused and nothing of the key is counted', async () => {
    const key = `key:${randomUUID()}`;
    const ip = `ip:${randomUUID()}`;
    await limiter.limit(address, ip); // the address's one failed attempt
    const request = { peek: [{ rule: address, identifier: ip }], limit: [{ rule: minute, identifier: key }], markers: [] };
    const answer = await limiter.check(request);
    expect(answer.peek[0]!.success).toBe(false);
    expect((await limiter.peek(minute, key)).remaining).toBe(minute.limit);
  });

  it('a store that does not answer: the rules fall back and the markers are unknown (null)', async () => {
    const dead = new UpstashRateLimiter({ url: 'http://127.0.0.1:9', token: 'x', prefix: PREFIX, timeoutMs: 200 });
    const answer = await dead.check({ peek: [], limit: [{ rule: minute, identifier: 'k' }], markers: ['key:k'] });
    expect(answer.marked).toBeNull();
    expect(answer.limit[0]).toMatchObject({ success: true, degraded: true });
    await expect(dead.mark(['key:k'], 1000)).rejects.toThrow();
  });
});
