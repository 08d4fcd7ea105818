import { createRoute, type RouteConfig, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { BRAND_ADMIN_ROLES, type Entitlement, type KeyScope } from '../../../drizzle/schema';
import { IDS_ONLY, type RecordedValues } from '../audit/fields';
import { readToken } from '../auth/jwt';
import { findActiveUser } from '../auth/users';
import type { AppEnv, KeyPrincipal } from '../context';
import { ERROR_MESSAGES } from '../values/error-messages';
import { ApiError, type ErrorCode, forbidden, unauthorized } from '../values/errors';
import { auditPatientRead, auditWrite, type PatientDataRead, writeAction } from './audit';
import { type DeprecationSchedule, deprecationHeaders } from './deprecation';
import { errorBody } from './envelope';
import { IDEMPOTENCY_KEY_MAX_LENGTH, idempotency, idempotentAnswer } from './idempotency';
import { declaredQueryNames, onlyQueryParams } from './strict-query';

/** Who may call a route. Every route declares one; the guard is built from it, never written by hand. */
export type RouteAccess =
  | {
      auth: 'key';
      /** read: any valid key; write: the key needs the write scope (mutating calls). */
      scope: KeyScope;
      /** The only route a publishable key may call is POST /api/v1/checkout/sessions. */
      publishable?: boolean;
      /** On the AI-connector key's read-only allowlist (docs/api-keys.md). */
      aiConnector?: boolean;
      /**
       * Whether sandbox keys may call it; by default decided from the path (see SANDBOX_BLOCKED_PREFIXES).
       * 'only': sandbox keys only (POST /sandbox/go-live); a live key answers 403 SANDBOX_KEY_REQUIRED.
       */
      sandbox?: boolean | 'only';
      /** Plan entitlement required (AFFILIATES_TIER_REQUIRED / CRM_TIER_REQUIRED otherwise). */
      gate?: Entitlement;
      /** The operation answers patient data: each resource read gets a patient_data.read audit row (docs/audit-log.md). */
      patientData?: PatientDataRead;
    }
  | { auth: 'jwt'; patientData?: PatientDataRead }
  | { auth: 'public' };

/** Areas that hold real patients and money: sandbox keys answer 403 SANDBOX_NOT_ALLOWED there. */
export const SANDBOX_BLOCKED_PREFIXES = ['/orders', '/customers', '/payouts', '/refunds', '/refund-requests'].map((p) => `/api/v1${p}`);

const GATE_CODES: Record<Entitlement, { code: ErrorCode; message: string }> = {
  affiliates: { code: 'AFFILIATES_TIER_REQUIRED', message: ERROR_MESSAGES.AFFILIATES_TIER_REQUIRED },
  crm_connect: { code: 'CRM_TIER_REQUIRED', message: ERROR_MESSAGES.CRM_TIER_REQUIRED },
};

export function sandboxAllowedByDefault(path: string): boolean {
  return !SANDBOX_BLOCKED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** The checks after authentication and rate limiting, in the fixed order: kind, sandbox, scope, plan. */
export function checkKeyAccess(key: KeyPrincipal, access: Extract<RouteAccess, { auth: 'key' }>, path: string): void {
  if (key.kind === 'publishable' && !access.publishable) {
    throw forbidden('KEY_KIND_NOT_ALLOWED', ERROR_MESSAGES.KEY_KIND_NOT_ALLOWED.publishable);
  }
  if (key.kind === 'ai_connector' && !access.aiConnector) {
    throw forbidden('KEY_KIND_NOT_ALLOWED', ERROR_MESSAGES.KEY_KIND_NOT_ALLOWED.aiConnector);
  }
  if (key.isSandbox && !(access.sandbox ?? sandboxAllowedByDefault(path))) {
    throw forbidden('SANDBOX_NOT_ALLOWED', ERROR_MESSAGES.SANDBOX_NOT_ALLOWED);
  }
  if (access.scope === 'write' && !key.scopes.includes('write')) {
    throw forbidden('INSUFFICIENT_SCOPE', ERROR_MESSAGES.INSUFFICIENT_SCOPE);
  }
  if (access.sandbox === 'only' && !key.isSandbox) {
    throw forbidden('SANDBOX_KEY_REQUIRED', ERROR_MESSAGES.SANDBOX_KEY_REQUIRED(path));
  }
  if (access.gate && !key.entitlements.includes(access.gate)) {
    const { code, message } = GATE_CODES[access.gate];
    throw forbidden(code, message);
  }
}

function guard(access: RouteAccess, path: string, recorded: RecordedValues): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('routePattern', path);
    c.set('routeParams', c.req.param() as Record<string, string>);
    c.set('recordedValues', recorded);
    if (access.auth === 'key') {
      c.set('recheckKeyAccess', (key) => checkKeyAccess(key, access, path));
      try {
        checkKeyAccess(c.get('apiKey'), access, path);
      } catch (refusal) {
        // A cached key may have changed (a plan upgrade): a refusal waits for the store's word on it.
        const changed = await c.get('confirmKey')?.();
        if (!changed) throw refusal;
        checkKeyAccess(changed, access, path);
        c.set('apiKey', changed);
      }
    } else if (access.auth === 'jwt') {
      const header = c.req.header('authorization') ?? '';
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      const services = c.get('services');
      const token = match ? await readToken(match[1]!, services.config.jwtSecret) : null;
      // The token says who; the database says whether they still may (deactivated, demoted).
      const user = token ? await findActiveUser(services.db, token) : null;
      if (!user) throw unauthorized(ERROR_MESSAGES.UNAUTHORIZED.bearerToken);
      if (!BRAND_ADMIN_ROLES.includes(user.role)) {
        throw new ApiError(403, 'FORBIDDEN', ERROR_MESSAGES.FORBIDDEN.brandAdminsOnly);
      }
      c.set('user', user);
    }
    await next();
  };
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: errorBody } } });

