import { DEFAULT_COPILOT_MODEL, type AiBinding } from '../platform/providers/ai/workers-ai';
import type { DomainsEnv } from './domains';
import { messagingConfigFrom, type MessagingConfig, type MessagingEnv } from './messaging';
import type { SmsEnv } from '../platform/providers/sms';
/**
 * Worker bindings and variables (wrangler.toml [vars], [[hyperdrive]] and `wrangler secret put`). The
 * email/SMS senders' (MessagingEnv), the domain providers' (DomainsEnv) and SMS provisioning's (SmsEnv)
 * variables are declared beside their readers.
 */
export interface Env extends MessagingEnv, DomainsEnv, SmsEnv {
  ENVIRONMENT?: string;
  /** Cloudflare Hyperdrive in front of PostgreSQL; when bound, it is how the Worker reaches the database. */
  HYPERDRIVE?: Pick<Hyperdrive, 'connectionString'>;
  /** Postgres connection string, used when no HYPERDRIVE binding is set; a Neon host uses the Neon serverless driver. */
  DATABASE_URL?: string;
  /** Force a driver for DATABASE_URL: "neon" (WebSocket pool) or "pg" (TCP). Default: chosen from the host. */
  DATABASE_DRIVER?: string;
  /** At most this many database connections open at once per isolate; more requests wait (default 20). */
  DATABASE_MAX_CONNECTIONS?: string;
  JWT_SECRET?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  DEV_SIMULATOR?: string;
  /** R2 bucket of uploaded files (wrangler.toml [[r2_buckets]]); required in production (src/platform/providers/storage). */
  UPLOADS?: R2Bucket;
  /** Absolute http(s) base URL under which stored objects are public (e.g. an R2 custom domain); default /uploads. */
  UPLOADS_PUBLIC_BASE_URL?: string;
  /** Stripe secret key (sk_... or restricted rk_...): the payment processor; required in production (src/platform/providers/payments). */
  STRIPE_SECRET_KEY?: string;
  /** Workers AI binding ([ai] binding = "AI"): the program copilot's model; unset = copilot draft answers 503. */
  AI?: AiBinding;
  /** Workers AI model of the copilot (default @cf/meta/llama-3.3-70b-instruct-fp8-fast). */
  COPILOT_MODEL?: string;
  /** Base URL of the browser checkout page; embedUrl = <base>/<sessionId>#token=<token> (docs/checkout.md). */
  CHECKOUT_EMBED_BASE_URL?: string;
  /** base64 of 32 bytes: the AES-GCM key that encrypts webhook signing secrets; required in production (docs/webhooks.md). */
  WEBHOOK_SECRET_KEY?: string;
  /** "true" (development and test only): webhook endpoints may also be http://127.0.0.1:PORT/... or http://localhost:PORT/... */
  WEBHOOK_ALLOW_INSECURE_LOCALHOST?: string;
  /** QStash (Upstash) carries webhook deliveries in production: token, signing keys, and where it calls us back. */
  QSTASH_TOKEN?: string;
  /** QStash API base URL (default https://qstash.upstash.io; a regional URL or a local stand-in otherwise). */
  QSTASH_URL?: string;
  QSTASH_CURRENT_SIGNING_KEY?: string;
  QSTASH_NEXT_SIGNING_KEY?: string;
  /** This Worker's public https origin; QStash calls <origin>/internal/qstash/webhook-deliveries. */
  PUBLIC_BASE_URL?: string;
  /** CRM OAuth apps (docs/crm-connection.md): where providers send the brand back, and each provider's client id. */
  CRM_OAUTH_REDIRECT_URL?: string;
  CRM_OAUTH_HUBSPOT_CLIENT_ID?: string;
  CRM_OAUTH_SALESFORCE_CLIENT_ID?: string;
  CRM_OAUTH_PIPEDRIVE_CLIENT_ID?: string;
  CRM_OAUTH_ZOHO_CLIENT_ID?: string;
}

export type DatabaseDriver = 'neon' | 'pg';

export interface DatabaseConfig {
  url: string;
  driver: DatabaseDriver;
  /** How the connection string was found, for logs and docs: the Hyperdrive binding or DATABASE_URL. */
  source: 'hyperdrive' | 'database_url';
  /** Connections open at once per isolate (the connection gate). */
  maxConnections: number;
}

