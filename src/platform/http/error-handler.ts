import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ZodError } from 'zod';
import { ConfigError, isLoopbackHost } from '../../config';
import type { AppEnv } from '../context';
import { classifyDatabaseError, databaseRefusedInput, databaseUnavailable } from '../db/errors';
import { describeError, logLine } from '../log';
import { ERROR_MESSAGES } from '../values/error-messages';
import { ApiError, type ErrorCode, invalidFields } from '../values/errors';
import { ProviderError, providerFailure } from './provider-errors';
import { recordedPathOf } from './recorded';

function render(c: Context<AppEnv>, error: ApiError) {
  // The request log records the code of the answer (src/platform/http/gateway.ts).
  c.set('errorCode', error.code);
  const body = { success: false as const, message: error.message, code: error.code, requestId: c.get('requestId'), ...error.extra };
  return c.json(body, error.status, error.headers);
}

const HTTP_EXCEPTION_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * The only place errors become responses. Provider failures are answered as providerFailure says
 * (502, 503 or 409); database failures that are not bugs are answered as what
 * they are (unavailable: 503 with Retry-After; a value PostgreSQL refused: 400). Anything else is a
 * 500 whose details go to the log with the request id and never to the caller. Log lines describe the
 * error with describeError (name, message, SQLSTATE, cause), never with the query's parameters.
 */
export const onError: ErrorHandler<AppEnv> = (error, c) => {
  if (error instanceof ApiError) return render(c, error);
  if (error instanceof ProviderError) return render(c, providerFailure(error));
  if (error instanceof HTTPException && error.status < 500) {
    // Hono's JSON validator reports unparsable bodies this way.
    const invalidJson = error.status === 400 && /json/i.test(error.message);
    const code = invalidJson ? 'INVALID_JSON' : (HTTP_EXCEPTION_CODES[error.status] ?? 'VALIDATION_ERROR');
    const message = invalidJson ? ERROR_MESSAGES.INVALID_JSON : error.message || 'Bad request';
    return render(c, new ApiError(error.status as ApiError['status'], code, message));
  }
  // The path as the request log keeps it (ids that are UUIDs, declared values; placeholders otherwise): a
  // path a client typed may name a patient (recorded.ts).
  const route = c.get('routePattern') ?? 'unmatched';
  const request = { requestId: c.get('requestId'), method: c.req.method, route, path: recordedPathOf(c, statusOf(error)) };
  if (error instanceof ConfigError) {
    logLine('error', 'configuration error', { ...request, error: describeError(error) });
    return render(c, configurationUnavailable(error, c.req.url, request.requestId, c.req.header('cf-connecting-ip')));
  }
  const kind = classifyDatabaseError(error);
  if (kind === 'unavailable') {
    logLine('warn', 'database unavailable', { ...request, error: describeError(error) });
    return render(c, databaseUnavailable());
  }
  if (kind === 'bad_input') {
    // Validation let through a value PostgreSQL refuses: a gap to close in the route's schema.
    logLine('warn', 'database refused input', { ...request, error: describeError(error) });
    return render(c, databaseRefusedInput());
  }
  logLine('error', 'unhandled error', { ...request, error: describeError(error, { stack: true }) });
  return render(c, new ApiError(500, 'INTERNAL_ERROR', `Internal server error (request ${c.get('requestId')})`));
};

/**
 * A ConfigError (a secret or binding missing or refused; the configuration is read on every request, so
 * every route, /healthz and /docs included, answers this) is a 503: the service cannot serve until its
 * configuration is fixed. What is wrong, and how to fix it locally, is said only to a request made on this
 * machine (its URL's host is loopback: `wrangler dev`); a deployed Worker is reached by its own hostname,
 * never a loopback one, so it says nothing but the request id, and the log has the details. The
 * configuration itself cannot be the witness: it is what failed to read (docs/architecture.md,
 * "Configuration errors"). A client address, when the edge names one, must be loopback too: a request from
 * elsewhere is told nothing more, whatever host it reached.
 */
export function configurationUnavailable(error: ConfigError, url: string, requestId: string, clientIp?: string): ApiError {
  const loopback = (host: string) => isLoopbackHost(host.replace(/^\[|\]$/g, '').toLowerCase());
  let local = false;
  try {
    local = loopback(new URL(url).hostname) && (clientIp === undefined || loopback(clientIp.trim()));
  } catch {
    local = false;
  }
  const message = local
    ? ERROR_MESSAGES.SERVICE_UNAVAILABLE.notConfiguredLocally(error.message)
    : ERROR_MESSAGES.SERVICE_UNAVAILABLE.notConfigured(requestId);
  return new ApiError(503, 'SERVICE_UNAVAILABLE', message);
}

export const onNotFound: NotFoundHandler<AppEnv> = (c) =>
  render(c, new ApiError(404, 'NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`));

const TARGET_NAMES: Record<string, string> = { json: 'body', form: 'body', query: 'query', param: 'path', header: 'header' };

/** zod failures as 400 VALIDATION_ERROR, naming each field: "body.name: Required". */
export function validationError(error: ZodError, target: string): ApiError {
  const where = TARGET_NAMES[target] ?? target;
  const errors = error.issues.map((issue) => ({
    field: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  return invalidFields(errors, where);
}

/** The status an error is answered with (request logs record it before the answer is built). */
export function statusOf(error: unknown): number {
  if (error instanceof ApiError || error instanceof HTTPException) return error.status;
  if (error instanceof ConfigError) return 503;
  if (error instanceof ProviderError) return providerFailure(error).status;
  return 500;
}
