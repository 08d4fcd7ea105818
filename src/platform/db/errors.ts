import { innerError } from '../log';
import { ERROR_MESSAGES } from '../values/error-messages';
import { ApiError } from '../values/errors';

/**
 * What a database failure means for the caller:
 * - `unavailable`: the database cannot be reached or will not take the connection now (too many
 *   clients, starting up or shutting down, refused, reset or timed-out connections, a dead WebSocket).
 *   Answer 503 SERVICE_UNAVAILABLE with Retry-After; the same request may work a moment later.
 * - `bad_input`: PostgreSQL refused a value (SQLSTATE class 22, data exception: a NUL byte, a date or
 *   number out of range, a malformed uuid). Validation should have caught it; answer 400.
 * - null: anything else (a bug, a constraint violation): not decided here.
 *
 * How an unavailable database is recognised, most certain first (docs/architecture.md, "Database
 * connections and failures", lists them):
 * 1. by where the error came from: openDatabase (pool-guard.ts) marks every error its driver reports
 *    while opening a connection (without a SQLSTATE of PostgreSQL's own) and every error it reports as
 *    the loss of an open connection, whatever the runtime's wording (markUnavailable);
 * 2. by SQLSTATE (PostgreSQL's, or Hyperdrive's 58000) and by the system error codes of Node's sockets;
 * 3. by message, for the drivers' and runtimes' errors that carry nothing else and reach here without
 *    passing through openDatabase (a raw driver in a test or script, a path not foreseen);
 * 4. a WebSocket error event (the Neon driver passes the event itself on).
 */
export type DatabaseErrorKind = 'unavailable' | 'bad_input';

/** Seconds a client is asked to wait (Retry-After) when the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** SQLSTATEs (besides class 08, connection exception, and class 53, insufficient resources). */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: the server is shutting down or the backend was terminated
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, in recovery
  // Hyperdrive's own errors, for which PostgreSQL has no code: "Failed to acquire a connection from the
  // pool.", "Server connection attempt failed: connection_refused", "Internal error." (Cloudflare's
  // Hyperdrive troubleshooting page: retrying is appropriate). From PostgreSQL itself, system_error.
  '58000',
]);

/** System error codes of a socket that could not be opened or was lost (node, undici, ws). */
const UNAVAILABLE_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/**
 * Messages of errors that carry no code. node-postgres's and pg-pool's (the Neon serverless driver
 * bundles them unchanged) are the same in every runtime; workerd's socket errors are plain Errors with
 * only a message (measured in test/faults/database-outage.workers.test.ts and the workers tests).
 */
const UNAVAILABLE_MESSAGES = [
  /^timeout exceeded when trying to connect$/i, // pg-pool: connectionTimeoutMillis while waiting for a client
  /^Connection terminated due to connection timeout$/i, // pg-pool: connectionTimeoutMillis while connecting
  /^timeout expired$/i, // pg.Client: connectionTimeoutMillis while connecting
  /^Connection terminated unexpectedly$/i, // pg: the server or network closed the socket
  /^Connection terminated$/i, // pg: the client was ended with queries in flight
  /^Client has encountered a connection error and is not queryable$/i,
  /^Client was closed and is not queryable$/i,
  /^Query read timeout$/i, // pg / Neon: query_timeout
  /^All attempts to open a WebSocket to connect to the database failed/i, // Neon: no WebSocket at all
  /^Error connecting to database:/i, // Neon HTTP driver (NeonDbError): the fetch failed
  // workerd, connect() of cloudflare:sockets (pg-cloudflare): nothing accepts on the address (a stopped
  // server, a refused or unresolvable host), as the socket's `opened`/`closed` rejection and, prefixed
  // "jsg.Error: ", as a write's. Ports 80 and 443 get a sentence more ("...consider using fetch instead").
  /^(jsg\.Error: )?proxy request failed, cannot connect to the specified address/i,
  /^connection attempt failed$/i, // workerd: connect() (cloudflare:sockets, Hyperdrive) could not open the socket
  /^(jsg\.Error: )?Network connection lost\.?$/i, // workerd: an open socket or WebSocket dropped
];

