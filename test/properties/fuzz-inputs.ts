// What the fuzz sends, as fast-check arbitraries built from an operation's OpenAPI declaration: values
// of each declared schema that are mostly valid and sometimes not (a field missing, a wrong type,
// boundary numbers and lengths, hostile strings, dates PostgreSQL refuses, extra fields), fully random
// JSON and broken JSON, multipart files of every kind, query strings, path and body ids drawn from
// both clinics' real rows, random ids and junk, and credentials of every kind.
//
// A generated request is plain data (strings, numbers, descriptors of files), so fast-check can print
// and shrink it; toRequest() turns it into the URL and RequestInit sent.
import fc from 'fast-check';
import type { RouteTableEntry } from '../../src/platform/http/route-table';
import { IMAGES, imageForm, NOT_IMAGES } from '../helpers/images';
import {
  type Document,
  HOSTILE_DATES,
  HOSTILE_NUMBERS,
  HOSTILE_PATH_IDS,
  HOSTILE_QUERY_VALUES,
  HOSTILE_STRINGS,
  isIdName,
  operationInputs,
  type Schema,
  sample,
  typesOf,
} from '../helpers/openapi-inputs';
import { resolveSchema } from '../helpers/strict-response';
import { type Credentials, properCredentials, type TwoClinics, tablesForId } from '../helpers/two-clinics';

/** Where ids come from: each clinic's row ids by table, and the shared catalogues' (see two-clinics.ts). */
export interface IdPools {
  own: Map<string, string[]>;
  foreign: Map<string, string[]>;
  shared: Map<string, string[]>;
  /** The caller's ids the fuzz must not send (its own keys and signed-in owner: see TwoClinics.reservedIds). */
  reserved: Set<string>;
}

export interface GeneratedRequest {
  credentials: { key?: string; token?: string; label: string };
  /** Raw path parameter values (already URL-encoded where they are hostile on purpose). */
  params: Record<string, string>;
  /** The query string without "?", raw. */
  query: string;
  body: GeneratedBody;
  headers: Record<string, string>;
}

export type GeneratedBody =
  | { kind: 'none' }
  | { kind: 'text'; text: string; contentType: string | null }
  | { kind: 'file'; field: string; file: keyof typeof FILES; filename: string; type: string; extra: Record<string, string> };

const FILES = {
  png: IMAGES.png,
  jpeg: IMAGES.jpeg,
  gif: IMAGES.gif,
  webp: IMAGES.webp,
  svg: NOT_IMAGES.svg,
  html: NOT_IMAGES.html,
  pdf: NOT_IMAGES.pdf,
  empty: NOT_IMAGES.empty,
  pngSignatureOnly: NOT_IMAGES.pngSignatureOnly,
  truncatedJpeg: NOT_IMAGES.truncatedJpeg,
  /** 5 MiB and a byte: one over the image limit. */
  oversized: new Uint8Array(5 * 1024 * 1024 + 1).fill(0x41),
};

/** Bodies no JSON parser accepts, or JSON that is not an object. */
const BROKEN_JSON = [
  '',
  '{',
  '{"a":',
  '[',
  'nul',
  '{"a":1,}',
  "{'a':1}",
  '\u0000',
  '{"a":"\\ud800"}',
  'null',
  '[]',
  '"text"',
  '42',
  'true',
];
/** One byte over the 1 MiB JSON limit, inside a valid JSON string. */
const OVERSIZED_JSON = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });

/** fc.oneof with weights written as relative numbers (fractions allowed; zero: left out). */
const weighted = <T>(...choices: [number, fc.Arbitrary<T>][]) =>
  fc.oneof(...choices.filter(([weight]) => weight > 0).map(([weight, arbitrary]) => ({ weight: Math.round(weight * 10), arbitrary })));

/**
 * encodeURIComponent, except that a lone surrogate (which has no UTF-8 form, so encodeURIComponent
 * throws) is sent as the three bytes UTF-8 would give it: invalid UTF-8, as a hostile client may send.
 */