export interface AppConfig {
  environment: 'production' | 'development' | 'test';
  database: DatabaseConfig;
  jwtSecret: string;
  upstash: { url: string; token: string } | null;
  devSimulator: boolean;
  /** The Stripe adapter's key; null: the development processor (refused in production). */
  stripe: { secretKey: string } | null;
  /** Model name the copilot asks for when an AI binding exists. */
  copilot: { model: string };
  /** CHECKOUT_EMBED_BASE_URL; unset: the default in src/modules/webhooks-checkout/checkout/service.ts (docs/checkout.md). */
  checkoutEmbedBaseUrl?: string;
  /** base64 of the 32-byte AES-GCM key of webhook signing secrets (src/platform/crypto/secret-box.ts). */
  webhookSecretKey: string;
  /** Webhook URLs may be plain-http loopback (development and test only). */
  webhookAllowInsecureLocalhost: boolean;
  /** QStash delivery of webhooks; null: the local dispatcher (cron, waitUntil) delivers. Required in production. */
  qstash: QStashConfig | null;
  /** CRM OAuth apps; a provider without a client id (or no redirect URL) cannot start OAuth in production. */
  crmOAuth: { redirectUrl: string | null; clientIds: Partial<Record<'hubspot' | 'salesforce' | 'pipedrive' | 'zoho', string>> };
  /** Email (Resend) and SMS (Twilio) providers; required email in production (docs/messaging.md). */
  messaging: MessagingConfig;
}

export interface QStashConfig {
  token: string;
  baseUrl: string;
  currentSigningKey: string;
  nextSigningKey: string;
  /** The absolute URL QStash calls for every delivery attempt. */
  callbackUrl: string;
}

export const DEFAULT_QSTASH_URL = 'https://qstash.upstash.io';
/** Where QStash calls back (mounted at the host root, outside /api/v1: no API key, a QStash signature). */
export const QSTASH_CALLBACK_PATH = '/internal/qstash/webhook-deliveries';

/** Only for local development and tests; production refuses it. */
export const DEVELOPMENT_JWT_SECRET = 'development-only-jwt-secret-change-me';
/** HS256 keys shorter than the hash output are weak (RFC 7518 section 3.2). */
export const MIN_JWT_SECRET_BYTES = 32;
export const DEFAULT_MAX_CONNECTIONS = 20;
/** Only for local development and tests (base64 of 32 bytes); production refuses it. */
export const DEVELOPMENT_WEBHOOK_SECRET_KEY = 'ZGV2ZWxvcG1lbnQtb25seS13ZWJob29rLWtleS0zMmI=';

export class ConfigError extends Error {}

export function pickDatabaseDriver(url: string, forced?: string): DatabaseDriver {
  if (forced === 'neon' || forced === 'pg') return forced;
  if (forced) throw new ConfigError(`DATABASE_DRIVER must be "neon" or "pg", not "${forced}"`);
  return hostOf(url).endsWith('.neon.tech') ? 'neon' : 'pg';
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    throw new ConfigError('The database connection string is not a valid URL');
  }
}

/** Loopback only: a deployed Worker can never reach such a database, so only a local run can. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The one place that decides how the Worker reaches PostgreSQL. A HYPERDRIVE binding wins (node-postgres
 * on its connection string, pooled by Hyperdrive); otherwise DATABASE_URL, with the Neon serverless
 * driver for *.neon.tech hosts (use Neon's -pooler endpoint) and node-postgres for anything else.
 */