function standardErrors(access: RouteAccess, config: Pick<RouteConfig, 'path' | 'request'>) {
  const responses: Record<string, ReturnType<typeof errorResponse>> = {
    429: errorResponse('Rate limit exceeded (RATE_LIMIT_EXCEEDED); see Retry-After.'),
  };
  // Every operation refuses undeclared query parameters (strict-query.ts), so every one may answer 400.
  responses[400] = errorResponse(
    config.request
      ? 'Invalid input, or an unknown query parameter; the message names the field.'
      : 'An unknown query parameter; the message names it.',
  );
  // Every body goes through the app's size limit and the operation's content-type check.
  if (config.request?.body) {
    responses[413] = errorResponse('PAYLOAD_TOO_LARGE: the body is over the limit (1 MiB for JSON).');
    responses[415] = errorResponse('UNSUPPORTED_MEDIA_TYPE: the body is not of a content type the operation takes.');
  }
  if (access.auth !== 'public') responses[401] = errorResponse('Missing, invalid or expired credentials.');
  if (access.auth === 'key') {
    responses[403] = errorResponse('KEY_KIND_NOT_ALLOWED, SANDBOX_NOT_ALLOWED, INSUFFICIENT_SCOPE or a plan gate.');
  }
  if (access.auth === 'jwt') responses[403] = errorResponse('FORBIDDEN: the signed-in user is not a brand admin.');
  if (config.path.includes('{')) responses[404] = errorResponse('Unknown, malformed or other-clinic id.');
  return responses;
}

/**
 * Where a route's declaration of recorded values is kept on the route it makes: a symbol, so the OpenAPI
 * generator (which writes string keys) leaves it out of the document; routeTable reads it.
 */
export const RECORDED_VALUES = Symbol('recordedValues');

/**
 * The top-level field names of a body schema: its object's shape, through optional, nullable, default,
 * pipe and transform wrappers; null when it is not an object.
 */
function bodyFields(schema: unknown): string[] | null {
  let at = schema as { _zod?: { def?: Record<string, unknown> } } | undefined;
  for (let depth = 0; depth < 8 && at?._zod?.def; depth++) {
    const def = at._zod.def;
    if (def.type === 'object') return Object.keys(def.shape as object);
    at = (def.innerType ?? def.in ?? def.schema) as typeof at;
  }
  return null;
}

/**
 * The route's declaration of the values that may be recorded (src/platform/audit/fields.ts), checked
 * against what the route takes: each name must be a path parameter or a top-level field of its body, so
 * a renamed field cannot leave a stale name behind (nor a typo pass silently).
 */
