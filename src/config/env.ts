// Every Worker binding and variable (wrangler.toml [vars], [[hyperdrive]], [[r2_buckets]], [ai] and
// `wrangler secret put`), in one interface. Each provider's variables are declared beside their reader
// (config/<provider>.ts) and gathered here; nothing outside src/config reads them.
import type { DatabaseEnv } from './database';
import type { DomainsEnv } from './domains';
import type { MessagingEnv } from './messaging';
import type { QStashEnv } from './qstash';
import type { SmsEnv } from './sms';

export type { Environment } from './environment';

/** The part of the Workers AI binding (env.AI, `[ai] binding = "AI"` in wrangler.toml) this API uses. */
export interface AiBinding {
  run(model: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>;
}

export interface Env extends DatabaseEnv, MessagingEnv, DomainsEnv, SmsEnv, QStashEnv {
  ENVIRONMENT?: string;
  JWT_SECRET?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  /** Development and test only: every rate limit times this whole number (the benchmark's setting); production refuses it. */
  RATE_LIMIT_MULTIPLIER?: string;
  /** "true" (development and test only) mounts the /_dev simulator routes; production refuses it set (ConfigError). */
  DEV_SIMULATOR?: string;
  /** R2 bucket of uploaded files (wrangler.toml [[r2_buckets]]); required in production (src/platform/providers/storage). */
  UPLOADS?: R2Bucket;
  /** Static assets (wrangler.toml [assets], public/): the renderer of /docs. The edge serves them at /docs/assets/* without the Worker; nothing in src reads it. */
  ASSETS?: Fetcher;
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
  /** base64 of 32 bytes: the root secret every sealing key is derived from (one per purpose); required in production (docs/secrets.md). */
  ROOT_SECRET_KEY?: string;
  /** The previous ROOT_SECRET_KEY, only during a rotation: what was sealed under it stays readable (docs/secrets.md). */
  ROOT_SECRET_KEY_PREVIOUS?: string;
  /** The old name of ROOT_SECRET_KEY, accepted for one release; set together with it, both must be equal. */
  WEBHOOK_SECRET_KEY?: string;
  /** "true" (development and test only): webhook endpoints may also be http://127.0.0.1:PORT/... or http://localhost:PORT/...; production refuses it set (ConfigError). */
  WEBHOOK_ALLOW_INSECURE_LOCALHOST?: string;
  /** CRM OAuth apps (docs/crm-connection.md): where providers send the brand back, and each provider's client id. */
  CRM_OAUTH_REDIRECT_URL?: string;
  CRM_OAUTH_HUBSPOT_CLIENT_ID?: string;
  CRM_OAUTH_SALESFORCE_CLIENT_ID?: string;
  CRM_OAUTH_PIPEDRIVE_CLIENT_ID?: string;
  CRM_OAUTH_ZOHO_CLIENT_ID?: string;
}

/** The bindings providers are built on (objects, not settings): see providersFor in src/platform/providers. */
export type ProviderBindings = Pick<Env, 'UPLOADS' | 'AI'>;
