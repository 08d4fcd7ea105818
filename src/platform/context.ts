import type { Context } from 'hono';
import type { Entitlement, KeyKind, KeyScope, UserRole } from '../../drizzle/schema';
import type { AppConfig, Env } from '../config';
import type { RecordedValues } from './audit/fields';
import type { AuditEventInput } from './audit/trail';
import type { Database } from './db/client';
import type { Providers } from './providers';
import type { RuleOutcome } from './rate-limit/policy';
import type { RateLimiter } from './rate-limit/types';
import type { RequestLogWriter } from './request-log';

/**
 * What a request may use: infrastructure, and the external services (Providers, built in one place:
 * src/platform/providers). Built per request in the Worker; by the harness in tests.
 */
export interface Services extends Providers {
  config: AppConfig;
  db: Database;
  rateLimiter: RateLimiter;
  /** Buffers the request-log rows of this isolate (tests: of this app) and writes them in batches. */
  requestLog: RequestLogWriter;
  /** Keys looked up recently in this isolate (tests: in this app); see src/platform/auth/key-cache.ts. */
  keyCache: KeyCacheStore;
  /** The Worker's static assets (wrangler.toml [assets], public/): the built OpenAPI document; absent where none are bound. */
  assets?: Fetcher;
  /** Runs work after the response without blocking or failing it (ctx.waitUntil in the Worker). */
  background(work: Promise<unknown>): void;
  now(): Date;
  /**
   * Set for an audited write (src/platform/http/audit.ts): a service that reads a row before changing
   * it may put the fields' old values in `before`, and the audit row shows them beside the new ones.
   */
  auditNote?: { before?: Record<string, unknown> };
}

/** Who is acting: a key, a signed-in brand admin, or the platform itself (a sweep, a script, a callback). */
export type Actor =
  | { kind: 'key'; keyId: string; keyPrefix: string }
  | { kind: 'user'; userId: string; role: UserRole }
  | { kind: 'system'; name: string };

/**
 * The handler context: everything a service of a clinic area takes from its request, in one object:
 * the clinic (every query of clinic data is scoped to it), its sandbox flag, the database, the
 * providers, the configuration, the clock (`now()`) and the actor. The one convention
 * (docs/architecture.md, "The handler context"): a service that reads or writes a clinic's data takes
 * the context first, then the request's own values (ids, the parsed body); a helper that needs none of
 * it takes explicit values only.
 */
export type HandlerContext = Services & { clinicId: string; sandbox: boolean; actor: Actor; requestId?: string };

/** The handler context of a request, for the calling key's clinic or the signed-in brand admin's. */
export function handlerContext(c: Context<AppEnv>): HandlerContext {
  const key = c.get('apiKey');
  const user = key ? undefined : c.get('user');
  if (!key && !user) throw new Error('handlerContext: the route has no authenticated caller');
  const actor: Actor = key
    ? { kind: 'key', keyId: key.keyId, keyPrefix: key.keyPrefix }
    : { kind: 'user', userId: user!.userId, role: user!.role };
  // On top of the request's services (not a copy): the providers stay lazy, made on first use.
  return Object.assign(Object.create(c.get('services')) as Services, {
    clinicId: key ? key.clinicId : user!.clinicId,
    sandbox: key ? key.isSandbox : false,
    actor,
    requestId: c.get('requestId'),
  });
}

/** The context of work the platform does for a clinic outside a request: a sweep, a script, a callback. */
export function systemContext(services: Services, clinicId: string, name: string, sandbox = false): HandlerContext {
  return Object.assign(Object.create(services) as Services, { clinicId, sandbox, actor: { kind: 'system', name } as const });
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

/** A key as the lookup found it, and until when it is valid by its own dates. */
export interface KeyRecord {
  principal: KeyPrincipal;
  /** The earliest of the key's expiresAt and (sandbox keys) the clinic's sandbox window end; ms, or Infinity. */
  validUntil: number;
}

/** Keys looked up recently, by key hash (KeyCache, src/platform/auth/key-cache.ts). */
export interface KeyCacheStore {
  get(keyHash: string, now: number): KeyRecord | undefined;
  set(keyHash: string, record: KeyRecord, now: number): void;
  delete(keyHash: string): void;
  clear(): void;
}

/** The brand admin behind a valid sign-in token. */
export interface UserPrincipal {
  userId: string;
  clinicId: string;
  role: UserRole;
  /** As the database has it now (read with the user's check on every request); the audit trail's label. */
  email?: string;
}

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** The client's own X-Request-Id when valid: data for the request log, never the request's id. */
    clientRequestId: string | null;
    services: Services;
    apiKey: KeyPrincipal;
    user: UserPrincipal;
    /** The matched route pattern as declared, e.g. /api/v1/orders/{id}; used in request logs. */
    routePattern: string;
    /** The matched route's path parameters as sent (decoded), noted by its guard. */
    routeParams: Record<string, string>;
    /** What the matched route declared safe to record (src/platform/audit/fields.ts). */
    recordedValues: RecordedValues;
    /** Set by a key route's guard: its access checks, made again by the gateway for a key found changed. */
    recheckKeyAccess: (key: KeyPrincipal) => void;
    /**
     * Set by the gateway for a cached key: waits for the store's answer and gives the key as the
     * database has it now when a marker said it changed (null: unchanged, or no longer valid).
     */
    confirmKey: () => Promise<KeyPrincipal | null>;
    /**
     * Set by the gateway for a write that runs alongside the rate-limit store's answer: resolves once
     * the request is let through, rejects with the refusal (src/platform/http/admission.ts).
     */
    admitted: () => Promise<void>;
    /** Every rate-limit rule checked so far for this request; the headers show the tightest. */
    rateLimitOutcomes: RuleOutcome[];
    /** The code of the error the request was answered with (set where errors become answers); request logs record it. */
    errorCode: string;
    /** True while the handler runs inside the request's transaction (Idempotency-Key, or an audited write). */
    inRequestTransaction: boolean;
    /** The audit row of a write under an Idempotency-Key, written with its kept answer (src/platform/http/audit.ts). */
    auditEvents: AuditEventInput[];
    /** Patient-data reads of this answer, written after it (src/platform/http/audit.ts). */
    patientReads: AuditEventInput[];
  };
}
