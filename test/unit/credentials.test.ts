import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_JWT_SECRET, readConfig } from '../../src/env';
import { generateApiKey, hashApiKey, looksLikeApiKey } from '../../src/platform/auth/api-key-format';
import { hashPassword, PASSWORD_ITERATIONS, verifyPassword } from '../../src/platform/auth/password';

describe('passwords (PBKDF2-SHA256, per-user salt)', () => {
  it('verifies the right password only, with a fresh salt each time', async () => {
    const a = await hashPassword('s3cret');
    const b = await hashPassword('s3cret');
    expect(a).not.toBe(b);
    expect(a.startsWith(`pbkdf2-sha256$${PASSWORD_ITERATIONS}$`)).toBe(true);
    expect(await verifyPassword('s3cret', a)).toBe(true);
    expect(await verifyPassword('s3cret!', a)).toBe(false);
    for (const broken of ['', 'plain', 'pbkdf2-sha256$abc$x$y', `pbkdf2-sha256$${PASSWORD_ITERATIONS + 1}$AAAA$AAAA`]) {
      expect(await verifyPassword('s3cret', broken)).toBe(false);
    }
  });
});

describe('API key format', () => {
  it('prefixes by kind, svc_test_ for sandbox, and stores a SHA-256 hash', async () => {
    expect((await generateApiKey('secret', false)).raw).toMatch(/^svc_live_/);
    expect((await generateApiKey('publishable', false)).raw).toMatch(/^svc_pk_/);
    expect((await generateApiKey('ai_connector', false)).raw).toMatch(/^svc_ai_/);
    const sandbox = await generateApiKey('secret', true);
    expect(sandbox.raw).toMatch(/^svc_test_/);
    expect(sandbox.keyHash).toBe(await hashApiKey(sandbox.raw));
    expect(sandbox.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(looksLikeApiKey(sandbox.raw)).toBe(true);
    expect(looksLikeApiKey('sk_live_x')).toBe(false);
    expect(looksLikeApiKey(undefined)).toBe(false);
  });
});

describe('configuration', () => {
  it('chooses the Neon driver for Neon hosts and node-postgres otherwise', () => {
    const base = { ENVIRONMENT: 'development' };
    expect(readConfig({ ...base, DATABASE_URL: 'postgres://u:p@ep-x.us-east-2.aws.neon.tech/db' }).databaseDriver).toBe('neon');
    expect(readConfig({ ...base, DATABASE_URL: 'postgres://localhost:5432/db' }).databaseDriver).toBe('pg');
    expect(readConfig({ ...base, DATABASE_URL: 'postgres://localhost/db', DATABASE_DRIVER: 'neon' }).databaseDriver).toBe('neon');
    expect(readConfig({ ...base, DATABASE_URL: 'postgres://localhost/db' }).jwtSecret).toBe(DEVELOPMENT_JWT_SECRET);
  });

  it('refuses to run in production without its secrets', () => {
    expect(() => readConfig({ DATABASE_URL: 'postgres://h/db' })).toThrow(/JWT_SECRET/);
    expect(() => readConfig({ DATABASE_URL: 'postgres://h/db', JWT_SECRET: 'x' })).toThrow(/UPSTASH/);
    expect(() => readConfig({ JWT_SECRET: 'x' })).toThrow(/DATABASE_URL/);
    const ok = readConfig({ DATABASE_URL: 'postgres://h/db', JWT_SECRET: 'x', UPSTASH_REDIS_REST_URL: 'https://u', UPSTASH_REDIS_REST_TOKEN: 't' });
    expect(ok.environment).toBe('production');
    expect(ok.upstash).toEqual({ url: 'https://u', token: 't' });
  });
});
