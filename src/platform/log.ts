/**
 * What an error log line may say about an error: its name, its message, a SQLSTATE or system error
 * code, and the same for its cause — never the values a query was run with.
 *
 * Drizzle wraps every failed query in a DrizzleQueryError whose message ends in "params: <values>"
 * (sign-in emails, key hashes, whatever the query carried) and whose real reason (the driver's error,
 * with the SQLSTATE in `code`) is in `cause`. describeError keeps the query text (placeholders only),
 * drops the parameters, and describes the cause. PostgreSQL data-exception messages (class 22) quote
 * the offending input ('invalid input syntax for type uuid: "..."'), so quoted text in those is
 * replaced; any parameter value that still shows up in a message is replaced too.
 */
export interface ErrorDescription {
  name: string;
  message: string;
  /** SQLSTATE (e.g. 22021) or a system error code (e.g. ECONNREFUSED). */
  code?: string;
  /** SQL text of a failed query, with $1-style placeholders and no values. */
  query?: string;
  /** Constraint a failed statement violated (a name from the schema, never a value). */
  constraint?: string;
  cause?: ErrorDescription;
  /** Stack frames only (the first stack line repeats the message, which may hold parameters). */
  stack?: string[];
}

const MAX_MESSAGE = 500;
const MAX_QUERY = 1000;
const MAX_DEPTH = 4;
const MAX_FRAMES = 12;
/** Parameter values shorter than this are not searched for in messages (they would match anything). */
const MIN_REDACTED_LENGTH = 4;
const SQLSTATE = /^[0-9A-Z]{5}$/;

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null;

function paramStrings(params: unknown): string[] {
  if (!Array.isArray(params)) return [];
  return params
    .flatMap((p) => {
      if (p === null || p === undefined) return [];
      if (p instanceof Date) return Number.isNaN(p.getTime()) ? [] : [p.toISOString()];
      if (typeof p === 'object') {
        try {
          return [JSON.stringify(p)];
        } catch {
          return [];
        }
      }
      return [String(p)];
    })
    .filter((s) => s.length >= MIN_REDACTED_LENGTH);
}

function clean(message: string, code: string | undefined, params: string[]): string {
  // Drizzle: "Failed query: <sql>\nparams: <values>" — everything from "params:" on goes.
  let text = message.split(/\r?\nparams:/)[0]!;
  if (code?.startsWith('22')) {
    // Class 22 messages quote the refused input; keep only the encoding name of 22021.
    text = text.replace(/(encoding )?"(?:[^"]|"")*"/g, (quoted, encoding: string | undefined) => (encoding ? quoted : '"[redacted]"'));
  }
  for (const value of params) text = text.split(value).join('[redacted]');
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

function frames(stack: unknown): string[] | undefined {
  if (typeof stack !== 'string') return undefined;
  const lines = stack
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('at '));
  return lines.length ? lines.slice(0, MAX_FRAMES) : undefined;
}

/** The next error down the chain: `cause`, a WebSocket ErrorEvent's `error`, Neon's `sourceError`, an AggregateError's first. */
export function innerError(error: unknown): unknown {
  if (!isObject(error)) return undefined;
  if (error.cause !== undefined && error.cause !== error) return error.cause;
  if (isObject(error.error) && error.error !== error) return error.error;
  if (isObject(error.sourceError) && error.sourceError !== error) return error.sourceError;
  if (Array.isArray(error.errors) && error.errors.length) return error.errors[0];
  return undefined;
}

function errorName(error: Loose, code: string | undefined): string {
  const own = typeof error.name === 'string' ? error.name : '';
  const constructorName = typeof error.constructor === 'function' ? error.constructor.name : '';
  // node-postgres names its server errors "error"; Drizzle leaves DrizzleQueryError's name "Error".
  if (own === 'error' || own === '') return code && SQLSTATE.test(code) ? 'DatabaseError' : constructorName || 'Object';
  if (own === 'Error' && constructorName && constructorName !== 'Error') return constructorName;
  return own;
}

function describe(error: unknown, params: string[], depth: number, withStack: boolean): ErrorDescription {
  if (!isObject(error)) {
    return { name: typeof error, message: clean(String(error), undefined, params) };
  }
  const ownParams = [...params, ...paramStrings(error.params)];
  const rawCode = typeof error.code === 'string' || typeof error.code === 'number' ? String(error.code) : undefined;
  const code = rawCode && (SQLSTATE.test(rawCode) || /^[A-Z][A-Z0-9_]+$/.test(rawCode)) ? rawCode : undefined;
  const name = errorName(error, code);
  const isQueryError = typeof error.query === 'string' && 'params' in error;
  const message = isQueryError ? 'Failed query' : clean(typeof error.message === 'string' ? error.message : '', code, ownParams);
  const description: ErrorDescription = { name, message };
  if (code) description.code = code;
  if (isQueryError) {
    const query = error.query as string;
    description.query = query.length > MAX_QUERY ? `${query.slice(0, MAX_QUERY)}…` : query;
  }
  if (typeof error.constraint === 'string') description.constraint = error.constraint;
  const inner = innerError(error);
  if (inner !== undefined && depth < MAX_DEPTH) description.cause = describe(inner, ownParams, depth + 1, false);
  if (withStack) {
    const stack = frames(error.stack);
    if (stack) description.stack = stack;
  }
  return description;
}

/**
 * A JSON-safe description of any thrown value for a log line: `{ name, message, code?, query?,
 * constraint?, cause?, stack? }`. Use it wherever an error is logged; never log `String(error)` or
 * the error object itself (both carry Drizzle's query parameters).
 */
export function describeError(error: unknown, options: { stack?: boolean } = {}): ErrorDescription {
  return describe(error, [], 0, options.stack ?? false);
}

/** Writes one JSON log line to the console (console.error for errors, console.warn for warnings). */
export function logLine(level: 'error' | 'warn', msg: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, msg, ...fields });
  if (level === 'error') console.error(line);
  else console.warn(line);
}