function recordedValuesOf(config: Pick<RouteConfig, 'method' | 'path' | 'request'>, names: readonly string[] = []): RecordedValues {
  if (names.length === 0) return IDS_ONLY;
  const params = [...config.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const content = config.request?.body?.content as Record<string, { schema?: unknown }> | undefined;
  const fields = Object.values(content ?? {}).flatMap((media) => bodyFields(media.schema) ?? []);
  for (const name of names) {
    if (!params.includes(name) && !fields.includes(name)) {
      throw new Error(
        `${config.method.toUpperCase()} ${config.path}: recordedValues names ${name}, which is neither a path parameter nor a field of its body`,
      );
    }
  }
  return new Set(names);
}

/**
 * Declares a route: its OpenAPI operation, its access rule (published as x-access) and the guard that
 * enforces that rule before validation runs. Paths are written in full (/api/v1/...), so any endpoint
 * can be found by searching for its path. Every route names its operationId (lowerCamelCase verb +
 * resource, docs/api-conventions.md); a declaration without one does not compile.
 *
 * `recordedValues` names the body fields and path parameters whose values the audit row of a write and
 * the request log may keep: amounts, statuses, flags, non-personal settings, never a name, a contact
 * detail, free text, a URL or a secret (docs/audit-log.md, "Field values"). Ids (UUIDs) are kept without
 * a declaration; every other value is withheld, its field named only.
 */
export function defineRoute<
  P extends string,
  R extends Omit<RouteConfig, 'path' | 'operationId'> & { path: P; operationId: string; recordedValues?: readonly string[] },
>(access: RouteAccess, declaration: R) {
  const { recordedValues: names, ...config } = declaration;
  const recorded = recordedValuesOf(config, names);
  const security = access.auth === 'key' ? [{ ApiKey: [] }] : access.auth === 'jwt' ? [{ BearerToken: [] }] : [];
  const idempotent = acceptsIdempotencyKey(access, config.method, config.path);
  // The Idempotency-Key header is input too: a malformed one is a 400 on operations without other input.
  const declared = idempotent ? { ...config, request: { ...config.request, headers: idempotencyHeaders } } : config;
  const responses: Record<string, unknown> = { ...standardErrors(access, declared), ...config.responses };
  if (idempotent) {
    for (const [status, text] of Object.entries(IDEMPOTENCY_ERRORS)) {
      const declared = responses[status] as { description: string } | undefined;
      responses[status] = declared ? { ...declared, description: `${declared.description} Or ${text}` } : errorResponse(text);
    }
  }
  const deprecation = (config as { 'x-deprecation'?: DeprecationSchedule })['x-deprecation'];
  const query = config.request?.query;
  const queryParams = onlyQueryParams(query ? declaredQueryNames(query, `${config.method.toUpperCase()} ${config.path}`) : []);
  return createRoute<P, R>({
    ...config,
    ...(idempotent ? { request: declared.request } : {}),
    security,
    responses,
    // After the access checks (401/403 first), before the idempotency claim and validation: an
    // undeclared query parameter is a 400 naming it (docs/api-conventions.md).
    // First, so that every answer (a 401 or 400 as well) carries Deprecation and Sunset.
    middleware: [
      ...(deprecation ? [deprecationHeaders(deprecation)] : []),
      guard(access, config.path, recorded),
      queryParams,
      // An operation that changes nothing (a count, a preview) keeps its answer without a transaction around it.
      ...(idempotent ? [writeAction(config.operationId) ? idempotency : idempotentAnswer] : []),
      // After the claim: under an Idempotency-Key the audit row joins its transaction (docs/audit-log.md).
      ...(audited(access, config.method) ? [auditWrite(config.operationId, config.path)] : []),
      ...(access.auth !== 'public' && access.patientData ? [auditPatientRead(access.patientData, config.path)] : []),
    ],
    'x-access': access,
    [RECORDED_VALUES]: [...recorded],
  } as unknown as R);
}

const WRITE_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/** Every write made with a key or a brand-admin token is audited (docs/audit-log.md). */
const audited = (access: RouteAccess, method: string) => access.auth !== 'public' && WRITE_METHODS.has(method.toLowerCase());

/** Every write of /api/v1 made with a key takes an Idempotency-Key (docs/api-conventions.md). */
export const acceptsIdempotencyKey = (access: RouteAccess, method: string, path: string) =>
  access.auth === 'key' && WRITE_METHODS.has(method.toLowerCase()) && path.startsWith('/api/v1/');

const IDEMPOTENCY_ERRORS = {
  409: 'IDEMPOTENCY_KEY_IN_USE: a request with the same Idempotency-Key is still running; retry later.',
  422: 'IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used with a different request (method, path or body).',
};

const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(IDEMPOTENCY_KEY_MAX_LENGTH)
    .optional()
    .openapi({
      description:
        'Makes a retry safe: the first request with this key runs, and for 24 hours a retry of the same request (method, path, body) ' +
        'answers the same status and body with Idempotent-Replayed: true, without running again. A UUID is a good key. docs/api-conventions.md.',
      example: '5f0c6c2e-8a8e-4c39-9a37-2f1d0f3b8a11',
    }),
});
