/** Worker bindings and variables (wrangler.toml [vars] and `wrangler secret put`). */
export interface Env {
  ENVIRONMENT?: string;
  /** Postgres connection string; a Neon host uses the Neon serverless driver. */
  DATABASE_URL?: string;
  /** Force a driver: "neon" (WebSocket pool) or "pg" (TCP). Default: chosen from the host. */
  DATABASE_DRIVER?: string;
  JWT_SECRET?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  DEV_SIMULATOR?: string;
}

export type DatabaseDriver = 'neon' | 'pg';

export interface AppConfig {
  environment: 'production' | 'development' | 'test';
  databaseUrl: string;
  databaseDriver: DatabaseDriver;
  jwtSecret: string;
  upstash: { url: string; token: string } | null;
  devSimulator: boolean;
}

/** Only for local development and tests; production must set JWT_SECRET. */
export const DEVELOPMENT_JWT_SECRET = 'development-only-jwt-secret-change-me';

export class ConfigError extends Error {}

export function pickDatabaseDriver(url: string, forced?: string): DatabaseDriver {
  if (forced === 'neon' || forced === 'pg') return forced;
  if (forced) throw new ConfigError(`DATABASE_DRIVER must be "neon" or "pg", not "${forced}"`);
  try {
    return new URL(url).hostname.endsWith('.neon.tech') ? 'neon' : 'pg';
  } catch {
    throw new ConfigError('DATABASE_URL is not a valid URL');
  }
}

export function readConfig(env: Env): AppConfig {
  const environment = env.ENVIRONMENT === 'development' || env.ENVIRONMENT === 'test' ? env.ENVIRONMENT : 'production';
  if (!env.DATABASE_URL) throw new ConfigError('DATABASE_URL is not set');
  const jwtSecret = env.JWT_SECRET ?? (environment === 'production' ? undefined : DEVELOPMENT_JWT_SECRET);
  if (!jwtSecret) throw new ConfigError('JWT_SECRET is not set');
  const upstash = env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
    ? { url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN }
    : null;
  // The in-process limiter is per isolate: fine for one developer, useless across Cloudflare's edge.
  if (!upstash && environment === 'production') {
    throw new ConfigError('UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN are required in production');
  }
  return {
    environment,
    databaseUrl: env.DATABASE_URL,
    databaseDriver: pickDatabaseDriver(env.DATABASE_URL, env.DATABASE_DRIVER),
    jwtSecret,
    upstash,
    devSimulator: env.DEV_SIMULATOR === 'true',
  };
}
