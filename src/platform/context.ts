import type { Entitlement, KeyKind, KeyScope, UserRole } from '../../drizzle/schema';
import type { AppConfig, Env } from '../config/index';
import type { Database } from './db/client';
import type { RuleOutcome } from './rate-limit/policy';
import type { RateLimiter } from './rate-limit/types';
import type { RequestLogWriter } from './request-log';
import type { ObjectStorage } from './providers/storage/types';
import type { AiProvider } from './providers/ai/types';
import type { PaymentProcessor } from './providers/payments/types';
import type { MessageSender } from './providers/messaging/types';

/** What a request may use. Built per request in the Worker; fixed by the harness in tests. */
export interface Services {
  config: AppConfig;
  db: Database;
  rateLimiter: RateLimiter;
  /** Buffers the request-log rows of this isolate (tests: of this app) and writes them in batches. */
  requestLog: RequestLogWriter;
  /** Runs work after the response without blocking or failing it (ctx.waitUntil in the Worker). */
  background(work: Promise<unknown>): void;
  now(): Date;
  /** Uploaded files (the UPLOADS R2 bucket; memory in Node tests). */
  storage: ObjectStorage;
  /** Creates prices at the payment processor (Stripe with STRIPE_SECRET_KEY; else the development processor). */
  payments: PaymentProcessor;
  /** The program copilot's model (the Workers AI binding); null when none is configured. */
  ai: AiProvider | null;
  /** Email and SMS (a messages row per message; the development sender only records). */
  messaging: MessageSender;
}

/** The caller behind a valid API key. */
export interface KeyPrincipal {
  keyId: string;
  clinicId: string;
  keyName: string;
  keyPrefix: string;
  kind: KeyKind;
  scopes: KeyScope[];
  isSandbox: boolean;
  rateLimitPerMin: number | null;
  entitlements: Entitlement[];
}

/** The brand admin behind a valid sign-in token. */
export interface UserPrincipal {
  userId: string;
  clinicId: string;
  role: UserRole;
}

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    services: Services;
    apiKey: KeyPrincipal;
    user: UserPrincipal;
    /** The matched route pattern as declared, e.g. /api/v1/orders/{id}; used in request logs. */
    routePattern: string;
    /** Every rate-limit rule checked so far for this request; the headers show the tightest. */
    rateLimitOutcomes: RuleOutcome[];
    /** Set by routes that record outbox events: after a successful answer, deliveries are kicked (src/app.ts). */
    eventsRecorded: boolean;
  };
}