export function encodeLoosely(value: string): string {
  return Array.from(value, (ch) => {
    const unit = ch.charCodeAt(0);
    if (ch.length > 1 || unit < 0xd800 || unit > 0xdfff) return encodeURIComponent(ch);
    return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
  }).join('');
}

/**
 * Builds the arbitraries of a route, reading its declaration from `document` and ids from `pools`.
 * Strict: requests meant to succeed (proper credentials, valid values within every declared limit, the
 * caller's own ids mostly), so the fuzz reaches the handlers' deeper paths; otherwise every value may
 * also be missing, of a wrong type, past a limit or hostile.
 */
export class RequestArbitraries {
  constructor(
    private readonly document: Document,
    private readonly pools: IdPools,
    private readonly world: TwoClinics,
    private readonly strict = false,
  ) {}

  /** Ids for a position named `name` (of `resource`): the caller's and the bystander's of its tables, any of either, random, junk. */
  ids(name: string, resource: string | undefined): fc.Arbitrary<string> {
    const tables = tablesForId(name, resource);
    const pick = (map: Map<string, string[]>, only?: string[]) =>
      [...map.entries()]
        .filter(([table]) => !only || only.includes(table))
        .flatMap(([, ids]) => ids.filter((id) => !this.pools.reserved.has(id)));
    const choice = (weight: number, ids: string[]): [number, fc.Arbitrary<string>] => [
      ids.length ? weight : 0,
      fc.constantFrom(...(ids.length ? ids : [''])),
    ];
    // The table the name spells first (products for /products/{id}) over the others it may mean (tenant_products...).
    const [best, ...others] = tables;
    const own = (only: string[]) => [...pick(this.pools.own, only), ...pick(this.pools.shared, only)];
    if (this.strict) {
      return weighted(choice(6, own(best ? [best] : [])), choice(2, own(others)), choice(2, pick(this.pools.foreign, tables)), [
        1,
        fc.uuid(),
      ]);
    }
    return weighted(
      choice(4, own(best ? [best] : [])),
      choice(2, own(others)),
      choice(4, pick(this.pools.foreign, tables)),
      choice(1, pick(this.pools.own)),
      choice(1, pick(this.pools.foreign)),
      [1, fc.uuid()],
      [1, fc.constantFrom(...HOSTILE_PATH_IDS.map(decodeURIComponentSafe), 'NOT-A-UUID', ' ')],
    );
  }

  /** A value for a schema: valid most of the time, otherwise null, a wrong type or a hostile value of its type. */
  value(raw: Schema, name: string | undefined, resource: string | undefined, depth = 0): fc.Arbitrary<unknown> {
    const schema = resolveSchema(this.document, raw);
    if (this.strict) return this.valid(schema, name, resource, depth);
    return weighted<unknown>(
      [14, this.valid(schema, name, resource, depth)],
      [1, fc.constant(null)],
      [1, fc.oneof(fc.boolean(), fc.integer(), fc.string({ maxLength: 8 }), fc.constant([]), fc.constant({}))],
      [1, this.hostile(schema)],
    );
  }

  private hostile(schema: Schema): fc.Arbitrary<unknown> {
    const types = typesOf(schema);
    const values: unknown[] = [...HOSTILE_STRINGS];
    if (types.includes('integer') || types.includes('number')) values.push(...HOSTILE_NUMBERS);
    if (schema.format === 'date-time' || schema.format === 'date') values.push(...HOSTILE_DATES);
    return fc.constantFrom(...values);
  }

  /**
   * A value meant to be valid (within the schema's types, enums, formats and limits, boundaries
   * included); the declared example too, for arrays and objects whose items' rules the schema cannot
   * say (webhook event names are checked by a refinement, not an enum).
   */
  valid(schema: Schema, name: string | undefined, resource: string | undefined, depth: number): fc.Arbitrary<unknown> {
    if (depth > 5) return fc.constant(sample(this.document, schema));
    if (schema.example !== undefined && typeof schema.example === 'object') {
      return weighted<unknown>([1, fc.constant(schema.example)], [2, this.generated(schema, name, resource, depth)]);
    }
    return this.generated(schema, name, resource, depth);
  }

