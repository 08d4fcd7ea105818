// Request inputs read from the app's OpenAPI document: a plausible valid value for any declared schema
// (sample), the scalar positions of such a value (leaves), and the hostile values every suite that
// walks the route table puts into them (no-5xx, the fuzz and isolation properties).
import type { RouteTableEntry } from '../../src/platform/http/route-table';
import { type documentOf, resolveSchema } from './strict-response';

export type Schema = Record<string, unknown>;
export type Document = ReturnType<typeof documentOf>;

/** Strings PostgreSQL refuses or nobody means: NUL, other C0 controls, DEL, C1, lone surrogates, line breaks. */
export const HOSTILE_STRINGS = ['a\u0000b', '\u0000', 'a\u0001b', 'a\u001fb', 'a\u007fb', 'a\u0085b', '\ud800', 'a\udfffb', 'a\tb\nc\r'];
/** Date-times outside what PostgreSQL stores (after the offset), or with offsets it refuses. */
export const HOSTILE_DATES = [
  '9999-12-31T23:59:59-23:59',
  '9999-12-31T23:59:59.999-00:01',
  '+010000-01-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '2030-01-01T00:00:00+16:00',
];
/** Numbers beyond every integer column (int4, int8, safe integers) and JSON's own range. */
export const HOSTILE_NUMBERS = [1e308, -1e308, 2 ** 53 + 2, -(2 ** 53) - 2, 2_147_483_648, -2_147_483_649, 2 ** 63, 0.5, -1];
/** Query values, raw (already URL-encoded): NUL, controls, a UTF-8-encoded surrogate (invalid UTF-8), huge numbers. */
export const HOSTILE_QUERY_VALUES = [
  'a%00b',
  '%00',
  '%01',
  '%7F',
  '%C2%85',
  '%ED%A0%80',
  '%F0%9F',
  '1e308',
  '-9223372036854775809',
  '9'.repeat(400),
];
/** Path ids, raw (already URL-encoded): the nil uuid, not a uuid, SQL, too long, NUL, invalid UTF-8, C1. */
export const HOSTILE_PATH_IDS = [
  '00000000-0000-0000-0000-000000000000',
  'not-a-uuid',
  '%27%3B--',
  'x'.repeat(300),
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%C2%85',
];

/** The declared types of a schema, without null. */
export const typesOf = (schema: Schema) =>
  ([] as string[]).concat((schema.type as string | string[] | undefined) ?? []).filter((x) => x !== 'null');

export interface SampleOptions {
  /** Objects get their required properties only... */
  requiredOnly?: boolean;
  /** ...and the ones on these paths (fields to be set afterwards, and the objects and arrays that hold them). */
  keep?: (string | number)[][];
}

/**
 * A plausible valid value for a schema: its example, else the first enum value, else one built from its
 * type and limits.
 */
export function sample(document: Document, raw: Schema, depth = 0, options: SampleOptions = {}): unknown {
  const schema = resolveSchema(document, raw);
  if (depth > 8) return null;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.allOf))
    return Object.assign({}, ...(schema.allOf as Schema[]).map((s) => sample(document, s, depth + 1, options)));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword] as Schema[] | undefined;
    if (branches)
      return sample(
        document,
        branches.find((b) => !typesOf(resolveSchema(document, b)).length || typesOf(resolveSchema(document, b))[0] !== 'null') ??
          branches[0]!,
        depth + 1,
        options,
      );
  }
  const type = typesOf(schema)[0] ?? (schema.properties ? 'object' : 'string');
  switch (type) {
    case 'object': {
      const kept = (k: string) => (options.keep ?? []).some((path) => path[0] === k);
      return Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Schema>)
          .filter(([k]) => !options.requiredOnly || ((schema.required ?? []) as string[]).includes(k) || kept(k))
          .map(([k, s]) => [
            k,
            sample(document, s, depth + 1, {
              ...options,
              keep: options.keep?.filter((path) => path[0] === k).map((path) => path.slice(1)),
            }),
          ]),
      );
    }
    case 'array': {
      const keep = options.keep?.map((path) => (typeof path[0] === 'number' ? path.slice(1) : path));
      return Array.from({ length: Math.max(1, Number(schema.minItems ?? 1)) }, () =>
        sample(document, (schema.items ?? {}) as Schema, depth + 1, { ...options, keep }),
      );
    }
    case 'integer':
    case 'number':
      return Math.min(Number(schema.maximum ?? Number.MAX_SAFE_INTEGER), Math.max(Number(schema.minimum ?? 1), 1));
    case 'boolean':
      return true;
    default: {
      const formats: Record<string, () => string> = {
        'date-time': () => new Date(Date.now() + 7 * 86_400_000).toISOString(),
        date: () => '2031-01-01',
        uuid: () => crypto.randomUUID(),
        email: () => 'someone@example.test',
        uri: () => 'https://example.test/',
      };
      return formats[schema.format as string]?.() ?? 'x'.repeat(Math.max(1, Number(schema.minLength ?? 6)));
    }
  }
}

