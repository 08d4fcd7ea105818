import type { Environment } from './environment';
import { ConfigError } from './errors';

/** Only for local development and tests; production refuses it. */
export const DEVELOPMENT_JWT_SECRET = 'development-only-jwt-secret-change-me';
/** HS256 keys shorter than the hash output are weak (RFC 7518 section 3.2). */
export const MIN_JWT_SECRET_BYTES = 32;
/** Only for local development and tests (base64 of 32 bytes); production refuses it. */
export const DEVELOPMENT_WEBHOOK_SECRET_KEY = 'ZGV2ZWxvcG1lbnQtb25seS13ZWJob29rLWtleS0zMmI=';

/** JWT_SECRET: required in production, at least 32 bytes and never the development secret there. */
export function readJwtSecret(value: string | undefined, environment: Environment): string {
  const jwtSecret = value ?? (environment === 'production' ? undefined : DEVELOPMENT_JWT_SECRET);
  if (!jwtSecret) throw new ConfigError('JWT_SECRET is not set');
  if (environment === 'production') {
    if (jwtSecret === DEVELOPMENT_JWT_SECRET) throw new ConfigError('JWT_SECRET is the development secret; set a random one');
    if (new TextEncoder().encode(jwtSecret).length < MIN_JWT_SECRET_BYTES) {
      throw new ConfigError(`JWT_SECRET must be at least ${MIN_JWT_SECRET_BYTES} bytes`);
    }
  }
  return jwtSecret;
}

/** WEBHOOK_SECRET_KEY: base64 of exactly 32 bytes; required (and never the development key) in production. */
export function readWebhookSecretKey(value: string | undefined, environment: Environment): string {
  if (!value) {
    if (environment === 'production') throw new ConfigError('WEBHOOK_SECRET_KEY is not set');
    return DEVELOPMENT_WEBHOOK_SECRET_KEY;
  }
  if (environment === 'production' && value === DEVELOPMENT_WEBHOOK_SECRET_KEY) {
    throw new ConfigError('WEBHOOK_SECRET_KEY is the development key; set a random one (openssl rand -base64 32)');
  }
  let bytes: number;
  try {
    bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? atob(value).length : -1;
  } catch {
    bytes = -1;
  }
  if (bytes !== 32) throw new ConfigError('WEBHOOK_SECRET_KEY must be base64 of exactly 32 bytes (openssl rand -base64 32)');
  return value;
}
