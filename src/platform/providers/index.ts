// Every external service the API talks to is built here, and only here: one door from the deployment's
// configuration (and its bindings) to the implementations a request or a cron run uses. Each capability
// has an interface (<capability>/types.ts), vendor adapters and a development implementation; which one
// runs is decided below, once. Tests pass stand-ins through the same door (providersFor's overrides).
import { type AppConfig, ConfigError, type ProviderBindings } from '../../config';
import type { Database } from '../db/client';
import type { AiProvider } from './ai/types';
import { WorkersAiProvider } from './ai/workers-ai';
import { DevelopmentBillingProcessor, isDevelopmentBillingId } from './billing/development';
import { StripeBillingProcessor } from './billing/stripe';
import type { BillingProcessor } from './billing/types';
import { DevelopmentHostResolver } from './dns/development';
import { DohHostResolver } from './dns/doh';
import type { HostResolver } from './dns/types';
import { CloudflareCustomHostnames } from './domains/cloudflare';
import { DevelopmentCustomHostnames, DevelopmentEmailDomains, isDevelopmentProviderId } from './domains/development';
import { ResendEmailDomains } from './domains/resend';
import type { CustomHostnameProvider, EmailDomainProvider } from './domains/types';
import { type ProviderCapability, ProviderError } from './errors';
import type { FetchLike } from './http';
import { DevelopmentMessageSender } from './messaging/development';
import { QueueingMessageSender } from './messaging/queueing';
import { ResendEmailTransport } from './messaging/resend';
import type { MessageTransport } from './messaging/transport';
import { TwilioSmsTransport } from './messaging/twilio';
import type { MessageSender } from './messaging/types';
import { DevelopmentPaymentProcessor } from './payments/development';
import { StripePaymentProcessor } from './payments/stripe';
import type { PaymentProcessor } from './payments/types';
import { QStashDeliveryQueue } from './queue/qstash';
import type { DeliveryQueue } from './queue/types';
import { DevelopmentSmsNumbers } from './sms/development';
import { TwilioSmsNumbers } from './sms/twilio';
import type { SmsNumberProvider } from './sms/types';
import { MemoryStorage } from './storage/development';
import { R2Storage } from './storage/r2';
import type { ObjectStorage } from './storage/types';

/** What picks a per-call implementation: whether the caller is a sandbox clinic, and the record the call is about. */
export interface ProviderChoice {
  /** Sandbox clinics never reach a real provider. */
  sandbox?: boolean;
  /** The provider's id of the record the call is about, when there is one (dev_..., acct_dev_...: made by a development implementation). */
  recordId?: string | null;
}

/** The external services of a deployment, as a request or a cron run sees them. */
export interface Providers {
  /** Uploaded files: the UPLOADS R2 bucket (memory outside production when unbound). */
  storage: ObjectStorage;
  /** Prices, refunds and transfers: Stripe with STRIPE_SECRET_KEY, else the development processor. */
  payments: PaymentProcessor;
  /** The processor a clinic's call uses: the development processor for a sandbox clinic (it never reaches the real one), else payments. */
  paymentsFor(choice: ProviderChoice): PaymentProcessor;
  /** The platform's own subscriptions and payout accounts, for a record (a development record stays development). */
  billing(choice?: ProviderChoice): BillingProcessor;
  /** The program copilot's model (the Workers AI binding); null when none is configured. */
  ai: AiProvider | null;
  /** Email and SMS (a messages row per message; the development sender only records). */
  messaging: MessageSender;
  /** The providers that deliver queued messages, per channel (none in development). */
  messageTransport: MessageTransport;
  /** Toll-free numbers for a clinic's SMS account. */
  smsNumbers(choice: ProviderChoice): SmsNumberProvider;
  /** Custom hostnames (Cloudflare for SaaS). Throws ProviderError 'unavailable' when production has none configured. */
  customHostnames(choice: ProviderChoice): CustomHostnameProvider;
  /** Email-domain authentication (Resend). As customHostnames. */
  emailDomains(choice: ProviderChoice): EmailDomainProvider;
  /** Where webhook delivery attempts are queued: QStash when configured, else null (the local dispatcher delivers). */
  deliveryQueue: DeliveryQueue | null;
  /** The addresses a webhook URL's host has: DNS over HTTPS (Cloudflare) in production; not looked up in development and test. */
  hostResolver: HostResolver;
}

