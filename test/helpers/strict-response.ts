// Strict response check: a JSON response must match the schema its operation declares for its status
// in the app's generated OpenAPI document, with no undeclared key anywhere. t.request() (app.ts) runs
// it on every response, so a handler that leaks a field (a row spread into the body, an error field
// the envelope does not declare) fails the test that made the request, whichever test that is.
//
// Rules: the operation is found by method and path (literal paths before templated ones, {x} = one
// segment); responses[status], else responses["4XX"], else responses.default; no operation, no
// response or no application/json schema there: not checked. Every object schema is closed unless it
// declares additionalProperties (true or a schema); an empty schema ({}) accepts anything.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../src/platform/context';

type Schema = Record<string, unknown>;
type Document = { paths?: Record<string, Record<string, unknown>>; components?: Record<string, unknown> };

const documents = new WeakMap<object, { count: number; document: Document }>();

/**
 * The app's OpenAPI document, regenerated when routes were added since (probe routes in tests).
 * Built apart from openApiDocument()'s per-app cache, so checking a response never freezes the
 * document the app itself serves before a test has added its routes.
 */
export function documentOf(app: OpenAPIHono<AppEnv>): Document {
  const count = app.openAPIRegistry.definitions.length;
  const cached = documents.get(app);
  if (cached && cached.count === count) return cached.document;
  const document = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'strict-response', version: '0' } }) as unknown as Document;
  documents.set(app, { count, document });
  return document;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The declared operation for a request, e.g. ('DELETE', '/api-keys/abc?x=1') → paths['/api-keys/{id}'].delete. */
export function findOperation(document: Document, method: string, requestPath: string): { path: string; operation: Schema } | null {
  const pathname = new URL(requestPath, 'http://localhost').pathname;
  const verb = method.toLowerCase();
  if (!METHODS.has(verb)) return null;
  const candidates = Object.entries(document.paths ?? {})
    .filter(([, item]) => item && typeof item[verb] === 'object')
    .map(([path, item]) => ({ path, operation: item[verb] as Schema, params: (path.match(/\{[^}]+\}/g) ?? []).length }))
    .sort((a, b) => a.params - b.params);
  for (const candidate of candidates) {
    const pattern = new RegExp(
      `^${candidate.path
        .split(/\{[^}]+\}/)
        .map(escapeRegExp)
        .join('[^/]+')}$`,
    );
    if (pattern.test(pathname)) return candidate;
  }
  return null;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The declared JSON schema of an operation's response for a status, or null when none is declared. */
export function declaredJsonSchema(operation: Schema, status: number): Schema | null {
  const responses = (operation.responses ?? {}) as Record<string, Schema>;
  const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
  const content = response?.content as Record<string, { schema?: Schema }> | undefined;
  return content?.['application/json']?.schema ?? null;
}

/** Problems of `value` against `schema` (empty: it matches), each as "path: what is wrong". */
export function schemaProblems(document: Document, schema: Schema, value: unknown, path = '$'): string[] {
  return new Validator(document).check(value, schema, path, new Set());
}

