// The deployment's configuration, read once per env object from the Worker's bindings and variables.
// This folder is the ground floor: it imports nothing else from src/.
import { type DatabaseConfig, hostOf, isLoopbackHost, readDatabaseConfig } from './database';
import { type DomainsConfig, domainsConfigFrom } from './domains';
import type { Env } from './env';
import type { Environment } from './environment';
import { ConfigError } from './errors';
import { type MessagingConfig, messagingConfigFrom } from './messaging';
import { type QStashConfig, readQStashConfig } from './qstash';
import { readRateLimitMultiplier } from './rate-limit';
import { type RootSecretKeys, readJwtSecret, readRootSecretKeys } from './secrets';
import { type SmsNumbersConfig, smsNumbersConfigFrom } from './sms';

export * from './database';
export * from './domains';
export * from './endpoints';
export * from './env';
export * from './errors';
export * from './hostnames';
export * from './messaging';
export * from './qstash';
export * from './rate-limit';
export * from './secrets';
export * from './sms';

/** The default copilot model: instruction-tuned, fast, with JSON mode (response_format json_schema). */
export const DEFAULT_COPILOT_MODEL = '@cf/meta/llama-3.3-70b-instruct-fp8-fast';

export interface AppConfig {
  environment: Environment;
  database: DatabaseConfig;
  jwtSecret: string;
  upstash: { url: string; token: string } | null;
  /** RATE_LIMIT_MULTIPLIER: every rate limit times this (development and test only; absent = 1). */
  rateLimitMultiplier?: number;
  /** DEV_SIMULATOR="true": the /_dev simulator routes exist (development and test only; readDevelopmentSwitch). */
  devSimulator: boolean;
  /** The Stripe adapter's key; null: the development processor (refused in production). */
  stripe: { secretKey: string } | null;
  /** Model name the copilot asks for when an AI binding exists. */
  copilot: { model: string };
  /** CHECKOUT_EMBED_BASE_URL; unset: the default in src/modules/webhooks-checkout/checkout/service.ts (docs/checkout.md). */
  checkoutEmbedBaseUrl?: string;
  /** The root secret (and the previous one during a rotation) every sealing key is derived from (docs/secrets.md). */
  secretKeys: RootSecretKeys;
  /** Webhook URLs may be plain-http loopback (development and test only; readDevelopmentSwitch). */
  webhookAllowInsecureLocalhost: boolean;
  /** QStash delivery of webhooks; null: the local dispatcher (cron, waitUntil) delivers. Required in production. */
  qstash: QStashConfig | null;
  /** CRM OAuth apps; a provider without a client id (or no redirect URL) cannot start OAuth in production. */
  crmOAuth: { redirectUrl: string | null; clientIds: Partial<Record<'hubspot' | 'salesforce' | 'pipedrive' | 'zoho', string>> };
  /** Email (Resend) and SMS (Twilio) providers; required email in production (docs/messaging.md). */
  messaging: MessagingConfig;
  /** Custom hostnames (Cloudflare for SaaS) and email domains (Resend), the platform's own domains (docs/organization.md). */
  domains: DomainsConfig;
  /** Where toll-free SMS numbers are bought (docs/organization.md, "SMS provider"). */
  smsNumbers: SmsNumbersConfig;
  /** UPLOADS_PUBLIC_BASE_URL (checked by the storage provider); unset: /uploads/<key> on the API host. */
  uploadsPublicBaseUrl?: string;
}

/**
 * Development defaults (the development JWT secret, the in-process rate limiter) are used only when
 * ENVIRONMENT says development or test AND DATABASE_URL names a database on this machine (loopback).
 * ENVIRONMENT alone is never enough: a deployed Worker with a stray ENVIRONMENT=development has no
 * loopback database, so it refuses to run instead of silently getting development defaults. With a
 * Hyperdrive binding (whose host is *.hyperdrive.local everywhere, so it proves nothing) the local
 * DATABASE_URL that `npm run dev` and the tests set is that witness.
 */
