import { describe, expect, it } from 'vitest';
import { BUNDLED_DATABASE_DRIVER, ConfigError, DEVELOPMENT_JWT_SECRET, readConfig, readDatabaseConfig } from '../../src/config';
import { crc32, generateApiKey, hashApiKey, isWellFormedApiKey } from '../../src/platform/auth/api-key-format';
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
    expect(sandbox.raw).toMatch(/^svc_test_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/);
    expect(sandbox.keyHash).toBe(await hashApiKey(sandbox.raw));
    expect(sandbox.keyHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('CRC-32 is the IEEE one (the check value of "123456789" is cbf43926)', () => {
    expect(crc32(new TextEncoder().encode('123456789')).toString(16)).toBe('cbf43926');
  });

  it('refuses mistyped and made-up keys by their checksum, and every key without one', async () => {
    const { raw } = await generateApiKey('secret', false);
    expect(isWellFormedApiKey(raw)).toBe(true);
    // Any single character changed anywhere (prefix excluded) breaks the checksum.
    for (let i = 'svc_live_'.length; i < raw.length; i++) {
      const swapped = raw.slice(0, i) + (raw[i] === 'A' ? 'B' : 'A') + raw.slice(i + 1);
      expect(isWellFormedApiKey(swapped), `position ${i}`).toBe(false);
    }
    // The checksum covers the prefix: the same random part under another prefix is refused.
    expect(isWellFormedApiKey(raw.replace('svc_live_', 'svc_test_'))).toBe(false);
    expect(isWellFormedApiKey(raw.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${raw}x`)).toBe(false);
    // The checksum-less shape (type prefix and 43 base64url characters) was never issued: refused, as is
    // a real key with its checksum cut off.
    for (const prefix of ['svc_live_', 'svc_pk_', 'svc_ai_', 'svc_test_']) {
      expect(isWellFormedApiKey(`${prefix}${'A'.repeat(43)}`), prefix).toBe(false);
    }
    expect(isWellFormedApiKey(raw.slice(0, -6))).toBe(false);
    for (const bad of [
      undefined,
      '',
      'sk_live_x',
      'svc_live_',
      `svc_live_${'A'.repeat(42)}`,
      `svc_live_${'A'.repeat(42)}\u0000`,
      `svc_live_${'é'.repeat(49)}`,
    ]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });
});

describe('configuration', () => {
  const strongSecret = 'x'.repeat(32);
  const production = {
    JWT_SECRET: strongSecret,
    UPSTASH_REDIS_REST_URL: 'https://u',
    UPSTASH_REDIS_REST_TOKEN: 't',
    WEBHOOK_SECRET_KEY: btoa('k'.repeat(32)),
    QSTASH_TOKEN: 'q',
    QSTASH_CURRENT_SIGNING_KEY: 'c',
    QSTASH_NEXT_SIGNING_KEY: 'n',
    PUBLIC_BASE_URL: 'https://api.example.com',
    RESEND_API_KEY: 're_test',
    EMAIL_FROM: 'no-reply@mail.example.com',
  };

  it('chooses the Neon driver for Neon hosts and node-postgres otherwise', () => {
    expect(readConfig({ ...production, DATABASE_URL: 'postgres://u:p@ep-x-pooler.us-east-2.aws.neon.tech/db' }).database).toMatchObject({
      driver: 'neon',
      source: 'database_url',
    });
    expect(readConfig({ ENVIRONMENT: 'development', DATABASE_URL: 'postgres://localhost:5432/db' }).database.driver).toBe('pg');
    expect(
      readConfig({ ENVIRONMENT: 'development', DATABASE_URL: 'postgres://localhost/db', DATABASE_DRIVER: 'neon' }).database.driver,
    ).toBe('neon');
    expect(readConfig({ ENVIRONMENT: 'development', DATABASE_URL: 'postgres://localhost/db' }).jwtSecret).toBe(DEVELOPMENT_JWT_SECRET);
  });

  it('a HYPERDRIVE binding wins over DATABASE_URL and always uses node-postgres', () => {
    const config = readConfig({
      ...production,
      HYPERDRIVE: { connectionString: 'postgres://u:p@abc.hyperdrive.local:5432/db' },
      DATABASE_URL: 'postgres://u:p@ep-x.neon.tech/db',
    });
    expect(config.database).toEqual({
      url: 'postgres://u:p@abc.hyperdrive.local:5432/db',
      driver: 'pg',
      source: 'hyperdrive',
      maxConnections: 20,
    });
  });

  it('DATABASE_BYPASS_HYPERDRIVE (npm run dev) takes DATABASE_URL over the binding, outside production only', () => {
    const hyperdrive = { connectionString: 'postgres://u:p@abc.hyperdrive.local:5432/db' };
    for (const ENVIRONMENT of ['development', 'test']) {
      const local = { ENVIRONMENT, HYPERDRIVE: hyperdrive, DATABASE_URL: 'postgres://u:p@127.0.0.1:54329/db' };
      expect(readConfig({ ...local, DATABASE_BYPASS_HYPERDRIVE: 'true' }).database).toMatchObject({
        url: 'postgres://u:p@127.0.0.1:54329/db',
        driver: 'pg',
        source: 'database_url',
      });
      expect(readConfig({ ...local, DATABASE_BYPASS_HYPERDRIVE: 'false' }).database.source).toBe('hyperdrive');
      expect(() => readConfig({ ENVIRONMENT, HYPERDRIVE: hyperdrive, DATABASE_BYPASS_HYPERDRIVE: 'true' })).toThrow(/needs DATABASE_URL/);
    }
    expect(() =>
      readConfig({
        ...production,
        HYPERDRIVE: hyperdrive,
        DATABASE_URL: 'postgres://u:p@db.example.com/db',
        DATABASE_BYPASS_HYPERDRIVE: 'true',
      }),
    ).toThrow(/DATABASE_BYPASS_HYPERDRIVE is for development and test only/);
  });

  it('a wrangler build carrying one driver refuses a configuration that needs the other (wrangler.toml [define])', () => {
    const neon = { DATABASE_URL: 'postgres://u:p@ep-x-pooler.us-east-2.aws.neon.tech/db' };
    const hyperdrive = { HYPERDRIVE: { connectionString: 'postgres://u:p@abc.hyperdrive.local:5432/db' } };
    expect(() => readDatabaseConfig(neon, 'production', 'pg')).toThrow(/built without the Neon driver.*wrangler deploy --env neon/);
    expect(() =>
      readDatabaseConfig({ DATABASE_URL: 'postgres://u:p@db.example.com/db', DATABASE_DRIVER: 'neon' }, 'production', 'pg'),
    ).toThrow(/DATABASE_DRIVER=neon/);
    expect(() => readDatabaseConfig(hyperdrive, 'production', 'neon')).toThrow(/Neon driver only.*a HYPERDRIVE binding/);
    expect(readDatabaseConfig(neon, 'production', 'neon').driver).toBe('neon');
    expect(readDatabaseConfig(hyperdrive, 'production', 'pg').driver).toBe('pg');
    // Outside wrangler's build (here, the scripts, the workers tests) both drivers load on demand.
    expect(BUNDLED_DATABASE_DRIVER).toBeUndefined();
    expect(readDatabaseConfig(neon, 'production').driver).toBe('neon');
  });

  it('caps connections per isolate with DATABASE_MAX_CONNECTIONS', () => {
    const base = { ENVIRONMENT: 'test', DATABASE_URL: 'postgres://127.0.0.1/db' };
    expect(readConfig({ ...base, DATABASE_MAX_CONNECTIONS: '5' }).database.maxConnections).toBe(5);
    for (const bad of ['0', '-1', '2.5', 'many', '1001']) {
      expect(() => readConfig({ ...base, DATABASE_MAX_CONNECTIONS: bad })).toThrow(/DATABASE_MAX_CONNECTIONS/);
    }
  });

  it('refuses to run in production without its secrets, or with weak or development ones', () => {
    expect(() => readConfig({ DATABASE_URL: 'postgres://h/db' })).toThrow(/JWT_SECRET/);
    expect(() => readConfig({ DATABASE_URL: 'postgres://h/db', JWT_SECRET: strongSecret })).toThrow(/UPSTASH/);
    expect(() => readConfig({ JWT_SECRET: strongSecret })).toThrow(/HYPERDRIVE|DATABASE_URL/);
    expect(() => readConfig({ ...production, DATABASE_URL: 'postgres://h/db', JWT_SECRET: 'x'.repeat(31) })).toThrow(/at least 32 bytes/);
    expect(() => readConfig({ ...production, DATABASE_URL: 'postgres://h/db', JWT_SECRET: DEVELOPMENT_JWT_SECRET })).toThrow(
      /development secret/,
    );
    expect(() => readConfig({ ...production, DATABASE_URL: 'postgres://h/db', WEBHOOK_SECRET_KEY: undefined })).toThrow(
      /WEBHOOK_SECRET_KEY/,
    );
    const ok = readConfig({ ...production, DATABASE_URL: 'postgres://h/db' });
    expect(ok.environment).toBe('production');
    expect(ok.upstash).toEqual({ url: 'https://u', token: 't' });
  });

  it('refuses the development switches in production, naming the variable, and honours them only in development and test', () => {
    const prod = { ...production, DATABASE_URL: 'postgres://h/db' };
    for (const name of ['DEV_SIMULATOR', 'WEBHOOK_ALLOW_INSECURE_LOCALHOST'] as const) {
      for (const value of ['true', 'TRUE', '1', 'yes', ' true']) {
        expect(() => readConfig({ ...prod, [name]: value }), `${name}=${value}`).toThrow(ConfigError);
        expect(() => readConfig({ ...prod, [name]: value }), `${name}=${value}`).toThrow(
          new RegExp(`^${name} is a development-only switch and is refused in production`),
        );
      }
      // Unset, empty or "false" is the switch off: production runs, with it off.
      for (const value of [undefined, '', 'false']) {
        const config = readConfig({ ...prod, [name]: value });
        expect(config.devSimulator).toBe(false);
        expect(config.webhookAllowInsecureLocalhost).toBe(false);
      }
      // Any ENVIRONMENT but development and test is production (a stray "staging" too).
      expect(() => readConfig({ ...prod, ENVIRONMENT: 'staging', [name]: 'true' })).toThrow(new RegExp(name));
    }
    for (const ENVIRONMENT of ['development', 'test']) {
      const local = { ENVIRONMENT, DATABASE_URL: 'postgres://127.0.0.1/db' };
      expect(readConfig({ ...local, DEV_SIMULATOR: 'true' }).devSimulator).toBe(true);
      expect(readConfig({ ...local, WEBHOOK_ALLOW_INSECURE_LOCALHOST: 'true' }).webhookAllowInsecureLocalhost).toBe(true);
      // Only "true" turns a switch on; anything else leaves it off without refusing.
      for (const value of [undefined, '', 'false', '1', 'TRUE']) {
        const config = readConfig({ ...local, DEV_SIMULATOR: value, WEBHOOK_ALLOW_INSECURE_LOCALHOST: value });
        expect([config.devSimulator, config.webhookAllowInsecureLocalhost]).toEqual([false, false]);
      }
    }
  });

  it('ENVIRONMENT=development or test alone never gives a deployed Worker development defaults', () => {
    for (const ENVIRONMENT of ['development', 'test']) {
      const hyperdrive = { connectionString: 'postgres://u:p@abc.hyperdrive.local:5432/db' };
      expect(() => readConfig({ ENVIRONMENT, DATABASE_URL: 'postgres://u:p@db.example.com/app' })).toThrow(/database on this machine/);
      expect(() => readConfig({ ENVIRONMENT, HYPERDRIVE: hyperdrive })).toThrow(/database on this machine/);
      // Local Hyperdrive (wrangler dev, the workers tests): the loopback DATABASE_URL beside it is the witness.
      expect(readConfig({ ENVIRONMENT, HYPERDRIVE: hyperdrive, DATABASE_URL: 'postgres://127.0.0.1:54329/db' }).database.source).toBe(
        'hyperdrive',
      );
      for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]']) {
        expect(readConfig({ ENVIRONMENT, DATABASE_URL: `postgres://u:p@${host}:5432/db` }).environment).toBe(ENVIRONMENT);
      }
    }
    // Anything else is production, with production's requirements.
    expect(() => readConfig({ ENVIRONMENT: 'staging', DATABASE_URL: 'postgres://127.0.0.1/db' })).toThrow(/JWT_SECRET/);
  });
});
