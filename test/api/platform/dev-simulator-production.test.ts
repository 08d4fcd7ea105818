// Issue 16, item 4: the development simulator cannot exist in production. readConfig refuses
// DEV_SIMULATOR in production (test/unit/credentials.test.ts), and an app running on what readConfig
// gives a production deployment answers every /_dev route with the generic 404 of an unknown route,
// even with a valid key and body, and changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app';
import { type AppConfig, ConfigError, readConfig } from '../../../src/config';
import { BackgroundTasks } from '../../../src/platform/background';
import { MemoryRateLimiter } from '../../../src/platform/rate-limit/memory';
import { buildTestApp, type TestApp, testServices, useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();

/** Every production variable readConfig requires (none of them reaches a provider in these requests). */
const productionEnv = {
  JWT_SECRET: 'p'.repeat(40),
  UPSTASH_REDIS_REST_URL: 'https://upstash.example.com',
  UPSTASH_REDIS_REST_TOKEN: 'token',
  WEBHOOK_SECRET_KEY: btoa('k'.repeat(32)),
  QSTASH_TOKEN: 'q',
  QSTASH_CURRENT_SIGNING_KEY: 'c',
  QSTASH_NEXT_SIGNING_KEY: 'n',
  PUBLIC_BASE_URL: 'https://api.example.com',
  RESEND_API_KEY: 're_test',
  EMAIL_FROM: 'no-reply@mail.example.com',
  STRIPE_SECRET_KEY: 'sk_test_production_config',
};

/** Every simulator route (src/modules/*\/dev-routes.ts and checkout's), with a body it accepts in development. */
const SIMULATOR: { path: string; body: unknown }[] = [
  { path: `/_dev/orders/${crypto.randomUUID()}/events`, body: { event: 'payment.succeeded' } },
  { path: `/_dev/checkout/sessions/${crypto.randomUUID()}/complete`, body: {} },
  { path: '/_dev/webhooks/flush', body: {} },
  { path: '/_dev/intake/sessions', body: {} },
  { path: `/_dev/intake/sessions/${crypto.randomUUID()}/progress`, body: {} },
  { path: '/api/v1/_dev/payout-account', body: { status: 'active' } },
  { path: '/api/v1/_dev/onboarding/identity-verified', body: {} },
  { path: '/api/v1/_dev/onboarding/plan-paid', body: { planId: 'growth' } },
];

let production: { config: AppConfig; request(path: string, key: string, body: unknown): Promise<Response> };
let development: TestApp;

beforeAll(() => {
  const config = readConfig({ ...productionEnv, DATABASE_URL: t.databaseUrl });
  const background = new BackgroundTasks();
  const rateLimiter = new MemoryRateLimiter();
  const app = createApp(async () => ({
    services: testServices({ config, db: t.db, rateLimiter, background: background.add, now: () => new Date() }),
    finish() {},
  }));
  let ip = 0;
  production = {
    config,
    request: (path, key, body) =>
      Promise.resolve(
        app.request(path, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', 'cf-connecting-ip': `198.51.100.${++ip}` },
          body: JSON.stringify(body),
        }),
      ),
  };
  development = buildTestApp(t.db, t.databaseUrl);
  development.config.devSimulator = true;
});

describe('the development simulator in production', () => {
  it('readConfig refuses DEV_SIMULATOR=true in production, so a production config never has the simulator on', () => {
    expect(() => readConfig({ ...productionEnv, DATABASE_URL: t.databaseUrl, DEV_SIMULATOR: 'true' })).toThrow(ConfigError);
    expect(() => readConfig({ ...productionEnv, DATABASE_URL: t.databaseUrl, DEV_SIMULATOR: 'true' })).toThrow(/DEV_SIMULATOR/);
    expect(production.config.environment).toBe('production');
    expect(production.config.devSimulator).toBe(false);
  });

  it('every /_dev route is the generic 404 of an unknown route, with a valid key and body', async () => {
    const { key } = await makeTenant(t.db);
    for (const { path, body } of SIMULATOR) {
      const res = await production.request(path, key, body);
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toEqual({
        success: false,
        code: 'NOT_FOUND',
        message: `No route for POST ${path}`,
        requestId: res.headers.get('x-request-id'),
      });
      // The same request in development reaches the simulator (so the 404 above is not an accident of the path).
      const dev = await development.request(path, { method: 'POST', key, body });
      expect((await dev.json()).message, path).not.toBe(`No route for POST ${path}`);
    }
  });

  it('plan-paid does not complete onboarding in production', async () => {
    const { key } = await makeTenant(t.db);
    const status = async () => (await development.request('/api/v1/onboarding/status', { key })).json();
    const before = await status();
    expect((await production.request('/api/v1/_dev/onboarding/plan-paid', key, { planId: 'growth' })).status).toBe(404);
    expect((await production.request('/api/v1/_dev/onboarding/identity-verified', key, {})).status).toBe(404);
    expect(await status()).toEqual(before);
  });
});
