import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { hashApiKey, isWellFormedApiKey } from '../auth/api-key-format';
import { findKeyRecord } from '../auth/key-auth';
import { markersOf } from '../auth/key-cache';
import type { AppEnv, KeyPrincipal, KeyRecord } from '../context';
import { IP_MINUTE, KEY_BURST, keyMinuteRule, rateLimitHeaders, scaleRules } from '../rate-limit/policy';
import { type GatewayCheckResult, gatewayCheck, isGatewayStore } from '../rate-limit/types';
import type { RequestLogEntry } from '../request-log';
import { ApiError, unauthorized } from '../values/errors';
import { admittedServices } from './admission';
import { statusOf } from './error-handler';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from './idempotency';
import { applyRateLimitOutcomes, CLIENT_IP_HEADER, clientIp, enforceRateLimits, requireClientIp } from './rate-limits';
import { recordedPathOf } from './recorded';

/** /api/v1 paths that need no key. */
export const PUBLIC_API_PATHS = new Set(['/api/v1/openapi.json']);

const RATE_LIMIT_STATE = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];

/** Methods that only read: their handler runs while the rate-limit store answers (see below). */
const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * Front door of every /api/v1 request, ordered so that what can be refused without the database is:
 * 1. a value that cannot be a key (no key, unknown prefix, wrong length, no or bad checksum): 401, counted against the
 *    client address; no lookup;
 * 2. an address over its limit of failed key attempts: 429 before any lookup, so a blocked flood
 *    costs no database work;
 * 3. the key lookup (one indexed query): unknown, revoked or expired keys are 401 and counted as a
 *    failed attempt of the address;
 * 4. the key's own limits (per key, never per address: a brand server behind one address keeps its
 *    full rate): 429.
 * Every request made with a valid key is logged after the response, 429s included.
 *
 * The hot path (docs/api-keys.md, "Key cache"): a key looked up in the last 30 seconds in this
 * isolate is not looked up again. Steps 2 and 4 and the key's revocation markers are then asked of the
 * rate-limit store in ONE round trip, and for a read that round trip runs alongside the handler's own
 * query: the handler's answer is only sent once the store has let the request through (else it is
 * thrown away and the refusal sent), so a warm read costs one sequential remote round trip. A marker
 * that is set (the key was revoked or rolled, its clinic's plan changed) or a store that cannot answer
 * sends the request to the database lookup as if nothing were cached. A write's handler runs alongside
 * the store too, but its transaction commits and its providers are called only once the store has let
 * it through (admission.ts): a warm write of one statement costs two sequential round trips.
 */
export const apiKeyGateway: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (PUBLIC_API_PATHS.has(c.req.path)) return ipGateway(c, next);
  requireClientIp(c);
  const services = c.get('services');
  const started = Date.now();
  const address = `ip:${clientIp(c)}`;
  const raw = c.req.header('x-api-key');
  if (!isWellFormedApiKey(raw)) return refuseKey(c, address);
  const keyHash = await hashApiKey(raw);
  const multiplier = services.config.rateLimitMultiplier ?? 1;
  const [ipRule] = scaleRules([IP_MINUTE], multiplier);
  const keyRules = (key: KeyPrincipal) => scaleRules([keyMinuteRule(key), KEY_BURST], multiplier);
  const cacheable = isGatewayStore(services.rateLimiter);
  const cached = cacheable ? services.keyCache.get(keyHash, services.now().getTime()) : undefined;

  let key: KeyPrincipal;
  let verdict: Promise<GatewayCheckResult>;
  if (cached) {
    key = cached.principal;
    const identifier = `key:${key.keyId}`;
    verdict = gatewayCheck(services.rateLimiter, {
      peek: [{ rule: ipRule!, identifier: address }],
      limit: keyRules(key).map((rule) => ({ rule, identifier })),
      markers: markersOf(key),
    });
  } else {
    await enforceRateLimits(c, [IP_MINUTE], address, 'peek');
    const record: KeyRecord | null = await findKeyRecord(services.db, keyHash, services.now());
    if (!record) return refuseKey(c, address);
    if (cacheable) services.keyCache.set(keyHash, record, services.now().getTime());
    key = record.principal;
    const identifier = `key:${key.keyId}`;
    verdict = gatewayCheck(services.rateLimiter, { peek: [], limit: keyRules(key).map((rule) => ({ rule, identifier })), markers: [] });
  }
  c.set('apiKey', key);

  // A cached key that a marker says changed (or whose markers the store cannot read) is looked up
  // again once the store has answered: the database decides, as on a cold request. Unless the address
  // is refused anyway (no lookup for a blocked address).
  const confirmation = verdict.then(async (result) => {
    if (!cached || result.marked === false || result.peek[0]?.success === false) return { result, changed: false, record: cached };
    services.keyCache.delete(keyHash);
    return { result, changed: true, record: await findKeyRecord(services.db, keyHash, services.now()) };
  });
  if (cached) c.set('confirmKey', async () => ((await confirmation).changed ? ((await confirmation).record?.principal ?? null) : null));

  /** The store's answer, in the order of the checks above; throws the refusal. */
  const settle = async () => {
    const { result, changed, record } = await confirmation;
    if (cached) {
      c.set('rateLimitOutcomes', []);
      applyRateLimitOutcomes(c, [{ rule: ipRule!, result: result.peek[0]! }]);
      if (changed) {
        if (!record) return refuseKey(c, address);
        key = record.principal;
        c.set('apiKey', key);
        // A read's guard already ran with the cached key: its checks are made again with the key as it is now.
        c.get('recheckKeyAccess')?.(key);
      }
    }
    c.set('rateLimitOutcomes', []); // the address's failure count says nothing about this key's limits
    const rules = keyRules(cached?.principal ?? record?.principal ?? key);
    applyRateLimitOutcomes(
      c,
      rules.map((rule, i) => ({ rule, result: result.limit[i]! })),
    );
  };

  let status = 500;
  let thrown: unknown;
  try {
    // The handler runs while the store answers. A read's checks are settled once it is done (its answer
    // is sent only if they pass); a write's as soon as the store answers, because the write takes effect
    // only once let through (admission.ts): its transaction waits for the admission before COMMIT and its
    // provider calls before calling out, so a refused write rolls back having called no provider.
    const admission = READ_METHODS.has(c.req.method) ? undefined : settle();
    if (admission) {
      admission.catch(() => {}); // read below; never an unhandled rejection meanwhile
      c.set('admitted', () => admission);
      c.set(
        'services',
        admittedServices(services, () => admission),
      );
    }
    const headersBefore = new Headers(c.res.headers);
    const failed = await next().then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    try {
      await (admission ?? settle());
    } catch (refusal) {
      await refuseAnswered(c, headersBefore);
      throw refusal;
    }
    if (failed) throw failed.error;
    status = c.res.status;
  } catch (error) {
    status = statusOf(error);
    thrown = error;
    throw error;
  } finally {
    services.requestLog.add(requestLogEntry(c, key, status, thrown, Date.now() - started));
    services.background(services.requestLog.flush(services.db));
  }
};