/**
 * Valid bodies of a schema, different enough that one of them usually gets past the checks that come
 * before an id's (fields that only go with some value of another): the full sample, the required
 * fields alone (with the fields on the `keep` paths), then each of those with another value of one enum
 * field: every value of those beside a kept field first, then the others taking turns. At most `max`.
 */
export function sampleVariants(document: Document, raw: Schema, keep: (string | number)[][] = [], max = 12): unknown[] {
  const full = sample(document, raw);
  const minimal = sample(document, raw, 0, { requiredOnly: true, keep });
  const variants = [full, minimal];
  const parent = (path: (string | number)[]) => JSON.stringify(path.slice(0, -1));
  const near = new Set(keep.map(parent));
  const choices = leaves(document, raw, full).map((leaf) => ({
    path: leaf.path,
    values: ((leaf.schema.enum as unknown[] | undefined) ?? []).filter((v) => v !== getAt(full, leaf.path)),
  }));
  const withEach = (path: (string | number)[], value: unknown) => [withValue(minimal, path, value), withValue(full, path, value)];
  // Every value of the enum fields beside a kept field first (triggerEvent beside triggerTagId): the likeliest to gate it.
  for (const choice of choices.filter((c) => near.has(parent(c.path))))
    for (const value of choice.values) variants.push(...withEach(choice.path, value));
  const others = choices.filter((c) => !near.has(parent(c.path)));
  for (let round = 0; others.some((c) => c.values.length > round); round++) {
    for (const choice of others) if (round < choice.values.length) variants.push(...withEach(choice.path, choice.values[round]));
  }
  const seen = new Set<string>();
  return variants.filter((v) => !seen.has(JSON.stringify(v)) && seen.add(JSON.stringify(v))).slice(0, max);
}

export interface Leaf {
  path: (string | number)[];
  schema: Schema;
}

/** Every scalar position of `value` (as sampled from `raw`) with its schema. */
export function leaves(document: Document, raw: Schema, value: unknown, path: (string | number)[] = [], depth = 0): Leaf[] {
  const schema = resolveSchema(document, raw);
  if (depth > 8) return [];
  if (Array.isArray(schema.allOf)) return (schema.allOf as Schema[]).flatMap((s) => leaves(document, s, value, path, depth + 1));
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return branches.flatMap((s) => leaves(document, s, value, path, depth + 1));
  if (Array.isArray(value))
    return value.flatMap((item, i) => leaves(document, (schema.items ?? {}) as Schema, item, [...path, i], depth + 1));
  if (value && typeof value === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    return Object.entries(value).flatMap(([k, v]) => (properties[k] ? leaves(document, properties[k]!, v, [...path, k], depth + 1) : []));
  }
  return typesOf(schema).length || schema.enum ? [{ path, schema }] : [];
}

const getAt = (value: unknown, path: (string | number)[]) =>
  path.reduce<unknown>((at, part) => (at as Record<string | number, unknown> | undefined)?.[part], value);