export function readDatabaseConfig(env: Env): DatabaseConfig {
  const maxConnections = Number(env.DATABASE_MAX_CONNECTIONS ?? DEFAULT_MAX_CONNECTIONS);
  if (!Number.isInteger(maxConnections) || maxConnections < 1 || maxConnections > 1000) {
    throw new ConfigError('DATABASE_MAX_CONNECTIONS must be a whole number from 1 to 1000');
  }
  if (env.HYPERDRIVE?.connectionString) {
    hostOf(env.HYPERDRIVE.connectionString);
    return { url: env.HYPERDRIVE.connectionString, driver: 'pg', source: 'hyperdrive', maxConnections };
  }
  if (!env.DATABASE_URL) throw new ConfigError('Neither a HYPERDRIVE binding nor DATABASE_URL is set');
  return { url: env.DATABASE_URL, driver: pickDatabaseDriver(env.DATABASE_URL, env.DATABASE_DRIVER), source: 'database_url', maxConnections };
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
  const database = readDatabaseConfig(env);
  if (declared !== 'production' && !(env.DATABASE_URL && isLoopbackHost(hostOf(env.DATABASE_URL)))) {
    throw new ConfigError(`ENVIRONMENT=${declared} needs DATABASE_URL to name a database on this machine (localhost or 127.0.0.1); anything else is production: unset ENVIRONMENT and set the production secrets`);
  }
  const environment = declared;
  const jwtSecret = env.JWT_SECRET ?? (environment === 'production' ? undefined : DEVELOPMENT_JWT_SECRET);
  if (!jwtSecret) throw new ConfigError('JWT_SECRET is not set');
  if (environment === 'production') {
    if (jwtSecret === DEVELOPMENT_JWT_SECRET) throw new ConfigError('JWT_SECRET is the development secret; set a random one');
    if (new TextEncoder().encode(jwtSecret).length < MIN_JWT_SECRET_BYTES) {
      throw new ConfigError(`JWT_SECRET must be at least ${MIN_JWT_SECRET_BYTES} bytes`);
    }
  }
  const upstash = env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
    ? { url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN }
    : null;
  // The in-process limiter is per isolate: fine for one developer, useless across Cloudflare's edge.
  if (!upstash && environment === 'production') {
    throw new ConfigError('UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN are required in production');
  }
  const stripe = env.STRIPE_SECRET_KEY ? { secretKey: env.STRIPE_SECRET_KEY } : null;
  if (stripe && !/^(sk|rk)_(live|test)_\S+$/.test(stripe.secretKey)) {
    throw new ConfigError('STRIPE_SECRET_KEY must be a Stripe secret (sk_live_/sk_test_) or restricted (rk_) key, never a publishable pk_ key');
  }
  const copilot = { model: env.COPILOT_MODEL || DEFAULT_COPILOT_MODEL };
  const webhookSecretKey = readWebhookSecretKey(env.WEBHOOK_SECRET_KEY, environment);
  const webhookAllowInsecureLocalhost = environment !== 'production' && env.WEBHOOK_ALLOW_INSECURE_LOCALHOST === 'true';
  const qstash = readQStashConfig(env, environment);
  const crmOAuth = {
    redirectUrl: env.CRM_OAUTH_REDIRECT_URL || null,
    clientIds: Object.fromEntries(
      ([['hubspot', env.CRM_OAUTH_HUBSPOT_CLIENT_ID], ['salesforce', env.CRM_OAUTH_SALESFORCE_CLIENT_ID], ['pipedrive', env.CRM_OAUTH_PIPEDRIVE_CLIENT_ID], ['zoho', env.CRM_OAUTH_ZOHO_CLIENT_ID]] as const)
        .filter(([, id]) => Boolean(id)),
    ),
  };
  return {
    environment, database, jwtSecret, upstash, devSimulator: env.DEV_SIMULATOR === 'true', stripe, copilot,
    checkoutEmbedBaseUrl: env.CHECKOUT_EMBED_BASE_URL || undefined,
    webhookSecretKey, webhookAllowInsecureLocalhost, qstash, crmOAuth,
    messaging: messagingConfigFrom(env, environment),
  };
}

/**
 * QSTASH_TOKEN, both signing keys and PUBLIC_BASE_URL together, or none of them (the local dispatcher
 * then delivers). Production needs them: the cron dispatcher alone would deliver at most once a minute.
 */
export function readQStashConfig(env: Env, environment: AppConfig['environment']): QStashConfig | null {
  const parts = [env.QSTASH_TOKEN, env.QSTASH_CURRENT_SIGNING_KEY, env.QSTASH_NEXT_SIGNING_KEY, env.PUBLIC_BASE_URL];
  if (parts.every((part) => !part)) {
    if (environment === 'production') {
      throw new ConfigError('QSTASH_TOKEN, QSTASH_CURRENT_SIGNING_KEY, QSTASH_NEXT_SIGNING_KEY and PUBLIC_BASE_URL are required in production (webhook delivery)');
    }
    return null;
  }
  if (parts.some((part) => !part)) {
    throw new ConfigError('Set all of QSTASH_TOKEN, QSTASH_CURRENT_SIGNING_KEY, QSTASH_NEXT_SIGNING_KEY and PUBLIC_BASE_URL, or none');
  }
  let origin: URL;
  try {
    origin = new URL(env.PUBLIC_BASE_URL!);
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL must be an absolute URL such as https://api.example.com');
  }
  if (environment === 'production' && origin.protocol !== 'https:') throw new ConfigError('PUBLIC_BASE_URL must be https in production');
  return {
    token: env.QSTASH_TOKEN!,
    baseUrl: env.QSTASH_URL || DEFAULT_QSTASH_URL,
    currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY!,
    nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY!,
    callbackUrl: new URL(QSTASH_CALLBACK_PATH, origin.origin).toString(),
  };
}

/** WEBHOOK_SECRET_KEY: base64 of exactly 32 bytes; required (and never the development key) in production. */
export function readWebhookSecretKey(value: string | undefined, environment: AppConfig['environment']): string {
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