/**
 * The handler's answer to a request the store refused is thrown away, headers included: the refusal
 * starts from what was set before the handler ran, plus the RateLimit-* headers the checks just set.
 */
async function refuseAnswered(c: Context<AppEnv>, headersBefore: Headers): Promise<void> {
  const headers = new Headers(headersBefore);
  for (const name of RATE_LIMIT_STATE) {
    const value = c.res.headers.get(name);
    if (value === null) headers.delete(name);
    else headers.set(name, value);
  }
  await c.res.body?.cancel().catch(() => {});
  c.res = undefined;
  c.res = new Response(null, { headers });
}

const MAX_LOGGED_PATH = 1024;
const MAX_LOGGED_USER_AGENT = 512;

/**
 * The request's log row (docs/request-logs.md). Only what says which call it was and how it went: never
 * a body, a query string or a header that can carry patient data or a secret. The path is the matched
 * route's pattern with the parameters that may be recorded filled in (ids, declared values that
 * validated: recorded.ts), any other left as its placeholder; a path no route matched may hold anything
 * a client typed, so it is left out (the row says `unmatched`). The client's own X-Request-Id and its
 * User-Agent are data, cut to their bounds, never the row's identifier.
 */
function requestLogEntry(c: Context<AppEnv>, key: KeyPrincipal, status: number, thrown: unknown, durationMs: number): RequestLogEntry {
  const route = c.get('routePattern');
  const errorCode = thrown !== undefined ? codeOf(thrown) : status >= 400 ? (c.get('errorCode') ?? null) : null;
  const limits = rateLimitHeaders(c.get('rateLimitOutcomes') ?? [], c.get('services').now().getTime());
  const remaining = limits['RateLimit-Remaining'];
  const idempotencyKey = READ_METHODS.has(c.req.method) ? undefined : c.req.header('idempotency-key');
  return {
    apiKeyId: key.keyId,
    clinicId: key.clinicId,
    requestId: c.get('requestId'),
    method: c.req.method,
    route: route ?? 'unmatched',
    status,
    durationMs,
    // When the request was answered, not when its batch is written (batches may be written out of order).
    createdAt: c.get('services').now(),
    path: recordedPathOf(c, status)?.slice(0, MAX_LOGGED_PATH) ?? null,
    clientRequestId: c.get('clientRequestId') ?? null,
    errorCode,
    idempotencyKey: idempotencyKey && idempotencyKey.length <= IDEMPOTENCY_KEY_MAX_LENGTH ? idempotencyKey : null,
    idempotentReplayed: thrown === undefined && c.res.headers.get('Idempotent-Replayed') === 'true',
    rateLimited: errorCode === 'RATE_LIMIT_EXCEEDED',
    rateLimitRemaining: remaining === undefined ? null : Number(remaining),
    clientIp: c.req.header(CLIENT_IP_HEADER) ?? null,
    userAgent: c.req.header('user-agent')?.slice(0, MAX_LOGGED_USER_AGENT) ?? null,
  };
}

/** The code an error thrown past the gateway is answered with (the error handler renders it after the log row is made). */
function codeOf(error: unknown): string {
  if (error instanceof ApiError) return error.code;
  if (error instanceof HTTPException) return statusOf(error) === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR';
  return 'INTERNAL_ERROR';
}

/** A failed key attempt: counted against the address (429 once over), else 401. */
async function refuseKey(c: Context<AppEnv>, address: string): Promise<never> {
  c.set('rateLimitOutcomes', []); // the count replaces the earlier peek at the same limit
  await enforceRateLimits(c, [IP_MINUTE], address);
  throw unauthorized();
}

/** Root routes (sign-in, key management, health, docs): limited per client IP. */
export const ipGateway: MiddlewareHandler<AppEnv> = async (c, next) => {
  requireClientIp(c);
  await enforceRateLimits(c, [IP_MINUTE], `ip:${clientIp(c)}`);
  await next();
};