/** A copy of `base` with `value` at `path` (objects and arrays copied along the way). */
export function withValue(base: unknown, path: (string | number)[], value: unknown): unknown {
  if (!path.length) return value;
  // A missing container is made as the path needs it: an array for an index, an object for a key.
  const makeArray = Array.isArray(base) || (base == null && typeof path[0] === 'number');
  const copy = (makeArray ? [...((base as unknown[] | null | undefined) ?? [])] : { ...(base as object) }) as Record<
    string | number,
    unknown
  >;
  copy[path[0]!] = withValue(copy[path[0]!], path.slice(1), value);
  return copy;
}

/** A route's operation in the document, with its parameters resolved and its request body schemas by content type. */
export function operationInputs(document: Document, route: Pick<RouteTableEntry, 'method' | 'path'>) {
  const operation = document.paths?.[route.path]?.[route.method.toLowerCase()] as Schema | undefined;
  if (!operation) throw new Error(`${route.method} ${route.path} is not in the OpenAPI document`);
  const parameters = ((operation.parameters ?? []) as Schema[]).map((p) => resolveSchema(document, p));
  const content = ((operation.requestBody as Schema | undefined)?.content ?? {}) as Record<string, { schema?: Schema }>;
  const of = (where: string) =>
    parameters.filter((p) => p.in === where).map((p) => ({ name: String(p.name), schema: (p.schema ?? {}) as Schema }));
  return {
    operation,
    path: of('path'),
    query: of('query'),
    header: of('header'),
    jsonBody: content['application/json']?.schema,
    multipartBody: content['multipart/form-data']?.schema,
  };
}

/** Whether a field or parameter name is an id (id, ids, fooId, fooIds). */
export const isIdName = (name: string) => /^ids?$|[a-z0-9]Ids?$/.test(name);

/** Where an operation takes an id: a path or query parameter, or a body field (its path in the sampled body). */
export interface IdPosition {
  in: 'path' | 'query' | 'body';
  name: string;
  /** The body field's path in the sampled body (an array of ids: the array itself). */
  path: (string | number)[];
  /** Whether the position holds an array of ids (fooIds). */
  many: boolean;
  /** The resource the id belongs to when its name says only "id": the path segment before it, or the route's first. */
  resource: string | undefined;
}

/**
 * Every id an operation takes: path parameters declared as uuids, query parameters and JSON body
 * fields named like ids (at any depth of the sampled body, arrays of objects included).
 */
export function idPositions(document: Document, route: Pick<RouteTableEntry, 'method' | 'path'>): IdPosition[] {
  const inputs = operationInputs(document, route);
  const segments = route.path
    .replace(/^\/api\/v1/, '')
    .split('/')
    .filter(Boolean);
  const firstResource = segments.find((s) => !s.startsWith('{'));
  const positions: IdPosition[] = [];
  for (const p of inputs.path) {
    const schema = resolveSchema(document, p.schema);
    if (schema.format !== 'uuid' && !isIdName(p.name)) continue;
    const at = segments.indexOf(`{${p.name}}`);
    positions.push({ in: 'path', name: p.name, path: [], many: false, resource: segments[at - 1] });
  }
  for (const p of inputs.query) {
    if (isIdName(p.name)) positions.push({ in: 'query', name: p.name, path: [], many: p.name.endsWith('s'), resource: firstResource });
  }
  if (inputs.jsonBody) {
    const seen = new Set<string>();
    for (const leaf of leaves(document, inputs.jsonBody, sample(document, inputs.jsonBody))) {
      // The id field: the last object key on the path (an array of ids ends in an index).
      const keyAt = leaf.path.findLastIndex((part) => typeof part === 'string');
      const name = leaf.path[keyAt] as string | undefined;
      if (name === undefined || !isIdName(name)) continue;
      const path = leaf.path.slice(0, keyAt + 1);
      const label = path.join('.');
      if (seen.has(label)) continue;
      seen.add(label);
      positions.push({ in: 'body', name, path, many: keyAt < leaf.path.length - 1, resource: firstResource });
    }
  }
  return positions;
}