/** The schema a local $ref (chain) points at, with the keywords written beside each $ref applied too (3.1 allows them). */
export function resolveSchema(document: Document, schema: Schema): Schema {
  let current = schema;
  for (let i = 0; typeof current.$ref === 'string' && i < 32; i++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/')) throw new Error(`strict-response: cannot follow ${ref}`);
    let target: unknown = document;
    for (const part of ref.slice(2).split('/')) {
      target = (target as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    if (!target || typeof target !== 'object') throw new Error(`strict-response: ${ref} does not resolve`);
    const { $ref: _ref, ...siblings } = current;
    current = { ...(target as Schema), ...siblings };
  }
  return current;
}

class Validator {
  constructor(private readonly document: Document) {}

  resolve(schema: Schema): Schema {
    return resolveSchema(this.document, schema);
  }

  /** Property names a schema declares, through $ref, allOf and every anyOf/oneOf branch. */
  declaredKeys(schema: Schema, into = new Set<string>(), depth = 0): Set<string> {
    if (depth > 32) return into;
    const s = this.resolve(schema);
    for (const key of Object.keys((s.properties as object | undefined) ?? {})) into.add(key);
    for (const member of [...((s.allOf as Schema[]) ?? []), ...((s.anyOf as Schema[]) ?? []), ...((s.oneOf as Schema[]) ?? [])]) {
      this.declaredKeys(member, into, depth + 1);
    }
    return into;
  }

  check(value: unknown, raw: Schema, path: string, siblingKeys: Set<string>): string[] {
    const schema = this.resolve(raw);
    if (value === null && schema.nullable === true) return [];
    const problems: string[] = [];

    if (Array.isArray(schema.allOf)) {
      // Each member sees the keys the others declare, so an object split over allOf is still closed as a whole.
      const keys = new Set([...siblingKeys, ...this.declaredKeys(schema)]);
      for (const member of schema.allOf as Schema[]) problems.push(...this.check(value, member, path, keys));
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = schema[keyword] as Schema[] | undefined;
      if (!Array.isArray(branches)) continue;
      const results = branches.map((branch) => this.check(value, branch, path, siblingKeys));
      const matching = results.filter((r) => r.length === 0).length;
      if (keyword === 'anyOf' && matching === 0) {
        problems.push(`${path}: matches none of anyOf (${results.map((r) => r[0]).join(' | ')})`);
      }
      if (keyword === 'oneOf' && matching !== 1) {
        problems.push(
          `${path}: matches ${matching} of oneOf, not exactly one${matching === 0 ? ` (${results.map((r) => r[0]).join(' | ')})` : ''}`,
        );
      }
    }
    if (schema.not && typeof schema.not === 'object' && this.check(value, schema.not as Schema, path, siblingKeys).length === 0) {
      problems.push(`${path}: matches a schema it must not`);
    }
    if ('const' in schema && !deepEqual(value, schema.const)) problems.push(`${path}: must be ${JSON.stringify(schema.const)}`);
    if (Array.isArray(schema.enum) && !schema.enum.some((option) => deepEqual(option, value))) {
      problems.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
    }

    const types = schema.type === undefined ? undefined : ([] as string[]).concat(schema.type as string | string[]);
    if (types && schema.nullable === true) types.push('null');
    if (types && !types.some((type) => hasType(value, type))) {
      problems.push(`${path}: expected ${types.join(' or ')}, got ${describe(value)}`);
      return problems;
    }

    if (typeof value === 'string') problems.push(...stringProblems(value, schema, path));
    if (typeof value === 'number') problems.push(...numberProblems(value, schema, path));
    if (Array.isArray(value)) {
      if (typeof schema.minItems === 'number' && value.length < schema.minItems)
        problems.push(`${path}: fewer than ${schema.minItems} items`);
      if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
        problems.push(`${path}: more than ${schema.maxItems} items`);
      const prefix = (schema.prefixItems as Schema[] | undefined) ?? [];
      value.forEach((item, i) => {
        const itemSchema = prefix[i] ?? (schema.items as Schema | undefined);
        if (itemSchema && typeof itemSchema === 'object') problems.push(...this.check(item, itemSchema, `${path}[${i}]`, new Set()));
      });
    }
    if (isPlainObject(value) && (schema.type === 'object' || (types?.includes('object') ?? false) || schema.properties)) {
      problems.push(...this.objectProblems(value, schema, path, siblingKeys));
    }
    return problems;
  }

  objectProblems(value: Record<string, unknown>, schema: Schema, path: string, siblingKeys: Set<string>): string[] {
    const problems: string[] = [];
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required as string[] | undefined) ?? []) {
      if (!(key in value)) problems.push(`${path}: missing required ${key}`);
    }
    const additional = schema.additionalProperties;
    for (const [key, item] of Object.entries(value)) {
      const at = `${path}.${key}`;
      if (properties[key]) {
        problems.push(...this.check(item, properties[key]!, at, new Set()));
      } else if (siblingKeys.has(key)) {
        // Declared by another allOf member, which checks it.
      } else if (additional && typeof additional === 'object') {
        problems.push(...this.check(item, additional as Schema, at, new Set()));
      } else if (additional !== true) {
        problems.push(`${at}: undeclared key`);
      }
    }
    return problems;
  }
}

function stringProblems(value: string, schema: Schema, path: string): string[] {
  const problems: string[] = [];
  const length = [...value].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) problems.push(`${path}: shorter than ${schema.minLength}`);
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) problems.push(`${path}: longer than ${schema.maxLength}`);
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
    problems.push(`${path}: does not match ${schema.pattern}`);
  const format = FORMATS[schema.format as string];
  if (format && !format(value)) problems.push(`${path}: ${JSON.stringify(value)} is not a ${schema.format}`);
  return problems;
}

function numberProblems(value: number, schema: Schema, path: string): string[] {
  const problems: string[] = [];
  if (typeof schema.minimum === 'number' && value < schema.minimum) problems.push(`${path}: below ${schema.minimum}`);
  if (typeof schema.maximum === 'number' && value > schema.maximum) problems.push(`${path}: above ${schema.maximum}`);
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
    problems.push(`${path}: not above ${schema.exclusiveMinimum}`);
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
    problems.push(`${path}: not below ${schema.exclusiveMaximum}`);
  return problems;
}

const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  email: (v) => /^[^\s@]+@[^\s@]+$/.test(v),
  uri: (v) => URL.canParse(v),
};

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
    default:
      return false;
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export class UndeclaredResponseError extends Error {
  override name = 'UndeclaredResponseError';
}

/**
 * Throws when a response does not match what its operation declares for its status (see the rules at
 * the top). Reads a clone, so the caller can still read the body.
 */
export async function assertDeclaredResponse(
  app: OpenAPIHono<AppEnv>,
  request: { method: string; path: string },
  response: Response,
): Promise<void> {
  if (request.method.toUpperCase() === 'HEAD' || response.status === 204 || response.status === 304) return;
  const document = documentOf(app);
  const found = findOperation(document, request.method, request.path);
  if (!found) return;
  const schema = declaredJsonSchema(found.operation, response.status);
  if (!schema) return;
  const where = `${request.method.toUpperCase()} ${found.path} → ${response.status}`;
  const contentType = response.headers.get('content-type') ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw new UndeclaredResponseError(`${where}: declared application/json, sent "${contentType}"`);
  }
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UndeclaredResponseError(`${where}: body is not JSON: ${text.slice(0, 200)}`);
  }
  const problems = schemaProblems(document, schema, body);
  if (problems.length) {
    throw new UndeclaredResponseError(`${where}: the body does not match its declared schema:\n  ${problems.slice(0, 20).join('\n  ')}`);
  }
}