// Per isolate, on purpose: neither holds a socket (an R2 binding is not a connection; memory is a Map),
// so they may outlive a request. Stripe's client is kept per isolate in stripe-client.ts.
let r2: { bucket: R2Bucket; base: string | undefined; instance: R2Storage } | undefined;
let memory: { base: string | undefined; instance: MemoryStorage } | undefined;

/**
 * The storage for uploads: the UPLOADS R2 binding whenever it is bound (production, `wrangler dev`,
 * the workers tests); without it, development and test use an in-process MemoryStorage (objects
 * live as long as the isolate), and production refuses to run (ConfigError), so uploads are never
 * quietly kept in memory on the edge.
 */
function storageFor(config: AppConfig, bindings: ProviderBindings): ObjectStorage {
  const base = config.uploadsPublicBaseUrl;
  if (bindings.UPLOADS) {
    if (r2?.bucket !== bindings.UPLOADS || r2.base !== base)
      r2 = { bucket: bindings.UPLOADS, base, instance: new R2Storage(bindings.UPLOADS, base) };
    return r2.instance;
  }
  if (config.environment === 'production') {
    throw new ConfigError('The UPLOADS R2 bucket binding is missing (wrangler.toml [[r2_buckets]] binding = "UPLOADS")');
  }
  if (!memory || memory.base !== base) memory = { base, instance: new MemoryStorage(base) };
  return memory.instance;
}

/**
 * The payment processor: Stripe when STRIPE_SECRET_KEY is set; otherwise the development processor
 * (prices recorded in processor_prices), which production refuses with a ConfigError.
 */
function paymentsFor(config: AppConfig, db: Database): PaymentProcessor {
  if (config.stripe) return new StripePaymentProcessor({ secretKey: config.stripe.secretKey });
  if (config.environment === 'production') {
    throw new ConfigError(
      'STRIPE_SECRET_KEY is required in production (the development payment processor only records prices in the database)',
    );
  }
  return new DevelopmentPaymentProcessor(db);
}

/**
 * The billing processor for a record: the development processor for a development record (its id is
 * acct_dev_... or sub_dev_...: demo data and sandbox clinics never reach Stripe), else Stripe when
 * STRIPE_SECRET_KEY is set, else the development processor, which production refuses with a
 * ConfigError (as the payment processor does).
 */
function billingFor(config: AppConfig, db: Database, choice: ProviderChoice): BillingProcessor {
  if (choice.recordId && isDevelopmentBillingId(choice.recordId)) return new DevelopmentBillingProcessor(db);
  if (config.stripe) return new StripeBillingProcessor({ secretKey: config.stripe.secretKey });
  if (config.environment === 'production') {
    throw new ConfigError('STRIPE_SECRET_KEY is required in production (the development billing processor only reads the database)');
  }
  return new DevelopmentBillingProcessor(db);
}

/** The provider adapters of a messaging configuration (fetchImpl: tests may pass their own). */
function messageTransportFor(config: AppConfig['messaging'], fetchImpl?: FetchLike): MessageTransport {
  return {
    email: config.email ? new ResendEmailTransport(config.email, fetchImpl) : null,
    sms: config.sms ? new TwilioSmsTransport(config.sms, fetchImpl) : null,
  };
}

/**
 * The sender of this deployment (docs/messaging.md):
 * - a provider for email and/or SMS: the queueing sender (rows queued, delivered after the commit by
 *   deliverSoon and the cron sweep); a channel without a provider falls back to the development
 *   sender outside production and is recorded as failed in production;
 * - no provider: the development sender (rows recorded as sent; the table is the inbox).
 *   Production without email is refused by messagingConfigFrom (ConfigError).
 */
function messagingFor(config: AppConfig, transport: MessageTransport): MessageSender {
  if (transport.email || transport.sms) {
    const fallback = config.environment === 'production' ? null : new DevelopmentMessageSender();
    return new QueueingMessageSender(transport, fallback);
  }
  return new DevelopmentMessageSender();
}

/**
 * The number provider for a call: Twilio in production, or with SMS_PROVISIONING=twilio; the development
 * provider otherwise, and always for sandbox clinics (nothing billable is bought for a demo brand).
 */
function smsNumbersFor(config: AppConfig, choice: ProviderChoice): SmsNumberProvider {
  if (choice.sandbox || !config.smsNumbers.twilio) return new DevelopmentSmsNumbers();
  return new TwilioSmsNumbers(config.smsNumbers.twilioBaseUrl);
}