  private generated(schema: Schema, name: string | undefined, resource: string | undefined, depth: number): fc.Arbitrary<unknown> {
    if (Array.isArray(schema.enum) && schema.enum.length) return fc.constantFrom(...(schema.enum as unknown[]));
    if ('const' in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.allOf)) {
      return fc
        .tuple(...(schema.allOf as Schema[]).map((s) => this.valid(resolveSchema(this.document, s), name, resource, depth + 1)))
        .map((parts) => Object.assign({}, ...parts.filter((p) => p && typeof p === 'object')));
    }
    const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (branches?.length) return fc.oneof(...branches.map((b) => this.valid(resolveSchema(this.document, b), name, resource, depth + 1)));
    const type = typesOf(schema)[0] ?? (schema.properties ? 'object' : schema.type === 'null' ? 'null' : undefined);
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'object':
        return this.object(schema, resource, depth);
      case 'array': {
        const items = resolveSchema(this.document, (schema.items ?? {}) as Schema);
        const min = Number(schema.minItems ?? 0);
        const max = Math.min(Number(schema.maxItems ?? 3), min + 3);
        const item = this.value(items, name?.replace(/s$/, ''), resource, depth + 1);
        if (this.strict) return fc.array(item, { minLength: Math.max(min, 1), maxLength: Math.max(min, max, 1) });
        return weighted<unknown>(
          [9, fc.array(item, { minLength: min, maxLength: Math.max(min, max) })],
          // One item past each limit.
          [1, fc.array(item, { minLength: Math.max(0, min - 1), maxLength: Math.max(0, min - 1) })],
          [typeof schema.maxItems === 'number' && schema.maxItems < 50 ? 1 : 0, fc.array(item, { minLength: Number(schema.maxItems) + 1 })],
        );
      }
      case 'integer':
      case 'number':
        return this.number(schema, type === 'integer');
      case 'boolean':
        return fc.boolean();
      case 'string':
        return this.string(schema, name, resource);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  /** An object of the schema's properties: required ones nearly always, optional ones half the time; now and then one missing or one extra. */
  private object(schema: Schema, resource: string | undefined, depth: number): fc.Arbitrary<unknown> {
    const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
    const required = ((schema.required ?? []) as string[]).filter((k) => properties.some(([name]) => name === k));
    const record = fc.record(Object.fromEntries(properties.map(([k, s]) => [k, this.value(s, k, resource, depth + 1)])), {
      requiredKeys: required,
    });
    if (this.strict) return record;
    return fc
      .tuple(
        record,
        weighted<string | undefined>(
          [9, fc.constant(undefined)],
          [required.length ? 1 : 0, fc.constantFrom(...(required.length ? required : ['']))],
        ),
        weighted<Record<string, unknown> | undefined>(
          [9, fc.constant(undefined)],
          [1, fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })],
        ),
      )
      .map(([value, missing, extra]) => {
        const out: Record<string, unknown> = { ...extra, ...(value as Record<string, unknown>) };
        if (missing !== undefined) delete out[missing];
        return out;
      });
  }

  private number(schema: Schema, integer: boolean): fc.Arbitrary<number> {
    const min =
      typeof schema.minimum === 'number'
        ? schema.minimum
        : typeof schema.exclusiveMinimum === 'number'
          ? schema.exclusiveMinimum
          : -1_000_000;
    const max =
      typeof schema.maximum === 'number'
        ? schema.maximum
        : typeof schema.exclusiveMaximum === 'number'
          ? schema.exclusiveMaximum
          : 1_000_000;
    if (this.strict) {
      // Within the limits (an exclusive one stepped over), small values mostly: counts, prices, amounts that a real caller sends.
      const step = integer ? 1 : 0.01;
      const lo = typeof schema.minimum === 'number' ? min : typeof schema.exclusiveMinimum === 'number' ? min + step : 0;
      const hi = typeof schema.maximum === 'number' ? max : typeof schema.exclusiveMaximum === 'number' ? max - step : 1_000;
      const within = (from: number, to: number) =>
        integer
          ? fc.integer({ min: Math.ceil(from), max: Math.floor(to) })
          : fc.integer({ min: Math.ceil(from * 100), max: Math.floor(to * 100) }).map((c) => c / 100);
      return weighted<number>([3, within(lo, Math.min(hi, lo + 100))], [1, within(lo, Math.min(hi, 1_000_000_000))]);
    }
    const lo = Math.max(min, -1_000_000_000);
    const hi = Math.min(max, 1_000_000_000);
    const inside = integer
      ? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) })
      : weighted<number>(
          [3, fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true })],
          // Money: cents, and a third decimal now and then.
          [3, fc.integer({ min: Math.ceil(lo * 100), max: Math.floor(hi * 100) }).map((c) => c / 100)],
          [1, fc.integer({ min: 0, max: 100_000 }).map((m) => m / 1000)],
        );
    const boundaries = [min, max, min - 1, max + 1, 0, -1].filter((n) => Number.isFinite(n));
    return weighted<number>([8, inside], [2, fc.constantFrom(...boundaries)]);
  }

  private string(schema: Schema, name: string | undefined, resource: string | undefined): fc.Arbitrary<string> {
    const example = sample(this.document, schema);
    const exampleArb = fc.constant(typeof example === 'string' ? example : String(example ?? ''));
    const minLength = Number(schema.minLength ?? 0);
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
    const lengths: [number, fc.Arbitrary<string>][] = [
      [maxLength !== undefined ? 1 : 0, fc.constant('x'.repeat((maxLength ?? 0) + 1))],
      [maxLength !== undefined ? 1 : 0, fc.constant('x'.repeat(maxLength ?? 0))],
      [minLength > 0 ? 1 : 0, fc.constant('x'.repeat(Math.max(0, minLength - 1)))],
    ];
    const free = fc.string({ minLength, maxLength: Math.min(maxLength ?? 40, 40) });
    const anyUnicode = fc.string({ unit: 'binary', maxLength: 12 });
    if (schema.format === 'uuid' || (name !== undefined && isIdName(name))) {
      return weighted([9, this.ids(name ?? 'id', resource)], [1, exampleArb]);
    }
    if (this.strict) return this.validString(schema, exampleArb, minLength, maxLength);
    switch (schema.format) {
      case 'date-time':
        return weighted(
          [
            6,
            fc
              .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
              .map((d) => d.toISOString()),
          ],
          [3, fc.integer({ min: -400, max: 400 }).map((days) => new Date(Date.now() + days * 86_400_000).toISOString())],
          [1, fc.constantFrom(...HOSTILE_DATES, '2030-01-01', '2030-02-30T00:00:00Z', '2030-01-01T00:00:00+05:30', 'yesterday')],
        );
      case 'date':
        return weighted(
          [
            6,
            fc
              .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
              .map((d) => d.toISOString().slice(0, 10)),
          ],
          [1, fc.constantFrom('2030-02-30', '0000-01-01', '2030-1-1', '20300101')],
        );
      case 'email':
        return weighted(
          [6, fc.emailAddress()],
          [2, exampleArb],
          [1, fc.constantFrom('no-at-sign', 'a@b', '@example.test', 'a@example.test\n')],
        );
      case 'uri':
        return weighted(
          [4, fc.webUrl()],
          [2, exampleArb],
          [
            1,
            fc.constantFrom(
              'javascript:alert(1)',
              'http://localhost/',
              'https://127.0.0.1/',
              'https://[::1]/',
              'ftp://example.test/',
              'not a url',
              '//example.test',
            ),
          ],
        );
    }
    const pattern = typeof schema.pattern === 'string' ? matching(schema.pattern) : undefined;
    return weighted<string>(
      [pattern ? 6 : 0, pattern ?? exampleArb],
      [5, exampleArb],
      [6, free],
      [1, anyUnicode],
      [1, fc.constantFrom(...HOSTILE_STRINGS, '<script>alert(1)</script>', "' or 1=1 --", '=HYPERLINK("x")', '  padded  ', '')],
      ...lengths,
    );
  }

  /** A string a real caller would send: the example, a value of the format or pattern, or plain words within the length limits. */
  private validString(schema: Schema, example: fc.Arbitrary<string>, minLength: number, maxLength: number | undefined) {
    const days = (from: number, to: number) => fc.integer({ min: from, max: to }).map((d) => new Date(Date.now() + d * 86_400_000));
    switch (schema.format) {
      case 'date-time':
        return weighted([3, days(1, 400).map((d) => d.toISOString())], [1, days(-400, -1).map((d) => d.toISOString())]);
      case 'date':
        return days(-400, 400).map((d) => d.toISOString().slice(0, 10));
      case 'email':
        return weighted([1, example], [2, fc.integer({ min: 1, max: 1_000_000 }).map((n) => `fuzz-${n}@example.test`)]);
      case 'uri':
        return weighted([2, example], [1, fc.integer({ min: 1, max: 1_000_000 }).map((n) => `https://fuzz.example.test/${n}`)]);
    }
    const pattern = typeof schema.pattern === 'string' ? matching(schema.pattern) : undefined;
    if (pattern) return weighted([1, example], [2, pattern]);
    const letters = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789');
    const words = fc.string({
      unit: letters,
      minLength: Math.max(1, minLength),
      maxLength: Math.max(1, minLength, Math.min(maxLength ?? 24, 24)),
    });
    return weighted([1, example], [2, words]);
  }

  /** A JSON body (mostly the declared schema's), random JSON, or JSON that does not parse, with a content type. */
  private textBody(schema: Schema | undefined, resource: string | undefined): fc.Arbitrary<GeneratedBody> {
    if (this.strict) {
      const text = schema ? this.value(schema, undefined, resource).map((v) => JSON.stringify(v) ?? 'null') : fc.constant('{}');
      return fc.record({ kind: fc.constant('text' as const), text, contentType: fc.constant('application/json') });
    }
    const contentType = weighted<string | null>(
      [16, fc.constant('application/json')],
      [1, fc.constantFrom('application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.api+json')],
      [1, fc.constantFrom(null, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml')],
    );
    const text = weighted<string>(
      [schema ? 14 : 0, schema ? this.value(schema, undefined, resource).map((v) => JSON.stringify(v) ?? 'null') : fc.constant('{}')],
      [2, fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))],
      [1, fc.constantFrom(...BROKEN_JSON)],
      [1, fc.string({ unit: 'binary', maxLength: 30 })],
      [schema ? 0.2 : 0, fc.constant(OVERSIZED_JSON)],
    );
    return fc.record({ kind: fc.constant('text' as const), text, contentType });
  }

  /** A multipart body: the declared file field (or another) with a real image, a file that is not one, or an oversized one. */
  private fileBody(schema: Schema): fc.Arbitrary<GeneratedBody> {
    const properties = (resolveSchema(this.document, schema).properties ?? {}) as Record<string, Schema>;
    const declared = Object.entries(properties).find(([, s]) => resolveSchema(this.document, s).format === 'binary')?.[0] ?? 'image';
    if (this.strict) {
      return fc.record({
        kind: fc.constant('file' as const),
        field: fc.constant(declared),
        file: fc.constantFrom<keyof typeof FILES>('png', 'jpeg', 'gif', 'webp'),
        filename: fc.constant('logo.png'),
        type: fc.constant('image/png'),
        extra: fc.constant({}),
      });
    }
    return fc.record({
      kind: fc.constant('file' as const),
      field: weighted([8, fc.constant(declared)], [1, fc.constantFrom('file', 'image', 'logo', '')]),
      file: weighted<keyof typeof FILES>(
        [6, fc.constantFrom('png', 'jpeg', 'gif', 'webp')],
        [3, fc.constantFrom('svg', 'html', 'pdf', 'empty', 'pngSignatureOnly', 'truncatedJpeg')],
        [0.3, fc.constant('oversized')],
      ),
      filename: weighted([4, fc.constantFrom('logo.png', 'image.jpg')], [1, fc.string({ unit: 'binary', maxLength: 20 })]),
      type: fc.constantFrom('image/png', 'application/octet-stream', 'text/html', 'image/svg+xml', ''),
      extra: fc.dictionary(fc.constantFrom('removeImage', 'name', 'extra'), fc.string({ maxLength: 8 }), { maxKeys: 1 }),
    });
  }

  body(route: RouteTableEntry): fc.Arbitrary<GeneratedBody> {
    if (route.method === 'GET') return fc.constant({ kind: 'none' as const });
    const inputs = operationInputs(this.document, route);
    const resource = firstResource(route.path);
    const none = fc.constant({ kind: 'none' as const });
    if (this.strict)
      return inputs.multipartBody ? this.fileBody(inputs.multipartBody) : inputs.jsonBody ? this.textBody(inputs.jsonBody, resource) : none;
    if (inputs.multipartBody) {
      return weighted<GeneratedBody>([12, this.fileBody(inputs.multipartBody)], [2, this.textBody(inputs.jsonBody, resource)], [1, none]);
    }
    if (inputs.jsonBody) return weighted<GeneratedBody>([20, this.textBody(inputs.jsonBody, resource)], [1, none]);
    // No declared body: nothing, mostly.
    return weighted<GeneratedBody>([8, none], [1, this.textBody(undefined, resource)]);
  }

  /** Path parameter values: ids as ids() gives them, enum values, the sample, or junk (raw, URL-encoded). */
  params(route: RouteTableEntry): fc.Arbitrary<Record<string, string>> {
    const inputs = operationInputs(this.document, route);
    const segments = route.path.split('/');
    const model: Record<string, fc.Arbitrary<string>> = {};
    for (const { name, schema: raw } of inputs.path) {
      const schema = resolveSchema(this.document, raw);
      const resource = segments[segments.indexOf(`{${name}}`) - 1];
      const valid =
        schema.format === 'uuid' || isIdName(name)
          ? this.ids(name, resource)
          : Array.isArray(schema.enum)
            ? fc.constantFrom(...(schema.enum as string[]))
            : weighted([3, fc.constant(String(sample(this.document, schema)))], [2, fc.string({ minLength: 1, maxLength: 40 })]);
      model[name] = this.strict
        ? valid.map(encodeLoosely)
        : weighted([9, valid.map(encodeLoosely)], [1, fc.constantFrom(...HOSTILE_PATH_IDS)]);
    }
    return fc.record(model);
  }

  /** A query string: declared parameters with values of their schema (as text), or hostile raw values, or junk. */
  query(route: RouteTableEntry): fc.Arbitrary<string> {
    const inputs = operationInputs(this.document, route);
    const resource = firstResource(route.path);
    const names = inputs.query.map((q) => q.name);
    const declared = fc
      .record(
        Object.fromEntries(
          inputs.query.map((q) => [
            q.name,
            this.value(q.schema, q.name, resource).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
          ]),
        ),
        { requiredKeys: [] },
      )
      .map((values) =>
        Object.entries(values)
          .map(([k, v]) => `${encodeLoosely(k)}=${encodeLoosely(v as string)}`)
          .join('&'),
      );
    // Strict: often no parameter at all (optional dates and periods that only go together are easy to get wrong).
    if (this.strict) return names.length ? fc.oneof(fc.constant(''), declared) : fc.constant('');
    return weighted<string>(
      [names.length ? 12 : 2, declared],
      [
        2,
        fc.tuple(fc.constantFrom(...names, 'search', 'page', 'x'), fc.constantFrom(...HOSTILE_QUERY_VALUES)).map(([k, v]) => `${k}=${v}`),
      ],
      [1, fc.constantFrom(...(names.length ? names : ['page'])).map((k) => `${k}=1&${k}=2`)],
      [1, fc.string({ unit: 'binary', maxLength: 20 }).map(encodeLoosely)],
      [names.length ? 0 : 6, fc.constant('')],
    );
  }

  /** The route's proper credentials mostly; otherwise none, junk, or another kind (publishable, read-only, sandbox, the token as a key). */
  credentials(route: RouteTableEntry): fc.Arbitrary<GeneratedRequest['credentials']> {
    const c: Credentials = this.world.caller.credentials;
    const access = route.access;
    const proper = properCredentials(this.world, access);
    const properChoices = [{ ...proper, label: 'proper' }];
    if (access.auth === 'key' && access.scope === 'read' && access.sandbox !== 'only')
      properChoices.push({ key: c.readOnly, label: 'read-only' });
    if (access.auth === 'key' && access.aiConnector) properChoices.push({ key: c.aiConnector, label: 'ai-connector' });
    if (access.auth === 'key' && access.publishable) properChoices.push({ key: c.publishable, label: 'publishable' });
    const others = [
      { label: 'none' },
      { key: 'svc_live_not_a_real_key', label: 'junk key' },
      { key: c.publishable, label: 'publishable' },
      { key: c.readOnly, label: 'read-only' },
      { key: c.sandbox, label: 'sandbox' },
      { key: c.secret, label: 'secret' },
      { token: c.token, label: 'token' },
      { token: 'not.a.jwt', label: 'junk token' },
    ];
    if (this.strict) return fc.constantFrom(...properChoices);
    return weighted([17, fc.constantFrom(...properChoices)], [3, fc.constantFrom(...others)]);
  }

  /** Declared header parameters (If-None-Match) with values of their schema, and a browser's Origin now and then. */
  headers(route: RouteTableEntry): fc.Arbitrary<Record<string, string>> {
    if (this.strict) return fc.constant({});
    const inputs = operationInputs(this.document, route);
    const model: Record<string, fc.Arbitrary<string>> = {
      origin: fc.constantFrom('https://brand.example.test', 'null', 'http://localhost:3000'),
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'image/*'),
    };
    for (const { name, schema } of inputs.header) {
      model[name.toLowerCase()] = weighted(
        [3, fc.string({ maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s))],
        [1, fc.constantFrom('*', '"x"', 'W/"x"', String(sample(this.document, schema)))],
      );
    }
    return fc
      .record(model, { requiredKeys: [] })
      .map((headers) => Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined)));
  }

  /** One generated request of the route. */
  request(route: RouteTableEntry): fc.Arbitrary<GeneratedRequest> {
    return fc.record({
      credentials: this.credentials(route),
      params: this.params(route),
      query: this.query(route),
      body: this.body(route),
      headers: this.headers(route),
    });
  }
}

