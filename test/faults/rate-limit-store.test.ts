// Faults: the rate-limit store (Upstash Redis) timing out, answering late, or down. The production
// limiter (UpstashRateLimiter over @upstash/ratelimit) talks to the Upstash REST stand-in, backed by a
// real Redis, through a proxy that can make it hang, slow or unreachable; each rule must then do what
// docs/api-conventions.md ("Rate limits") says it does when the store fails:
//   - API keys (live, sandbox, with rateLimitPerMin): let through (fail open), logged without the
//     identifier, answering only RateLimit-Limit and RateLimit-Policy (the counts are unknown);
//   - root routes and failed key attempts on /api/v1 (120 per minute per address), sign-in attempts
//     (10 per 15 minutes per address and email, 30 per email): counted in-process instead, so they
//     still refuse past their limit.
// With the store up, the same limits are counted in Redis (the controls below), so a test that lets
// requests through is not passing because nothing limits at all. Needs Redis (TEST_REDIS_URL, default
// redis://127.0.0.1:6379); without it the suite is skipped with a warning, never passed.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis as IORedis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryRateLimiter } from '../../src/platform/rate-limit/memory';
import {
  IP_MINUTE,
  KEY_BURST,
  KEY_MINUTE_LIMIT,
  SANDBOX_MINUTE_LIMIT,
  SIGN_IN_ACCOUNT,
  SIGN_IN_ATTEMPTS,
} from '../../src/platform/rate-limit/policy';
import { UpstashRateLimiter } from '../../src/platform/rate-limit/upstash';
import { buildTestApp, type TestApp, TestClock, type TestResponse, useTestApp } from '../helpers/app';
import { makeKey, makeTenant } from '../helpers/factories';
import { probeRedis, startUpstashRestServer, TEST_REDIS_URL, type UpstashRestServer } from '../tooling/upstash-rest-server';
import { startTcpFaultProxy, type TcpFault, type TcpFaultProxy } from './tcp-fault-proxy';

const REDIS_URL = TEST_REDIS_URL;
const PREFIX = `faults:rl:${process.pid}:${randomUUID().slice(0, 8)}`;
/** The limiter gives the store this long before it falls back (production: 1 s). */
const STORE_TIMEOUT_MS = 150;

const redisDown = await probeRedis(REDIS_URL);
if (redisDown)
  console.warn(`[faults/rate-limit-store] Redis at ${REDIS_URL} did not answer (${redisDown}): this suite is SKIPPED, not passed.`);

const t = useTestApp();
let store: UpstashRestServer;
let proxy: TcpFaultProxy;
let app: TestApp;
/** The same, with a generous timeout: the controls must not fall back because a busy machine answered slowly. */
let control: TestApp;
/** The in-process fallback's clock, stopped one second into a window so no window ends mid-test. */
const clock = new TestClock();

