import { beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_JSON_BODY_BYTES } from '../../../src/platform/http/body-limit';
import { buildTestApp, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { addProbeRoute } from '../../helpers/probe-routes';

const t = useTestApp();

// Every test starts one second into a fresh minute (and so a fresh 10-second window).
beforeEach(() => t.clock.freezeAtWindowStart(60));

function limits(res: Response) {
  return {
    limit: res.headers.get('ratelimit-limit'),
    remaining: res.headers.get('ratelimit-remaining'),
    reset: res.headers.get('ratelimit-reset'),
    policy: res.headers.get('ratelimit-policy'),
    retryAfter: res.headers.get('retry-after'),
  };
}

describe('rate-limit headers', () => {
  it('are on every response: success, 401, 403, 404 and root routes', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { kind: 'publishable' });
    const responses = [
      await t.request('/api/v1/me', { key }),
      await t.request('/api/v1/me', { key: 'svc_live_nope' }),
      await t.request('/api/v1/me', { key: readOnly.raw }),
      await t.request('/api/v1/missing', { key }),
      await t.request('/healthz'),
      await t.request('/auth/signin', { body: {} }),
    ];
    for (const res of responses) {
      const h = limits(res);
      expect(h.limit, `${res.status}`).toMatch(/^\d+$/);
      expect(h.remaining).toMatch(/^\d+$/);
      expect(h.reset).toMatch(/^\d+$/);
      expect(h.policy).toMatch(/^\d+;w=\d+/);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('count down per key and describe both limits', async () => {
    const { key } = await makeTenant(t.db);
    const first = limits(await t.request('/api/v1/me', { key }));
    const second = limits(await t.request('/api/v1/me', { key }));
    expect(first.policy).toBe('300;w=60, 100;w=10');
    // The burst cap binds first: 100 per 10 seconds.
    expect(first.limit).toBe('100');
    expect(Number(first.remaining) - Number(second.remaining)).toBe(1);
    expect(Number(first.reset)).toBeGreaterThanOrEqual(1);
    expect(Number(first.reset)).toBeLessThanOrEqual(10);
  });
});

describe('429', () => {
  it('refuses the 101st request within 10 seconds with Retry-After and retryAfterSeconds', async () => {
    const { key } = await makeTenant(t.db);
    for (let i = 0; i < 100; i++) expect((await t.request('/api/v1/me', { key })).status).toBe(200);
    const res = await t.request('/api/v1/me', { key });
    expect(res.status).toBe(429);
    const body = await res.json();
    expect(body).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED' });
    const h = limits(res);
    expect(h.remaining).toBe('0');
    expect(h.retryAfter).toBe(String(body.retryAfterSeconds));
    expect(body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(body.retryAfterSeconds).toBeLessThanOrEqual(10);
    // Other keys of the same clinic are counted separately.
    const { raw } = await makeKey(t.db, (await makeTenant(t.db)).clinic.id);
    expect((await t.request('/api/v1/me', { key: raw })).status).toBe(200);
  });

  it('enforces 300 per minute even when every 10-second burst stays under its cap', async () => {
    const { key } = await makeTenant(t.db);
    let sent = 0;
    for (let burst = 0; burst < 3; burst++) {
      for (let i = 0; i < 100; i++, sent++) expect((await t.request('/api/v1/me', { key })).status).toBe(200);
      // Sliding windows: skip a whole burst window so the previous one no longer weighs in.
      if (burst < 2) t.clock.advance(20_000);
    }
    expect(sent).toBe(300);
    const res = await t.request('/api/v1/me', { key });
    expect(res.status).toBe(429);
    expect(limits(res).limit).toBe('300');
  });

  it('limits sandbox keys to 60 per minute', async () => {
    const { key } = await makeTenant(t.db, { mode: 'sandbox' });
    const first = await t.request('/api/v1/me', { key });
    expect(limits(first).policy).toBe('60;w=60, 100;w=10');
    expect(limits(first).limit).toBe('60');
    for (let i = 1; i < 60; i++) expect((await t.request('/api/v1/me', { key })).status).toBe(200);
    expect((await t.request('/api/v1/me', { key })).status).toBe(429);
  });

  it("applies a key's rateLimitPerMin in place of the default", async () => {
    const { clinic } = await makeTenant(t.db);
    const { raw } = await makeKey(t.db, clinic.id, { rateLimitPerMin: 3 });
    for (let i = 0; i < 3; i++) expect((await t.request('/api/v1/me', { key: raw })).status).toBe(200);
    const res = await t.request('/api/v1/me', { key: raw });
    expect(res.status).toBe(429);
    expect(limits(res).policy).toBe('3;w=60, 100;w=10');
  });

  it('limits requests without a valid key per client IP', async () => {
    const headers = { 'cf-connecting-ip': '192.0.2.44', 'x-api-key': 'svc_live_guess' };
    for (let i = 0; i < 120; i++) expect((await t.request('/api/v1/me', { headers })).status).toBe(401);
    const res = await t.request('/api/v1/me', { headers });
    expect(res.status).toBe(429);
    expect((await res.json()).code).toBe('RATE_LIMIT_EXCEEDED');
    // The address is refused before any key lookup, even with a valid key; other addresses are not.
    const { key } = await makeTenant(t.db);
    expect((await t.request('/api/v1/me', { key, headers: { 'cf-connecting-ip': '192.0.2.44' } })).status).toBe(429);
    expect((await t.request('/api/v1/me', { key, headers: { 'cf-connecting-ip': '192.0.2.45' } })).status).toBe(200);
  });
});

describe('rate-limit headers on 413 and 5xx answers', () => {
  it('a body over the limit answers 413 with the headers, on root and /api/v1 routes', async () => {
    const { key } = await makeTenant(t.db);
    const app = buildTestApp(t.db, t.databaseUrl, { clock: t.clock });
    addProbeRoute(app.app, { auth: 'key', scope: 'write' }, 'post', '/api/v1/probe-large', true);
    const big = JSON.stringify({ amount: 1, padding: 'x'.repeat(MAX_JSON_BODY_BYTES) });
    for (const res of [await t.request('/auth/signin', { body: big }), await app.request('/api/v1/probe-large', { key, body: big })]) {
      expect(res.status).toBe(413);
      expect((await res.json()).code).toBe('PAYLOAD_TOO_LARGE');
      expect(limits(res).limit).toMatch(/^\d+$/);
      expect(limits(res).remaining).toMatch(/^\d+$/);
    }
  });

  it('a 500 carries the headers of the limits already checked', async () => {
    const { key } = await makeTenant(t.db);
    const app = buildTestApp(t.db, t.databaseUrl, { clock: t.clock });
    app.app.get('/api/v1/probe-broken', () => {
      throw new Error('boom');
    });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await app.request('/api/v1/probe-broken', { key });
    logged.mockRestore();
    expect(res.status).toBe(500);
    expect(limits(res)).toMatchObject({ limit: '100', policy: '300;w=60, 100;w=10' });
    expect(limits(res).remaining).toMatch(/^\d+$/);
  });
});

describe('requests without CF-Connecting-IP', () => {
  it('share the "local" bucket in development and tests, and are refused with 400 in production', async () => {
    const { key } = await makeTenant(t.db);
    const dev = await t.app.request('/api/v1/me', { headers: { 'x-api-key': key } });
    expect(dev.status).toBe(200);

    const production = buildTestApp(t.db, t.databaseUrl, { clock: t.clock });
    production.config.environment = 'production';
    for (const [path, init] of [
      ['/api/v1/me', { headers: { 'x-api-key': key } }],
      ['/healthz', {}],
      ['/auth/signin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"a@b.test","password":"x"}' }],
    ] as const) {
      const res = await production.app.request(path, init);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('CLIENT_IP_REQUIRED');
    }
    const withAddress = await production.app.request('/api/v1/me', { headers: { 'x-api-key': key, 'cf-connecting-ip': '198.51.100.1' } });
    expect(withAddress.status).toBe(200);
  });
});