type Loose = Record<string, unknown>;

/** A SQLSTATE in `code` (PostgreSQL's five characters), as opposed to a system error code or none. */
const hasSqlState = (e: Loose) => typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);

/** Set by markUnavailable on an error object: the driver reported it while connecting, or as a lost connection. */
const MARKED_UNAVAILABLE = Symbol('database unavailable');

/**
 * Marks what a driver reported as a failure to open a connection, or as the loss of an open one, so
 * the error handler answers 503 for it whatever its wording (a runtime's, a proxy's). Errors that carry
 * a SQLSTATE are left as they are: PostgreSQL said why (a wrong password, an unknown database).
 */
export function markUnavailable(error: unknown): void {
  if (typeof error !== 'object' || error === null || hasSqlState(error as Loose)) return;
  try {
    Object.defineProperty(error, MARKED_UNAVAILABLE, { value: true });
  } catch {
    // A frozen object: its code or message may still say what it is.
  }
}

function classifyOne(error: unknown): DatabaseErrorKind | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as Loose;
  if ((e as { [MARKED_UNAVAILABLE]?: boolean })[MARKED_UNAVAILABLE] === true) return 'unavailable';
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && hasSqlState(e)) {
    if (code.startsWith('22')) return 'bad_input';
    if (code.startsWith('08') || code.startsWith('53') || UNAVAILABLE_SQLSTATES.has(code)) return 'unavailable';
  }
  if (code && UNAVAILABLE_SYSTEM_CODES.has(code)) return 'unavailable';
  const message = typeof e.message === 'string' ? e.message : '';
  if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return 'unavailable';
  // A WebSocket's `error` event (the Neon driver emits the event itself as the error). In the browser
  // and workerd it is a bare Event that says nothing more; under node `ws` it wraps the socket error.
  const isEvent =
    (typeof Event !== 'undefined' && error instanceof Event) || (!(error instanceof Error) && e.type === 'error' && 'target' in e);
  if (isEvent && e.type === 'error') return 'unavailable';
  return null;
}

/**
 * Classifies a thrown value by walking its cause chain (Drizzle's DrizzleQueryError → the driver's
 * error; AggregateError → its first error; Neon's sourceError; a WebSocket ErrorEvent's error). The
 * first link that says anything decides.
 */
export function classifyDatabaseError(error: unknown): DatabaseErrorKind | null {
  const seen = new Set<unknown>();
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null && !seen.has(current); depth++) {
    seen.add(current);
    const kind = classifyOne(current);
    if (kind) return kind;
    const errors = (current as Loose).errors;
    if (Array.isArray(errors)) {
      for (const inner of errors) {
        const innerKind = classifyOne(inner);
        if (innerKind) return innerKind;
      }
    }
    current = innerError(current);
  }
  return null;
}

/** The 503 for an unavailable database: SERVICE_UNAVAILABLE with Retry-After and retryAfterSeconds. */
export function databaseUnavailable(): ApiError {
  return new ApiError(
    503,
    'SERVICE_UNAVAILABLE',
    ERROR_MESSAGES.SERVICE_UNAVAILABLE.database(DATABASE_RETRY_AFTER_SECONDS),
    { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
    { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}

/** The 400 for a value PostgreSQL refused that validation let through. */
export function databaseRefusedInput(): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', 'Invalid input: a value is malformed or out of range');
}

/**
 * The SQLSTATE and constraint name of a database error, looking through Drizzle's wrapper and any
 * cause chain (the one place that knows how; areas use it to turn 23505/23503 into their answers).
 */
export function databaseErrorState(error: unknown): { code?: string; constraint?: string } {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 8; current = innerError(current), depth++) {
    const { code, constraint } = current as { code?: unknown; constraint?: unknown };
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
      return { code, constraint: typeof constraint === 'string' ? constraint : undefined };
    }
  }
  return {};
}

/** A unique violation (23505), of the named constraint when one is given. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const state = databaseErrorState(error);
  return state.code === '23505' && (constraint === undefined || state.constraint === constraint);
}
