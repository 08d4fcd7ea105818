// What code generators and linters need of the document beyond what the route declarations say
// (docs/api-conventions.md, "The document and the tools"); test/api/platform/openapi-tools.test.ts runs them.

interface Operation {
  summary?: string;
  description?: string;
}
export interface ToolDocument {
  paths?: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

function* operations(document: ToolDocument): Generator<Operation> {
  for (const items of [document.paths, document.webhooks]) {
    for (const item of Object.values(items ?? {})) {
      for (const [method, operation] of Object.entries(item)) {
        if (METHODS.has(method) && operation && typeof operation === 'object') yield operation as Operation;
      }
    }
  }
}

/**
 * Every operation has a description (Spectral's operation-description; generators put it in the doc
 * comment): the summary as a sentence where the declaration gives none. A declared one stays.
 */
export function withOperationDescriptions(document: ToolDocument): void {
  for (const operation of operations(document)) {
    if (operation.description?.trim() || !operation.summary) continue;
    const summary = operation.summary.trim();
    operation.description = /[.!?)]$/.test(summary) ? summary : `${summary}.`;
  }
}

/**
 * `pattern`s without `\/`: zod writes a RegExp's `source`, which escapes every `/`; the escape means
 * nothing in a pattern (ECMA-262 and every other dialect read `/` as itself), but generators that
 * build a regex literal from it (openapi-zod-client) fail on it. An escaped backslash before a `/`
 * (`\\/`) is left alone.
 */
export function withPlainPatterns(document: ToolDocument): void {
  eachObject(document, (node) => {
    if (typeof node.pattern === 'string') node.pattern = unescapeSlashes(node.pattern);
  });
}

export const unescapeSlashes = (pattern: string) =>
  pattern.replace(/(\\+)\//g, (match, slashes: string) => (slashes.length % 2 === 1 ? `${slashes.slice(1)}/` : match));

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * Every integer says its size (OWASP's integer-format; generators pick the type from it): `int32` when
 * its declared bounds fit in 32 bits, else `int64` (zod's `.int()` accepts safe integers, |n| < 2^53,
 * which int64 holds). A declared format stays.
 */
export function withIntegerFormats(document: ToolDocument): void {
  eachObject(
    document,
    (schema) => {
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (types.includes('integer') && schema.format === undefined) {
        const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
        const fits = typeof minimum === 'number' && typeof maximum === 'number' && minimum >= INT32.min && maximum <= INT32.max;
        schema.format = fits ? 'int32' : 'int64';
      }
    },
    VALUE_KEYWORDS,
  );
}

/** Keywords whose contents are values, not schemas: an integer there is data, never given a format. */
const VALUE_KEYWORDS: ReadonlySet<string> = new Set(['example', 'examples', 'enum', 'const']);

/** Calls `fn` once on every object of the document (arrays are walked through), not entering `skip` keywords. */
function eachObject(
  node: unknown,
  fn: (object: Record<string, unknown>) => void,
  skip: ReadonlySet<string> = new Set(),
  seen = new Set<object>(),
): void {
  if (!node || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const item of node) eachObject(item, fn, skip, seen);
    return;
  }
  const record = node as Record<string, unknown>;
  fn(record);
  for (const [keyword, value] of Object.entries(record)) if (!skip.has(keyword)) eachObject(value, fn, skip, seen);
}