/** A string arbitrary matching a declared pattern, when fast-check can build one from it. */
function matching(pattern: string): fc.Arbitrary<string> | undefined {
  try {
    return fc.stringMatching(new RegExp(pattern));
  } catch {
    return undefined;
  }
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const firstResource = (path: string) =>
  path
    .replace(/^\/api\/v1/, '')
    .split('/')
    .find((s) => s && !s.startsWith('{'));

/** The URL and RequestInit of a generated request. */
export function toRequest(route: RouteTableEntry, generated: GeneratedRequest): { url: string; init: RequestInit } {
  let path = route.path;
  for (const [name, value] of Object.entries(generated.params)) path = path.replace(`{${name}}`, value);
  const headers: Record<string, string> = { ...generated.headers };
  if (generated.credentials.key) headers['x-api-key'] = generated.credentials.key;
  if (generated.credentials.token) headers.authorization = `Bearer ${generated.credentials.token}`;
  let body: BodyInit | undefined;
  const b = generated.body;
  if (b.kind === 'text') {
    body = b.text;
    if (b.contentType) headers['content-type'] = b.contentType;
  } else if (b.kind === 'file') {
    body = imageForm(FILES[b.file], { field: b.field, filename: b.filename, type: b.type, extra: b.extra });
  }
  return { url: `${path}${generated.query ? `?${generated.query}` : ''}`, init: { method: route.method, headers, body } };
}

/** Requests of a route: two in five strict (meant to succeed), the rest free to be wrong anywhere. */
export function requestArbitrary(document: Document, pools: IdPools, world: TwoClinics) {
  const strict = new RequestArbitraries(document, pools, world, true);
  const loose = new RequestArbitraries(document, pools, world);
  return (route: RouteTableEntry) => weighted<GeneratedRequest>([2, strict.request(route)], [3, loose.request(route)]);
}
