// RATE_LIMIT_MULTIPLIER: the development-only setting with which `npm run bench` raises every rate
// limit, so that it measures what the limiter costs and not its refusals.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, readConfig, readRateLimitMultiplier } from '../../../src/config';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();

describe('reading RATE_LIMIT_MULTIPLIER', () => {
  it('is 1 when unset, the number in development and test', () => {
    expect(readRateLimitMultiplier(undefined, 'development')).toBe(1);
    expect(readRateLimitMultiplier('', 'test')).toBe(1);
    expect(readRateLimitMultiplier('1000', 'development')).toBe(1000);
    const env = { ENVIRONMENT: 'development', DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', RATE_LIMIT_MULTIPLIER: '50' };
    expect(readConfig(env).rateLimitMultiplier).toBe(50);
  });

  it('is refused in production and when not a whole number from 1 to 100000', () => {
    expect(() => readRateLimitMultiplier('1000', 'production')).toThrow(ConfigError);
    for (const value of ['0', '-2', '1.5', 'lots', '100001']) {
      expect(() => readRateLimitMultiplier(value, 'development'), value).toThrow(ConfigError);
    }
  });
});

describe('raised limits', () => {
  beforeEach(() => t.clock.freezeAtWindowStart(60));
  afterEach(() => {
    t.config.rateLimitMultiplier = undefined;
  });

  it('multiply every key limit, still counted and reported', async () => {
    t.config.rateLimitMultiplier = 2;
    const { key } = await makeTenant(t.db);
    const first = await t.request('/api/v1/me', { key });
    expect(first.headers.get('ratelimit-policy')).toBe('600;w=60, 200;w=10');
    expect(first.headers.get('ratelimit-limit')).toBe('200');
    expect(first.headers.get('ratelimit-remaining')).toBe('199');
    // The 101st request within 10 seconds, refused without the multiplier, passes; the 201st does not.
    for (let i = 1; i < 200; i++) expect((await t.request('/api/v1/me', { key })).status).toBe(200);
    expect((await t.request('/api/v1/me', { key })).status).toBe(429);
  });
});
