import type { Environment } from './environment';
import { ConfigError } from './errors';

/** Only for local development and tests; production refuses it. */
export const DEVELOPMENT_JWT_SECRET = 'development-only-jwt-secret-change-me';
/** HS256 keys shorter than the hash output are weak (RFC 7518 section 3.2). */
export const MIN_JWT_SECRET_BYTES = 32;
/** Only for local development and tests (base64 of 32 bytes); production refuses it. */
export const DEVELOPMENT_ROOT_SECRET_KEY = 'ZGV2ZWxvcG1lbnQtb25seS13ZWJob29rLWtleS0zMmI=';
/** The development root key under its old name (the same value); kept while WEBHOOK_SECRET_KEY is an alias. */
export const DEVELOPMENT_WEBHOOK_SECRET_KEY = DEVELOPMENT_ROOT_SECRET_KEY;

/**
 * The root secret every sealing key is derived from (one key per purpose, src/platform/crypto), and
 * the previous root while a rotation is under way (docs/secrets.md): values sealed under it stay
 * readable until the re-seal has moved them to the current root.
 */
export interface RootSecretKeys {
  /** base64 of 32 bytes (ROOT_SECRET_KEY): seals everything new. */
  current: string;
  /** base64 of 32 bytes (ROOT_SECRET_KEY_PREVIOUS): only opens, never seals. */
  previous?: string;
}

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

function checkKey(name: string, value: string, environment: Environment): string {
  if (environment === 'production' && value === DEVELOPMENT_ROOT_SECRET_KEY) {
    throw new ConfigError(`${name} is the development key; set a random one (openssl rand -base64 32)`);
  }
  let bytes: number;
  try {
    bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? atob(value).length : -1;
  } catch {
    bytes = -1;
  }
  if (bytes !== 32) throw new ConfigError(`${name} must be base64 of exactly 32 bytes (openssl rand -base64 32)`);
  return value;
}

/**
 * ROOT_SECRET_KEY (or its old name WEBHOOK_SECRET_KEY, an alias for one release: both set must agree):
 * base64 of exactly 32 bytes; required (and never the development key) in production.
 * ROOT_SECRET_KEY_PREVIOUS: the root being rotated away from, only while a rotation is under way.
 */
export function readRootSecretKeys(
  env: { ROOT_SECRET_KEY?: string; ROOT_SECRET_KEY_PREVIOUS?: string; WEBHOOK_SECRET_KEY?: string },
  environment: Environment,
): RootSecretKeys {
  const root = env.ROOT_SECRET_KEY || undefined;
  const alias = env.WEBHOOK_SECRET_KEY || undefined;
  if (root && alias && root !== alias) {
    throw new ConfigError(
      'ROOT_SECRET_KEY and WEBHOOK_SECRET_KEY (its old name) are both set and differ; keep only ROOT_SECRET_KEY (docs/secrets.md)',
    );
  }
  const value = root ?? alias;
  const name = root ? 'ROOT_SECRET_KEY' : 'WEBHOOK_SECRET_KEY';
  let current: string;
  if (!value) {
    if (environment === 'production') throw new ConfigError('ROOT_SECRET_KEY is not set (and WEBHOOK_SECRET_KEY is not set, its old name)');
    current = DEVELOPMENT_ROOT_SECRET_KEY;
  } else {
    current = checkKey(name, value, environment);
  }
  const previousValue = env.ROOT_SECRET_KEY_PREVIOUS || undefined;
  if (!previousValue) return { current };
  const previous = checkKey('ROOT_SECRET_KEY_PREVIOUS', previousValue, environment);
  if (previous === current) throw new ConfigError('ROOT_SECRET_KEY_PREVIOUS is the same as ROOT_SECRET_KEY; unset it');
  return { current, previous };
}

/** The root key alone, read like readRootSecretKeys (kept for callers of the old name). */
export function readWebhookSecretKey(value: string | undefined, environment: Environment): string {
  return readRootSecretKeys({ WEBHOOK_SECRET_KEY: value }, environment).current;
}