describe.skipIf(redisDown !== null)('the rate-limit store failing', () => {
  beforeAll(async () => {
    store = await startUpstashRestServer({ redisUrl: REDIS_URL });
    proxy = await startTcpFaultProxy(store.url);
    const limiter = new UpstashRateLimiter({
      url: proxy.url,
      token: store.token,
      prefix: PREFIX,
      timeoutMs: STORE_TIMEOUT_MS,
      fallback: new MemoryRateLimiter(clock.now),
    });
    app = buildTestApp(t.db, t.databaseUrl, { rateLimiter: limiter });
    control = buildTestApp(t.db, t.databaseUrl, {
      rateLimiter: new UpstashRateLimiter({ url: proxy.url, token: store.token, prefix: PREFIX, timeoutMs: 10_000 }),
    });
  });
  afterAll(async () => {
    await proxy?.close();
    const redis = new IORedis(REDIS_URL);
    const keys = await redis.keys(`${PREFIX}:*`);
    if (keys.length) await redis.unlink(...keys);
    await redis.quit();
    await store?.close();
  });

  let logged: { mock: { calls: unknown[][] }; mockRestore(): void };
  beforeEach(() => {
    clock.freezeAtWindowStart(900);
    proxy.setFault('pass');
    logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    return () => logged.mockRestore();
  });

  const headers = (res: Response) => ({
    limit: res.headers.get('ratelimit-limit'),
    remaining: res.headers.get('ratelimit-remaining'),
    reset: res.headers.get('ratelimit-reset'),
    policy: res.headers.get('ratelimit-policy'),
  });
  const logLines = () => logged.mock.calls.map((call) => String(call[0]));
  const fromAddress = (ip: string) => ({ 'cf-connecting-ip': ip });
  const address = () => `10.250.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

  /** Waits for the next minute when fewer than 3 s are left in this one: the store counts in real time (controls only). */
  async function roomInMinute() {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 3_000) await sleep(left + 50);
  }

  /** `n` requests at once (each waits out the store's timeout; at once, the suite stays short). */
  const together = (n: number, send: (i: number) => Promise<TestResponse>) => Promise.all(Array.from({ length: n }, (_, i) => send(i)));

  const FAULTS: [string, TcpFault][] = [
    ['hangs (the limiter times out)', 'hang'],
    ['answers after the timeout', { delayMs: STORE_TIMEOUT_MS * 3 }],
    ['is down (connections reset)', 'down'],
  ];

  describe.each(FAULTS)('when the store %s', (_, fault) => {
    it('API keys fail open past their limit, answering only RateLimit-Limit and RateLimit-Policy, logged without the key', async () => {
      const { clinic } = await makeTenant(t.db);
      const limited = await makeKey(t.db, clinic.id, { rateLimitPerMin: 2 });
      proxy.setFault(fault);
      const answers = await together(4, () => app.request('/api/v1/me', { key: limited.raw }));
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(headers(res)).toEqual({
          limit: '2',
          remaining: null,
          reset: null,
          policy: `2;w=60, ${KEY_BURST.limit};w=${KEY_BURST.windowSeconds}`,
        });
      }
      const lines = logLines().filter((line) => line.includes('rate limiter store unavailable'));
      expect(lines.length).toBeGreaterThanOrEqual(4);
      expect(lines.every((line) => line.includes('"fallback":"open"') || line.includes('"fallback":"local"'))).toBe(true);
      expect(lines.some((line) => line.includes('"rule":"key-minute"') && line.includes('"fallback":"open"'))).toBe(true);
      expect(logLines().join('\n')).not.toContain(limited.row.id);

      // A default live key and a sandbox key fail open the same way, each under its own limit.
      const live = await makeTenant(t.db);
      const sandbox = await makeTenant(t.db, { mode: 'sandbox' });
      const [liveRes, sandboxRes] = await Promise.all([
        app.request('/api/v1/me', { key: live.key }),
        app.request('/api/v1/me', { key: sandbox.key }),
      ]);
      expect(liveRes.status).toBe(200);
      expect(headers(liveRes)).toEqual({
        limit: String(KEY_MINUTE_LIMIT),
        remaining: null,
        reset: null,
        policy: `${KEY_MINUTE_LIMIT};w=60, 100;w=10`,
      });
      expect(sandboxRes.status).toBe(200);
      expect(headers(sandboxRes)).toMatchObject({ limit: String(SANDBOX_MINUTE_LIMIT), remaining: null, reset: null });
    });

    it('root routes are counted in-process per address: the 121st request in a minute is refused', async () => {
      proxy.setFault(fault);
      const ip = address();
      const answers = await together(IP_MINUTE.limit + 1, () => app.request('/docs', { headers: fromAddress(ip) }));
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(IP_MINUTE.limit);
      expect(statuses.filter((s) => s === 429)).toHaveLength(1);
      const refused = answers.find((res) => res.status === 429)!;
      expect(await refused.json()).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED' });
      expect(headers(refused)).toMatchObject({ limit: String(IP_MINUTE.limit), remaining: '0', policy: `${IP_MINUTE.limit};w=60` });
      expect(logLines().some((line) => line.includes('"rule":"ip-minute"') && line.includes('"fallback":"local"'))).toBe(true);
      // Another address is not affected.
      expect((await app.request('/docs', { headers: fromAddress(address()) })).status).toBe(200);
    });

    it('failed key attempts are counted in-process per address: past 120, even a valid key from it is refused before the lookup', async () => {
      const { key } = await makeTenant(t.db);
      proxy.setFault(fault);
      const ip = address();
      const bad = `svc_live_${'x'.repeat(40)}`;
      const answers = await together(IP_MINUTE.limit + 1, () => app.request('/api/v1/me', { key: bad, headers: fromAddress(ip) }));
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(IP_MINUTE.limit);
      expect(statuses.filter((s) => s === 429)).toHaveLength(1);
      const valid = await app.request('/api/v1/me', { key, headers: fromAddress(ip) });
      expect(valid.status).toBe(429);
      expect((await app.request('/api/v1/me', { key, headers: fromAddress(address()) })).status).toBe(200);
    });

    it('sign-in attempts are counted in-process per address and email: the 11th is refused', async () => {
      proxy.setFault(fault);
      const email = `nobody-${randomUUID().slice(0, 8)}@example.test`;
      const ip = address();
      const answers = await together(SIGN_IN_ATTEMPTS.limit + 1, () =>
        app.request('/auth/signin', { body: { email, password: 'wrong password' }, headers: fromAddress(ip) }),
      );
      expect(answers.filter((res) => res.status === 401)).toHaveLength(SIGN_IN_ATTEMPTS.limit);
      const refused = answers.filter((res) => res.status === 429);
      expect(refused).toHaveLength(1);
      expect(headers(refused[0]!)).toMatchObject({ limit: String(SIGN_IN_ATTEMPTS.limit), remaining: '0' });
      expect(logLines().some((line) => line.includes('"rule":"sign-in"') && line.includes('"fallback":"local"'))).toBe(true);
      expect(logLines().join('\n')).not.toContain(email);
    });
  });

  it('when the store hangs, sign-in attempts per email are counted in-process too: the 31st from any address is refused', async () => {
    proxy.setFault('hang');
    const email = `nobody-${randomUUID().slice(0, 8)}@example.test`;
    const attempts = await together(SIGN_IN_ACCOUNT.limit, () =>
      app.request('/auth/signin', { body: { email, password: 'wrong password' }, headers: fromAddress(address()) }),
    );
    expect(attempts.every((res) => res.status === 401)).toBe(true);
    const past = await app.request('/auth/signin', { body: { email, password: 'wrong password' }, headers: fromAddress(address()) });
    expect(past.status).toBe(429);
    expect(headers(past)).toMatchObject({ limit: String(SIGN_IN_ACCOUNT.limit), remaining: '0' });
    expect(logLines().some((line) => line.includes('"rule":"sign-in-account"') && line.includes('"fallback":"local"'))).toBe(true);
  });

  describe('when the store is up (the controls: the same limits, counted in Redis)', () => {
    it("refuses an API key's third request of a minute when its limit is 2, with the counts in the headers", async () => {
      const { clinic } = await makeTenant(t.db);
      const limited = await makeKey(t.db, clinic.id, { rateLimitPerMin: 2 });
      await roomInMinute();
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await control.request('/api/v1/me', { key: limited.raw }));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 429]);
      expect(headers(answers[0]!)).toMatchObject({ limit: '2', remaining: '1' });
      expect(logLines().filter((line) => line.includes('rate limiter store unavailable'))).toEqual([]);
      expect(store.commandLog.length).toBeGreaterThan(0);
    });

    it('counts sign-in attempts in Redis: the 11th from one address is refused', async () => {
      const email = `nobody-${randomUUID().slice(0, 8)}@example.test`;
      const ip = address();
      const statuses = [];
      for (let i = 0; i <= SIGN_IN_ATTEMPTS.limit; i++) {
        statuses.push((await control.request('/auth/signin', { body: { email, password: 'wrong' }, headers: fromAddress(ip) })).status);
      }
      expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
      expect(logLines().filter((line) => line.includes('rate limiter store unavailable'))).toEqual([]);
    });
  });
});