export function readConfig(env: Env): AppConfig {
  const declared = env.ENVIRONMENT === 'development' || env.ENVIRONMENT === 'test' ? env.ENVIRONMENT : 'production';
  const database = readDatabaseConfig(env, declared);
  if (declared !== 'production' && !(env.DATABASE_URL && isLoopbackHost(hostOf(env.DATABASE_URL)))) {
    throw new ConfigError(
      `ENVIRONMENT=${declared} needs DATABASE_URL to name a database on this machine (localhost or 127.0.0.1); anything else is production: unset ENVIRONMENT and set the production secrets`,
    );
  }
  const environment: Environment = declared;
  const jwtSecret = readJwtSecret(env.JWT_SECRET, environment);
  const upstash =
    env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
      ? { url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN }
      : null;
  // The in-process limiter is per isolate: fine for one developer, useless across Cloudflare's edge.
  if (!upstash && environment === 'production') {
    throw new ConfigError('UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN are required in production');
  }
  const stripe = env.STRIPE_SECRET_KEY ? { secretKey: env.STRIPE_SECRET_KEY } : null;
  if (stripe && !/^(sk|rk)_(live|test)_\S+$/.test(stripe.secretKey)) {
    throw new ConfigError(
      'STRIPE_SECRET_KEY must be a Stripe secret (sk_live_/sk_test_) or restricted (rk_) key, never a publishable pk_ key',
    );
  }
  const copilot = { model: env.COPILOT_MODEL || DEFAULT_COPILOT_MODEL };
  const secretKeys = readRootSecretKeys(env, environment);
  const webhookAllowInsecureLocalhost = readDevelopmentSwitch('WEBHOOK_ALLOW_INSECURE_LOCALHOST', env, environment);
  const devSimulator = readDevelopmentSwitch('DEV_SIMULATOR', env, environment);
  const qstash = readQStashConfig(env, environment);
  const crmOAuth = {
    redirectUrl: env.CRM_OAUTH_REDIRECT_URL || null,
    clientIds: Object.fromEntries(
      (
        [
          ['hubspot', env.CRM_OAUTH_HUBSPOT_CLIENT_ID],
          ['salesforce', env.CRM_OAUTH_SALESFORCE_CLIENT_ID],
          ['pipedrive', env.CRM_OAUTH_PIPEDRIVE_CLIENT_ID],
          ['zoho', env.CRM_OAUTH_ZOHO_CLIENT_ID],
        ] as const
      ).filter(([, id]) => Boolean(id)),
    ),
  };
  return {
    environment,
    database,
    jwtSecret,
    upstash,
    rateLimitMultiplier: readRateLimitMultiplier(env.RATE_LIMIT_MULTIPLIER, environment),
    devSimulator,
    stripe,
    copilot,
    checkoutEmbedBaseUrl: env.CHECKOUT_EMBED_BASE_URL || undefined,
    secretKeys,
    webhookAllowInsecureLocalhost,
    qstash,
    crmOAuth,
    messaging: messagingConfigFrom(env, environment),
    domains: domainsConfigFrom(env),
    smsNumbers: smsNumbersConfigFrom(env, environment),
    uploadsPublicBaseUrl: env.UPLOADS_PUBLIC_BASE_URL || undefined,
  };
}

/**
 * A development-only switch: "true" turns it on in development and test. In production any value but
 * unset, empty or "false" is a ConfigError naming the variable: a switch that would let the simulator
 * move money or a webhook reach loopback is refused loudly at startup, never silently ignored (an
 * ignored switch hides a deployment mistake until someone relies on it).
 */
export function readDevelopmentSwitch(
  name: 'DEV_SIMULATOR' | 'WEBHOOK_ALLOW_INSECURE_LOCALHOST',
  env: Pick<Env, 'DEV_SIMULATOR' | 'WEBHOOK_ALLOW_INSECURE_LOCALHOST'>,
  environment: Environment,
): boolean {
  const value = env[name];
  if (environment !== 'production') return value === 'true';
  if (value === undefined || value === '' || value === 'false') return false;
  throw new ConfigError(
    `${name} is a development-only switch and is refused in production (ENVIRONMENT is not development or test); remove it from the Worker's variables`,
  );
}

const configs = new WeakMap<Env, AppConfig>();

/** readConfig, once per env object (the Worker passes the same bindings object to every request). */
export function configFor(env: Env): AppConfig {
  let config = configs.get(env);
  if (!config) {
    config = readConfig(env);
    configs.set(env, config);
  }
  return config;
}