const unconfigured = (capability: ProviderCapability, what: string, vars: string) =>
  new ProviderError(capability, 'none', 'unavailable', `${what} are not configured on this deployment (${vars}); nothing was changed`);

/**
 * The custom-hostname implementation for a call: the development one for a record it made (dev_...),
 * for a sandbox clinic, and outside production without Cloudflare; Cloudflare for SaaS when
 * CLOUDFLARE_API_TOKEN, CLOUDFLARE_ZONE_ID and CUSTOM_DOMAIN_CNAME_TARGET are set. Production without
 * them answers 'unavailable' (the operation says so with a 503) rather than pretending.
 */
function customHostnamesFor(config: AppConfig, choice: ProviderChoice): CustomHostnameProvider {
  const { domains } = config;
  const development = () => new DevelopmentCustomHostnames(domains.cnameTarget);
  if (choice.sandbox || isDevelopmentProviderId(choice.recordId)) return development();
  if (domains.cloudflare) return new CloudflareCustomHostnames({ ...domains.cloudflare, cnameTarget: domains.cnameTarget });
  if (config.environment === 'production') {
    throw unconfigured('custom_hostnames', 'Custom domains', 'CLOUDFLARE_API_TOKEN, CLOUDFLARE_ZONE_ID, CUSTOM_DOMAIN_CNAME_TARGET');
  }
  return development();
}

/** The email-domain implementation: as above, with Resend when RESEND_API_KEY is set. */
function emailDomainsFor(config: AppConfig, choice: ProviderChoice): EmailDomainProvider {
  if (choice.sandbox || isDevelopmentProviderId(choice.recordId)) return new DevelopmentEmailDomains();
  if (config.domains.resend) return new ResendEmailDomains(config.domains.resend);
  if (config.environment === 'production') throw unconfigured('email_domains', 'Email domains', 'RESEND_API_KEY');
  return new DevelopmentEmailDomains();
}

/**
 * The providers of one request or cron run. `db` is the run's database handle (the development
 * implementations keep their state in it). Production refuses a provider it needs that is not
 * configured (ConfigError), so nothing quietly runs on a development implementation on the edge.
 * `overrides` replaces any of them (tests: a stand-in, a counting fake); nothing else may.
 */
export function providersFor(config: AppConfig, bindings: ProviderBindings, db: Database, overrides: Partial<Providers> = {}): Providers {
  // Each provider is made on first use (a cron run never builds the storage or the payment processor),
  // then kept for the request or the run.
  const made = new Map<keyof Providers, unknown>();
  const once = <K extends keyof Providers>(name: K, make: () => Providers[K]): Providers[K] => {
    if (name in overrides) return overrides[name] as Providers[K];
    if (!made.has(name)) made.set(name, make());
    return made.get(name) as Providers[K];
  };
  return {
    get storage() {
      return once('storage', () => storageFor(config, bindings));
    },
    get payments() {
      return once('payments', () => paymentsFor(config, db));
    },
    get paymentsFor() {
      return once('paymentsFor', () => (choice: ProviderChoice) => (choice.sandbox ? new DevelopmentPaymentProcessor(db) : this.payments));
    },
    get billing() {
      return once(
        'billing',
        () =>
          (choice: ProviderChoice = {}) =>
            billingFor(config, db, choice),
      );
    },
    get ai() {
      return once('ai', () => (bindings.AI ? new WorkersAiProvider(bindings.AI, config.copilot.model) : null));
    },
    get messageTransport() {
      return once('messageTransport', () => messageTransportFor(config.messaging));
    },
    get messaging() {
      return once('messaging', () => messagingFor(config, this.messageTransport));
    },
    get smsNumbers() {
      return once('smsNumbers', () => (choice: ProviderChoice) => smsNumbersFor(config, choice));
    },
    get customHostnames() {
      return once('customHostnames', () => (choice: ProviderChoice) => customHostnamesFor(config, choice));
    },
    get emailDomains() {
      return once('emailDomains', () => (choice: ProviderChoice) => emailDomainsFor(config, choice));
    },
    get deliveryQueue() {
      return once('deliveryQueue', () => (config.qstash ? new QStashDeliveryQueue(config.qstash) : null));
    },
    get hostResolver() {
      // Production always resolves (there is no setting to turn it off); docs/webhooks.md says why.
      return once('hostResolver', () => (config.environment === 'production' ? new DohHostResolver() : new DevelopmentHostResolver()));
    },
  };
}
