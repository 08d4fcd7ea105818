/**
 * Media-level examples for the OpenAPI document (docs/api-conventions.md, "Examples"): every request
 * body, every success response and every error response gets `content[type].example`, composed here
 * when the document is built, from the schemas themselves:
 *
 * - a field's own `.openapi({ example })` where it declares one (ids excepted, see below);
 * - otherwise a value of its enum, its const, or a realistic default by format and name: ids as the
 *   API's UUIDs (one per kind of record, so `orderId` in a refund is the `id` of GET /orders/{id}'s
 *   example and of its path parameter), ISO timestamps with milliseconds as the API sends them,
 *   `*Cents` integers and dollar amounts (49.99) as docs/api-conventions.md says money is written,
 *   emails, URLs, names;
 * - a route may declare a (partial) media example of its own; it wins field by field, and what it
 *   leaves out is composed (a key set to undefined is left out of the example).
 *
 * Error examples use the envelope the error handler sends ({ success: false, message, code, ... }),
 * the code named first in the response's description (else the one the status is answered with), the
 * messages the code really sends, `errors` on a 400 VALIDATION_ERROR and `retryAfterSeconds` on 429
 * and 503. test/unit/openapi-examples.test.ts validates every example against its own schema.
 */

import { ERROR_MESSAGES } from '../values/error-messages';

type Schema = Record<string, unknown>;
type Media = { schema?: Schema; example?: unknown; examples?: unknown };
type Response = { description?: string; content?: Record<string, Media> };
type Parameter = { name?: string; in?: string; schema?: Schema; example?: unknown; $ref?: string };
type Operation = {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, Response>;
  'x-access'?: { auth?: string; scope?: string; gate?: string };
};
export interface ExampleDocument {
  paths?: Record<string, Record<string, Operation>>;
  /** What the API sends to webhook endpoints, by event name: their bodies get examples too. */
  webhooks?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

/** Adds the media-level examples to every operation of the document, in place. */
export function withExamples(document: ExampleDocument): void {
  const schemas = document.components?.schemas ?? {};
  const items = [
    ...Object.entries(document.paths ?? {}).map(([path, item]) => ({ path, item, owner: resourceOf(path) })),
    ...Object.entries(document.webhooks ?? {}).map(([event, item]) => ({ path: event, item, owner: 'event' })),
  ];
  for (const { path, item, owner } of items) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method) || !operation || typeof operation !== 'object') continue;
      const context: Context = { schemas, owner, seen: 0 };
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path' && parameter.schema?.format === 'uuid' && parameter.name) {
          parameter.schema = { ...parameter.schema, example: uuidFor(parameter.name === 'id' ? context.owner : parameter.name) };
        }
      }
      for (const media of jsonLike(operation.requestBody?.content)) {
        media.example = compose(media.schema, media.example, 'body', context, 0, false);
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        for (const media of jsonLike(response.content)) {
          media.example =
            Number(status) >= 400
              ? compose(
                  media.schema,
                  { ...errorExample(Number(status), response.description ?? '', path, operation, schemas), ...(media.example as object) },
                  'error',
                  context,
                  0,
                  true,
                )
              : compose(media.schema, successHint(media, schemas), 'body', context, 0, false);
        }
      }
    }
  }
}

/** A route's own success example, with the envelope's message the handlers send by default (ok()). */
function successHint(media: Media, schemas: Record<string, Schema>): unknown {
  const properties = (resolve(media.schema ?? {}, schemas).properties ?? {}) as Record<string, unknown>;
  if (!('message' in properties) || (media.example !== undefined && !isObject(media.example))) return media.example;
  return { message: 'OK', ...(media.example as object | undefined) };
}

/** The media types examples are written for: JSON and forms (a file part is shown as a placeholder string). */
function jsonLike(content: Record<string, Media> | undefined): Media[] {
  return Object.entries(content ?? {})
    .filter(([type, media]) => (/json/.test(type) || type === 'multipart/form-data') && media.schema && media.examples === undefined)
    .map(([, media]) => media);
}

interface Context {
  schemas: Record<string, Schema>;
  /** The kind of record the value being composed belongs to: seeds the `id` of that record. */
  owner: string;
  seen: number;
}

// ---------------------------------------------------------------------------------------------------
// Composition from a schema

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const typesOf = (schema: Schema): string[] => ([] as string[]).concat((schema.type as string | string[] | undefined) ?? []);

function resolve(schema: Schema, schemas: Record<string, Schema>): Schema {
  let current = schema;
  for (let i = 0; typeof current.$ref === 'string' && i < 16; i++) {
    const { $ref, ...siblings } = current;
    current = { ...(schemas[($ref as string).replace('#/components/schemas/', '')] ?? {}), ...siblings };
  }
  return current;
}

const allowsNull = (schema: Schema, schemas: Record<string, Schema>): boolean => {
  const s = resolve(schema, schemas);
  if (typesOf(s).includes('null') || s.nullable === true) return true;
  const branches = [...((s.anyOf as Schema[]) ?? []), ...((s.oneOf as Schema[]) ?? [])];
  return branches.some((b) => allowsNull(b, schemas));
};

/**
 * A value for `raw`, following `hint` (a route's own example, or the error envelope): a scalar or null
 * hint is taken as is, an object hint field by field. requiredOnly: objects get their required
 * properties and the hinted ones only (error envelopes: `errors` only where validation sends it).
 */
export function compose(
  raw: Schema | undefined,
  hint: unknown,
  key: string,
  context: Context,
  depth: number,
  requiredOnly: boolean,
): unknown {
  if (!raw || depth > 12) return hint ?? null;
  const { schemas } = context;
  const schema = resolve(raw, schemas);
  if (hint === null || (hint !== undefined && !isObject(hint) && !Array.isArray(hint))) return hint;
  if (hint === undefined && NOT_YET.test(key) && allowsNull(schema, schemas)) return null;

  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as Schema[]).map((member) => compose(member, hint, key, context, depth + 1, requiredOnly));
    if (parts.every(isObject)) return Object.assign({}, ...parts);
    return parts.find((part) => part !== undefined && part !== null) ?? null;
  }
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(branches) && branches.length) {
    return compose(pickBranch(branches, hint, schemas), hint, key, context, depth + 1, requiredOnly);
  }
  if (hint === undefined) {
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum.find((v) => v !== null) ?? null;
    const own = schema.example ?? (Array.isArray(schema.examples) ? schema.examples[0] : undefined);
    // Ids are composed (one per kind of record) rather than the one placeholder uuid fields declare.
    if (own !== undefined && schema.format !== 'uuid') return structuredClone(own);
  }
  const types = typesOf(schema).filter((t) => t !== 'null');
  const type = types[0] ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined);
  switch (type) {
    case 'object':
      return composeObject(schema, isObject(hint) ? hint : undefined, key, context, depth, requiredOnly);
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      // A list's data holds the operation's records; any other array, records of the kind its name says.
      const itemKey = key === 'data' ? 'data' : singular(key);
      const inner = key === 'data' ? context : { ...context, owner: itemKey };
      if (Array.isArray(hint)) return hint.map((h) => compose(items, h, itemKey, inner, depth + 1, requiredOnly));
      const length = Math.max(1, Number(schema.minItems ?? 1));
      return Array.from({ length }, () => compose(items, undefined, itemKey, inner, depth + 1, requiredOnly));
    }
    case 'integer':
    case 'number':
      return numberFor(key, schema, type === 'integer');
    case 'boolean':
      return booleanFor(key);
    case 'string':
      return stringFor(key, schema, context);
    default:
      // An unconstrained value ({}): a string says the least wrong thing.
      return types.length === 0 && !allowsNull(schema, schemas) ? stringFor(key, schema, context) : null;
  }
}

/**
 * Nullable fields of things that have not happened to a record in its first state (a removal, a
 * failure, a completion): null, as the first value of its status enum is shown.
 */
const NOT_YET =
  /^(deleted|removed|revoked|cancell?ed|archived|failed|refunded|disputed|rejected|declined|closed|ended|paused|suspended|blocked|last_?error|error|failure|rolled_?to|completed|abandoned|verified|activated|approved|denied|accepted|released|decided|resolved|shipped|delivered)/i;

/** The branch of an anyOf/oneOf to compose: the one whose const/enum fields the hint matches, else the first that is not null. */
function pickBranch(branches: Schema[], hint: unknown, schemas: Record<string, Schema>): Schema {
  const resolved = branches.map((b) => ({ raw: b, schema: resolve(b, schemas) }));
  if (isObject(hint)) {
    const matching = resolved.find(({ schema }) => {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      return Object.entries(hint).some(([k, v]) => {
        const p = properties[k] ? resolve(properties[k], schemas) : undefined;
        return p && (('const' in p && p.const === v) || (Array.isArray(p.enum) && p.enum.includes(v)));
      });
    });
    if (matching) return matching.raw;
  }
  return (resolved.find(({ schema }) => !(typesOf(schema).length === 1 && typesOf(schema)[0] === 'null')) ?? resolved[0]!).raw;
}

function composeObject(
  schema: Schema,
  hint: Record<string, unknown> | undefined,
  key: string,
  context: Context,
  depth: number,
  requiredOnly: boolean,
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const out: Record<string, unknown> = {};
  // A record's `id` belongs to the record the key names (data: the operation's resource).
  const owner = key === 'data' || key === 'body' || key === 'error' ? context.owner : singular(key);
  const inner = { ...context, owner };
  for (const [name, property] of Object.entries(properties)) {
    if (hint && name in hint) {
      if (hint[name] !== undefined) out[name] = compose(property, hint[name], name, inner, depth + 1, requiredOnly);
    } else if (!requiredOnly || required.has(name)) {
      out[name] = compose(property, undefined, name, inner, depth + 1, requiredOnly);
    }
  }
  const additional = schema.additionalProperties;
  for (const [name, value] of Object.entries(hint ?? {})) {
    if (name in properties || value === undefined) continue;
    out[name] = isObject(additional) ? compose(additional, value, name, inner, depth + 1, requiredOnly) : value;
  }
  // A map (no declared properties): one entry.
  const entry = MAP_ENTRIES.find(([pattern]) => pattern.test(key));
  if (
    !Object.keys(properties).length &&
    !hint &&
    entry &&
    (additional === true || (isObject(additional) && !Object.keys(additional).length))
  ) {
    out[entry[1]] = structuredClone(entry[2]);
  } else if (!Object.keys(properties).length && isObject(additional) && !hint) {
    out[mapKeyFor(key)] = compose(additional, undefined, singular(key), inner, depth + 1, requiredOnly);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Scalars by format and name

/** A stable UUID (version 4 layout) per kind of record: the same kind gets the same id everywhere. */
export function uuidFor(seed: string): string {
  const name = seed
    .replace(/Ids?$/, '')
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase();
  let hex = '';
  for (let round = 0; hex.length < 32; round++) {
    let h = 0x811c9dc5 ^ round;
    for (const char of `${name}#${round}`) h = Math.imul(h ^ char.charCodeAt(0), 0x01000193) >>> 0;
    hex += h.toString(16).padStart(8, '0');
  }
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The record an operation is about: the last plural path segment (or parameter name), singular. */
function resourceOf(path: string): string {
  const segments = path.split('/').filter((s) => s && s !== 'api' && s !== 'v1');
  const last = [...segments].reverse().find((s) => /^\{.+Id\}$/.test(s) || (/s$/.test(s) && !s.startsWith('{')));
  if (!last) return segments.find((s) => !s.startsWith('{')) ?? 'record';
  return last.startsWith('{') ? last.slice(1, -1).replace(/Id$/, '') : singular(last);
}

function singular(word: string): string {
  const camel = word.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  if (/(us|ss|sms|is)$/i.test(camel)) return camel;
  if (/ies$/.test(camel)) return `${camel.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/.test(camel)) return camel.slice(0, -2);
  if (/[^s]s$/.test(camel)) return camel.slice(0, -1);
  return camel;
}

const words = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
    .trim();
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const mapKeyFor = (key: string) => (/price|amount|cents|count|total/i.test(key) ? 'semaglutide' : 'example');

/** One entry of a map whose values are unconstrained (page content, event metadata), by the map's name. */
const MAP_ENTRIES: [RegExp, string, unknown][] = [
  [/content/i, 'sections', [{ type: 'hero', title: 'Doctor-prescribed weight loss' }]],
  [/structure/i, 'steps', [{ title: 'About you', fields: ['dateOfBirth', 'heightInches', 'weightPounds'] }]],
  [/metadata/i, 'source', 'checkout'],
];

/** Timestamps as the API sends them (toISOString): created before updated, expiries in the future. */
function timestampFor(key: string): string {
  if (
    /^(expires|ends?|until|due|valid|next|scheduled|retry|cancel|renew|period_?end|trialEnd)/i.test(key) ||
    /End|Until|Expires|Due/.test(key)
  ) {
    // Far enough ahead that a request sending it is not refused as past (an API key's expiresAt).
    return '2030-01-01T00:00:00.000Z';
  }
  if (/^created|^requested|^submitted|^invited|^started|^issued|Start/i.test(key)) return '2026-03-02T14:05:09.000Z';
  return '2026-03-03T09:30:00.000Z';
}

function dateFor(key: string): string {
  if (/end|until|to$|due|expir/i.test(key)) return '2026-03-31';
  return '2026-03-01';
}

const NAMES: [RegExp, string][] = [
  [/tracking_?url/i, 'https://www.ups.com/track?tracknum=1Z999AA10123456784'],
  [/^api_?key$/i, 'svc_live_Ab3dE9xZq7Lm2Pn5Rt8Vw1Yb4Cd6Fg9Hj3Kk5Mn7Pq0sT2vX4zB1nM'],
  [/^categor(y|ies)$/i, 'Weight loss'],
  [/label$/i, 'Programs'],
  [/^(seo_?title|hero_?title)$/i, 'Demo Clinic | Doctor-prescribed weight loss'],
  [/subtitle$/i, 'Doctor-prescribed treatment, delivered to your door.'],
  [/footer_?text$/i, '© 2026 Demo Clinic'],
  [/button_?text$/i, 'Get started'],
  [/logo|image|photo|avatar|icon/i, 'https://cdn.example.com/demo-clinic/logo.png'],
  [/canonical/i, 'https://demo-clinic.example.com'],
  [/^(facebook|instagram|tiktok|youtube|linkedin|pinterest|threads)$/i, 'https://www.instagram.com/democlinic'],
  [/^x$|^twitter$/i, 'https://x.com/democlinic'],
  [/^(company|account|legal|business)_?name$|doing_?business_?as/i, 'Demo Clinic LLC'],
  [/^(brand|sender|clinic|custom)_?name$/i, 'Demo Clinic'],
  [/^(author|reviewer)_?name$/i, 'Jane Doe'],
  [/^business_?type$/i, 'llc'],
  [/^order_?status$/i, 'shipped'],
  [/tracking_?number/i, '1Z999AA10123456784'],
  [/^carrier$/i, 'UPS'],
  [/last_?four$/i, '6789'],
  [/^ein$/i, '12-3456789'],
  [/^state_?of_?registration$/i, 'DE'],
  [/start_?date$/i, '2026-03-01'],
  [/end_?date$/i, '2026-03-31'],
  [/payment_?method$/i, 'card'],
  [/referral_?code$/i, 'JANE10'],
  [/contact_?method$/i, 'email'],
  [/^from_?address$/i, 'care@demo-clinic.com'],
  [/^reply_?to$/i, 'support@demo-clinic.com'],
  [/^from_?number$/i, '+14155550123'],
  [/custom_?domain$/i, 'shop.demo-clinic.com'],
  [/payment_?error|failure_?(message|reason)/i, 'Your card was declined.'],
  [/^(detail|requirement|problems?|rationale|hint)$/i, 'The signer’s identity is not verified yet.'],

  [/^first_?name$/i, 'Jane'],
  [/^last_?name$/i, 'Doe'],
  [
    /^(full_?name|display_?name|patient_?name|customer_?name|contact_?name|signer_?name|typed_?name|legal_?name|user_?name|member_?name|invitee_?name|owner_?name)$/i,
    'Jane Doe',
  ],
  [/email/i, 'jane.doe@example.com'],
  [/phone|mobile/i, '+14155550123'],
  [/^(sub)?domain$|hostname/i, 'shop.demo-clinic.com'],
  [/slug$/i, 'weight-loss'],
  [/url$|^website$|link$|href$/i, 'https://demo-clinic.example.com'],
  [/currency/i, 'usd'],
  [/country/i, 'US'],
  [/state$/i, 'CA'],
  [/city$/i, 'San Francisco'],
  [/zip|postal/i, '94105'],
  [/line_?1$|street|^address$/i, '100 Market Street'],
  [/line_?2$/i, 'Suite 400'],
  [/timezone|time_?zone/i, 'America/New_York'],
  [/locale|language/i, 'en-US'],
  [/colou?r$/i, '#2563EB'],
  [/^order_?number$/i, 'DEM-1000042'],
  [/^ip(_?address)?$/i, '203.0.113.7'],
  [/user_?agent/i, 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5)'],
  [/token$/i, 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl'],
  [/secret$/i, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  [/^(key_?)?prefix$/i, 'svc_live_3f9a'],
  [/^code$/i, 'SPRING20'],
  [/sku$/i, 'SEMA-2.5'],
  [/dosage|strength|dose$/i, '2.5 mg'],
  [/^(type|kind)$/i, 'standard'],
  [/^(title|subject|headline)$/i, 'Welcome to Demo Clinic'],
  [/description|summary/i, 'Weekly injections with a monthly check-in.'],
  [/reason/i, 'Requested by the patient'],
  [/notes$/i, 'Prefers to be paid by bank transfer.'],
  [/custom_?subject$/i, 'Your next dose ships tomorrow'],
  [/custom_?text$/i, 'Hi {{firstName}}, your next dose ships tomorrow.'],
  [/pharmacy_?provider$/i, 'empower'],
  [/^(body|content|text|html|notes?|comment|message|preview|excerpt)$/i, 'Thanks for choosing Demo Clinic. Your order is on its way.'],
  [/^(event|event_?type)$/i, 'order.created'],
];

/** Ids of the payment processor's and other providers' records, by what they are (Stripe's prefixes). */
const PROCESSOR_IDS: [RegExp, string][] = [
  [/(processor|stripe).*refund/i, 're_3PqT9cL2mWvX1a0d1kE4Rz2b'],
  [/(processor|stripe).*(transfer|payout)/i, 'tr_1PqT9cL2mWvX1a0dT8yU3kLm'],
  [/(processor|stripe).*(payment_?intent)/i, 'pi_3PqT9cL2mWvX1a0d1Hx8Qw7e'],
  [/(processor|stripe).*(charge|payment)/i, 'ch_3PqT9cL2mWvX1a0d1kE4Rz2b'],
  [/(processor|stripe).*customer/i, 'cus_Qh3kT9cL2mWvX1'],
  [/(processor|stripe).*subscription/i, 'sub_1PqT9cL2mWvX1a0dZ4cV8bNm'],
  [/(processor|stripe).*invoice/i, 'in_1PqT9cL2mWvX1a0dJ6tR2yUi'],
  [/(processor|stripe).*(account|connect)/i, 'acct_1PqT9cL2mWvX1a0d'],
  [/(processor|stripe).*(session|checkout)/i, 'cs_test_a1B2c3D4e5F6g7H8i9J0'],
  [/(processor|stripe|external|provider).*Id$/i, 'ch_3PqT9cL2mWvX1a0d1kE4Rz2b'],
];

/** A status with no declared values, by the record it belongs to. */
const STATUSES: [RegExp, string][] = [
  [/payment|refund|charge/i, 'succeeded'],
  [/shipping|shipment/i, 'shipped'],
  [/domain/i, 'active'],
];

/** A record's name by what kind of record it is (matched on the end of the owner's name, then anywhere in it). */
function nameOf(owner: string): string {
  const exact = OWNER_NAMES[owner];
  if (exact) return exact;
  for (const [pattern, name] of OWNER_PATTERNS) if (pattern.test(owner)) return name;
  return capitalized(words(owner));
}

const OWNER_PATTERNS: [RegExp, string][] = [
  [/plan$/i, 'Growth'],
  [/key$/i, 'Production server'],
  [/form|structure/i, 'Weight loss intake'],
  [/treatment/i, 'Weight loss'],
  [/protocol/i, 'Semaglutide standard titration'],
  [/program/i, 'Weight Loss Program'],
  [/product|catalog/i, 'Semaglutide 2.5 mg'],
  [/brand|clinic/i, 'Demo Clinic'],
  [/step/i, 'Day 1 welcome'],
];

const OWNER_NAMES: Record<string, string> = {
  clinic: 'Demo Clinic',
  program: 'Weight Loss Program',
  product: 'Semaglutide 2.5 mg',
  globalProduct: 'Semaglutide 2.5 mg',
  tenantProduct: 'Semaglutide 2.5 mg',
  pharmacy: 'Harbor Compounding Pharmacy',
  coupon: 'Spring sale',
  tag: 'VIP',
  plan: 'Growth',
  key: 'Production server',
  apiKey: 'Production server',
  endpoint: 'Order sync',
  webhook: 'Order sync',
  template: 'Welcome email',
  messageTemplate: 'Welcome email',
  sequence: 'Onboarding sequence',
  form: 'Weight loss intake',
  page: 'About us',
  tier: 'Gold',
  affiliate: 'Jane Doe',
  member: 'Jane Doe',
  contact: 'Jane Doe',
  patient: 'Jane Doe',
  customer: 'Jane Doe',
  user: 'Jane Doe',
};

function stringFor(key: string, schema: Schema, context: Context): string {
  const value = stringValue(key, schema, context);
  const min = Number(schema.minLength ?? 0);
  const max = Number(schema.maxLength ?? Number.POSITIVE_INFINITY);
  let fitted = value.length < min ? value.padEnd(min, 'x') : value;
  if (fitted.length > max) fitted = fitted.slice(0, max);
  return fitted;
}

function stringValue(key: string, schema: Schema, context: Context): string {
  switch (schema.format) {
    case 'uuid':
      return uuidFor(key === 'id' ? context.owner : key);
    case 'date-time':
      return timestampFor(key);
    case 'date':
      return dateFor(key);
    case 'email':
      return 'jane.doe@example.com';
    case 'uri':
    case 'url':
      return /logo|image|photo|avatar|icon/i.test(key) ? 'https://cdn.example.com/demo-clinic/logo.png' : 'https://demo-clinic.example.com';
    case 'binary':
      return '(file contents)';
    case 'byte':
      return 'aGVsbG8=';
    case 'hostname':
      return 'shop.demo-clinic.com';
    case 'ipv4':
      return '203.0.113.7';
  }
  const processorId = PROCESSOR_IDS.find(([pattern]) => pattern.test(key));
  if (processorId) return processorId[1];
  if (key === 'status') return STATUSES.find(([pattern]) => pattern.test(context.owner))?.[1] ?? 'active';
  if (/(^|[a-z])Ids?$|^id$/.test(key)) return uuidFor(key === 'id' ? context.owner : key);
  if (/(^|[a-z])At$/.test(key)) return timestampFor(key);
  if (key === 'state' && /program/i.test(context.owner)) return 'live';
  if (key === 'label' && /tier/i.test(context.owner)) return 'Gold';
  if (key === 'url' && /webhook|endpoint/i.test(context.owner)) return 'https://example.com/webhooks/service';
  if (context.owner === 'dnsRecord' && key === 'name') return '_acme-challenge.shop.demo-clinic.com';
  if (context.owner === 'dnsRecord' && key === 'value') return 'dcv-3f9a2c71b8e04d5a';
  for (const [pattern, value] of NAMES) if (pattern.test(key)) return value;
  if (/name$/i.test(key)) return nameOf(key.replace(/_?name$/i, '') || context.owner);
  return capitalized(`${words(key)} example`);
}

/**
 * Dollar amounts by name, consistent with one another as on an order: subtotal 199.00 - discount 20.00
 * = total 179.00, of which pharmacy 45.00, doctor 30.00, processor 5.49 and platform 8.95 leave the
 * brand 89.56 (what a refund debits the clinic).
 */
const MONEY: [RegExp, number][] = [
  [/^(unit_?price|price|monthly_?price|list_?price|retail_?price|subtotal|subtotal_?amount|total_?price)$/i, 199],
  [/discount/i, 20],
  [/tax|shipping/i, 0],
  [/pharmacy|wholesale|cost/i, 45],
  [/doctor|physician|consult/i, 30],
  [/processor/i, 5.49],
  [/platform/i, 8.95],
  [/brand_?amount|clinic_?debit|net|earning|commission/i, 89.56],
  [/balance|available|pending|payout|withdraw/i, 1250],
  [/min_?order/i, 50],
  [/^(amount|total|total_?amount|refund|refunded|gross|paid)|total$/i, 179],
  [/price|amount|fee|value|revenue|credit|debit/i, 49.99],
];

function numberFor(key: string, schema: Schema, integer: boolean): number {
  let value: number;
  if (/cents$/i.test(key)) value = Math.round((MONEY.find(([pattern]) => pattern.test(key.replace(/cents$/i, '')))?.[1] ?? 49.99) * 100);
  else if (/percent|rate$|ratio|share/i.test(key)) value = 10;
  else if (/^page$/.test(key)) value = 1;
  else if (/^(limit|pageSize|perPage)$/.test(key)) value = 25;
  else if (/^(total|totalPages|count)$|Count$|^quantity$|^position$|^sort/.test(key) && integer) value = 1;
  else if (/per_?min/i.test(key)) value = 100;
  else if (/seconds$/i.test(key)) value = 86_400;
  else if (/minutes$/i.test(key)) value = 30;
  else if (/hours$/i.test(key)) value = 24;
  else if (/days$/i.test(key)) value = 30;
  else if (/^year$/i.test(key)) value = 2026;
  else if (/^month$/i.test(key)) value = 3;
  else if (!integer) {
    const dollars = MONEY.find(([pattern]) => pattern.test(key))?.[1];
    value = dollars === undefined ? 1 : dollars;
  } else value = 1;
  if (integer) value = Math.round(value);
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (minimum !== undefined && value < minimum) value = minimum;
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
    value = schema.exclusiveMinimum + (integer ? 1 : 0.01);
  if (maximum !== undefined && value > maximum) value = maximum;
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
    value = schema.exclusiveMaximum - (integer ? 1 : 0.01);
  if (typeof schema.multipleOf === 'number') value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  return value;
}

const booleanFor = (key: string) =>
  !/^(is|has)?_?(deleted|archived|revoked|disabled|blocked|locked|test|sandbox|overdue|expired|failed|cancell?ed|flagged|needs)/i.test(key);

// ---------------------------------------------------------------------------------------------------
// Error envelopes

/**
 * The message each code's example shows: the catalogue's message (error-messages.ts, the text the code
 * sends), with example values where it takes some.
 */
const M = ERROR_MESSAGES;
const MESSAGES: Record<string, string> = {
  UNAUTHORIZED: M.UNAUTHORIZED.apiKey,
  FORBIDDEN: M.FORBIDDEN.brandAdminsOnly,
  NOT_FOUND: 'Resource not found',
  INVALID_JSON: M.INVALID_JSON,
  UNSUPPORTED_MEDIA_TYPE: M.UNSUPPORTED_MEDIA_TYPE,
  PAYLOAD_TOO_LARGE: M.PAYLOAD_TOO_LARGE.body(1_048_576),
  RATE_LIMIT_EXCEEDED: M.RATE_LIMIT_EXCEEDED(12),
  KEY_KIND_NOT_ALLOWED: M.KEY_KIND_NOT_ALLOWED.publishable,
  SANDBOX_NOT_ALLOWED: M.SANDBOX_NOT_ALLOWED,
  INSUFFICIENT_SCOPE: M.INSUFFICIENT_SCOPE,
  AFFILIATES_TIER_REQUIRED: M.AFFILIATES_TIER_REQUIRED,
  CRM_TIER_REQUIRED: M.CRM_TIER_REQUIRED,
  SERVICE_UNAVAILABLE: M.SERVICE_UNAVAILABLE.database(5),
  IDEMPOTENCY_KEY_IN_USE: M.IDEMPOTENCY_KEY_IN_USE,
  IDEMPOTENCY_KEY_REUSED: M.IDEMPOTENCY_KEY_REUSED,
  ALREADY_REFUNDED: M.ALREADY_REFUNDED,
  ORDER_NOT_PAID: M.ORDER_NOT_PAID,
  REFUND_REQUEST_ALREADY_DECIDED: M.REFUND_REQUEST_ALREADY_DECIDED('approved'),
  PAYOUT_ACCOUNT_NOT_CONNECTED: M.PAYOUT_ACCOUNT_NOT_CONNECTED,
  ACTIVE_KEY_LIMIT_REACHED: M.ACTIVE_KEY_LIMIT_REACHED(5),
  WEBHOOK_ENDPOINT_LIMIT_REACHED: M.WEBHOOK_ENDPOINT_LIMIT_REACHED(20),
  DNS_RESOLVER_UNAVAILABLE: M.DNS_RESOLVER_UNAVAILABLE('cloudflare-doh: no answer in time (A hooks.example.com)'),
  SUBSCRIPTION_SYNC_REQUIRED: M.SUBSCRIPTION_SYNC_REQUIRED.outOfDate,
  SMS_NOT_CONFIGURED: M.SMS_NOT_CONFIGURED.none,
  SMS_NUMBER_NOT_ACTIVE: M.SMS_NUMBER_NOT_ACTIVE.none,
  NAME_UNCHANGED: M.NAME_UNCHANGED,
  PLAN_INVITE_ONLY: M.PLAN_INVITE_ONLY.change('enterprise'),
  COPILOT_UNAVAILABLE: M.COPILOT_UNAVAILABLE,
  WINDDOWN_CONSENT_REQUIRED: M.WINDDOWN_CONSENT_REQUIRED(12),
  PAYMENT_PROCESSOR_ERROR: M.PAYMENT_PROCESSOR_ERROR('Your card was declined.'),
  SANDBOX_KEY_REQUIRED: M.SANDBOX_KEY_REQUIRED('/api/v1/sandbox/go-live'),
  PLAN_LIMIT_REACHED: M.PLAN_LIMIT_REACHED(10, 12),
  PLAN_PRICE_CAP_EXCEEDED: M.PLAN_PRICE_CAP_EXCEEDED('A selected product is priced', 50_000),
  CUSTOM_DOMAIN_EXISTS: M.CUSTOM_DOMAIN_EXISTS('shop.demo-clinic.com', 'active'),
  CUSTOM_DOMAIN_NOT_VERIFIED: M.CUSTOM_DOMAIN_NOT_VERIFIED('shop.demo-clinic.com'),
  EMAIL_DOMAIN_EXISTS: M.EMAIL_DOMAIN_EXISTS('mail.demo-clinic.com', 'verified'),
};

/** The fields beside code and message an error sends (ApiError's extra), consistent with MESSAGES. */
const EXTRAS: Record<string, Record<string, unknown>> = {
  WINDDOWN_CONSENT_REQUIRED: { data: { patients: 12 } },
  PLAN_LIMIT_REACHED: { data: { limit: 10, requested: 12 } },
  PLAN_PRICE_CAP_EXCEEDED: { data: { maxPriceCents: 50_000, tenantProductIds: [uuidFor('tenantProduct')] } },
};

/** The request id every error example shows (the X-Request-Id of the answer). */
const EXAMPLE_REQUEST_ID = '3f1c2a9e-7b4d-4e8a-9c21-5d6e7f8a9b0c';

const DEFAULT_CODES: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'IDEMPOTENCY_KEY_REUSED',
  429: 'RATE_LIMIT_EXCEEDED',
  500: 'INTERNAL_ERROR',
  502: 'PAYMENT_PROCESSOR_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

const GATE_CODES: Record<string, string> = { affiliates: 'AFFILIATES_TIER_REQUIRED', crm_connect: 'CRM_TIER_REQUIRED' };

/** The machine codes a description names, in order (UPPER_SNAKE words, and the one-word codes). */
export function codesIn(description: string): string[] {
  return [...description.matchAll(/\b(?:[A-Z]+(?:_[A-Z0-9]+)+|CONFLICT|UNAUTHORIZED|FORBIDDEN)\b/g)].map((m) => m[0]);
}

/** The error envelope an operation answers with for a status: code, message and the fields that go with them. */
function errorExample(
  status: number,
  description: string,
  path: string,
  operation: Operation,
  schemas: Record<string, Schema>,
): Record<string, unknown> {
  const access = operation['x-access'] ?? {};
  const named = codesIn(description);
  let code = named[0] ?? DEFAULT_CODES[status] ?? 'INTERNAL_ERROR';
  if (status === 403 && access.auth === 'key') {
    const standard = ['KEY_KIND_NOT_ALLOWED', 'SANDBOX_NOT_ALLOWED', 'INSUFFICIENT_SCOPE'];
    const own = named.find((c) => !standard.includes(c));
    code = (access.gate && GATE_CODES[access.gate]) || own || (access.scope === 'write' ? 'INSUFFICIENT_SCOPE' : 'KEY_KIND_NOT_ALLOWED');
  }
  const example: Record<string, unknown> = {
    success: false,
    code,
    message: messageFor(code, status, description, path, access),
    requestId: EXAMPLE_REQUEST_ID,
    ...EXTRAS[code],
  };
  if (code === 'VALIDATION_ERROR') {
    const problem = validationProblem(operation, schemas);
    example.errors = [problem];
    example.message = `Invalid ${problem.field.split('.')[0]}: ${problem.field}: ${problem.message}`;
  }
  if (status === 429) example.retryAfterSeconds = 12;
  if (
    status === 503 &&
    (code === 'SERVICE_UNAVAILABLE' || /_UNAVAILABLE$/.test(code)) &&
    !/COPILOT|configured on this deployment|no OAuth/.test(`${code} ${description}`)
  ) {
    example.retryAfterSeconds = 5;
  }
  return example;
}

function messageFor(code: string, status: number, description: string, path: string, access: { auth?: string }): string {
  if (code === 'NOT_FOUND') return `${notFoundResource(description, path)} not found`;
  if (code === 'PAYLOAD_TOO_LARGE' && /over the limit/.test(description)) return MESSAGES.PAYLOAD_TOO_LARGE!;
  // The other messages of codes that have several, by what the description says the error is.
  if (code === 'SERVICE_UNAVAILABLE' && /key caches/.test(description)) return M.SERVICE_UNAVAILABLE.keyCaches;
  if (code === 'SERVICE_UNAVAILABLE' && /OAuth app/.test(description)) return M.SERVICE_UNAVAILABLE.oauthNotConfigured('HubSpot');
  if (code === 'PAYLOAD_TOO_LARGE' && /draftContent/.test(description)) {
    return M.PAYLOAD_TOO_LARGE.content('body.draftContent', 300_000, 262_144);
  }
  if (MESSAGES[code] && !['UNAUTHORIZED', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE'].includes(code)) return MESSAGES[code]!;
  if (code === 'UNAUTHORIZED' && access.auth === 'jwt') return M.UNAUTHORIZED.bearerToken;
  if (code === 'UNAUTHORIZED' && access.auth === 'public') return M.UNAUTHORIZED.signIn;
  if (code === 'PAYLOAD_TOO_LARGE' && /5242880|5 MiB/.test(description)) {
    // The contacts import refuses its CSV file; every other 5 MiB limit is an image's (uploads, logos).
    return /the file is over/.test(description) ? M.PAYLOAD_TOO_LARGE.csv(5_242_880) : M.PAYLOAD_TOO_LARGE.image(5_242_880);
  }
  if (
    code === 'UNSUPPORTED_MEDIA_TYPE' ||
    code === 'RATE_LIMIT_EXCEEDED' ||
    code === 'IDEMPOTENCY_KEY_IN_USE' ||
    code === 'IDEMPOTENCY_KEY_REUSED'
  ) {
    return MESSAGES[code]!;
  }
  if (status === 503 && code.endsWith('_UNAVAILABLE') && code !== 'SERVICE_UNAVAILABLE') {
    return `The ${words(code.replace(/_UNAVAILABLE$/, '')).replace('sms', 'SMS')} did not answer; retry in 5 seconds`;
  }
  // The clause of the description that explains this code ("CODE: what happened; OTHER: ...").
  const clause = new RegExp(`${code}(?: \\([^)]*\\))?: ([^;]+?)(?:;| Or |$)`).exec(description)?.[1];
  if (clause) return sentence(balanced(clause.trim().replace(/\.$/, '')));
  return MESSAGES[code] ?? capitalized(words(code));
}

/** A clause cut at a ';' inside parentheses ends before the parenthesis. */
const balanced = (text: string) =>
  (text.match(/\(/g)?.length ?? 0) > (text.match(/\)/g)?.length ?? 0) ? text.slice(0, text.lastIndexOf(' (')) : text;

/** Capitalized, unless it starts with a field's name (typedName, customSlug). */
const sentence = (text: string) => (/^[a-z]+[A-Z]/.test(text) ? text : capitalized(text));

/** What a 404 names: the description's "X not found", else the record whose id it names (orderId), else the path's. */
function notFoundResource(description: string, path: string): string {
  const said = /^([A-Z][\w -]*?) not found/.exec(description)?.[1];
  if (said) return said;
  const id = /\b([a-z]+(?:[A-Z][a-z]+)*)Id\b/.exec(description)?.[1];
  if (id) return capitalized(words(id));
  const segments = path.split('/');
  const last = segments
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => s.startsWith('{'))
    .pop();
  if (!last) return singularFromDescription(description);
  const named = last.s.slice(1, -1).replace(/Id$/, '');
  const record = named !== 'id' ? named : singular(segments[last.i - 1] ?? 'resource');
  return capitalized(words(record)).replace(/^Api /, 'API ');
}

/** A 404 of a path without an id: the record the description says is missing ("no current subscription"). */
function singularFromDescription(description: string): string {
  const quoted = /message "([A-Z][\w ]*?) not found"/.exec(description)?.[1];
  if (quoted) return quoted;
  const missing = /has no (?:current )?([a-z][a-z ]*?)(?: \(|$|;|,|\.)/.exec(description)?.[1];
  if (missing) return capitalized(missing);
  const named =
    /(?:the|No) ([a-z]+) (?:is unknown|of the clinic)/i.exec(description)?.[1] ?? /other[- ]clinic(?:'s)? ([a-z]+)/.exec(description)?.[1];
  if (named) return capitalized(named);
  return 'Resource';
}

/** The field a 400 VALIDATION_ERROR of this operation names: a required body field, else a query or header parameter. */
function validationProblem(operation: Operation, schemas: Record<string, Schema>): { field: string; message: string } {
  const declared =
    operation.requestBody?.content?.['application/json']?.schema ?? operation.requestBody?.content?.['multipart/form-data']?.schema;
  const body = declared && resolve(declared, schemas);
  const required = (body?.required as string[] | undefined) ?? [];
  const properties = (body?.properties ?? {}) as Record<string, Schema>;
  if (required[0]) {
    const type = typesOf(resolve(properties[required[0]] ?? {}, schemas)).find((t) => t !== 'null') ?? 'string';
    return { field: `body.${required[0]}`, message: `Invalid input: expected ${type === 'integer' ? 'number' : type}, received undefined` };
  }
  if (body && body.additionalProperties === false) return { field: 'body', message: 'Unrecognized key: "colour"' };
  const [first, property] = Object.entries(properties)[0] ?? [];
  if (first && property) {
    const type = typesOf(resolve(property, schemas)).find((t) => t !== 'null') ?? 'string';
    const wrong = type === 'string' ? 'number' : 'string';
    return { field: `body.${first}`, message: `Invalid input: expected ${type === 'integer' ? 'number' : type}, received ${wrong}` };
  }
  const parameters = operation.parameters ?? [];
  const limit = parameters.find((p) => p.in === 'query' && p.name === 'limit');
  if (limit) return { field: 'query.limit', message: `Too big: expected number to be <=${limit.schema?.maximum ?? 200}` };
  for (const query of parameters.filter((p) => p.in === 'query')) {
    const problem = queryProblem(resolve(query.schema ?? {}, schemas));
    if (problem) return { field: `query.${query.name}`, message: problem };
  }
  const header = parameters.find((p) => p.in === 'header');
  if (header)
    return { field: `header.${header.name}`, message: `Too big: expected string to have <=${header.schema?.maxLength ?? 255} characters` };
  const pathParameter = parameters.find((p) => p.in === 'path');
  const anyQuery = parameters.find((p) => p.in === 'query');
  const field = pathParameter ? `path.${pathParameter.name}` : anyQuery ? `query.${anyQuery.name}` : 'body';
  return { field, message: 'Invalid input' };
}

/** What zod says of a wrong value of a query parameter, as the 400 sends it. */
function queryProblem(schema: Schema): string | undefined {
  if (Array.isArray(schema.enum)) return `Invalid option: expected one of ${schema.enum.map((v) => JSON.stringify(v)).join('|')}`;
  const type = typesOf(schema).find((t) => t !== 'null');
  if (type === 'integer' || type === 'number') return 'Invalid input: expected number, received NaN';
  if (type === 'boolean') return 'Invalid input: expected boolean, received string';
  const formats: Record<string, string> = {
    uuid: 'Invalid UUID',
    date: 'Invalid ISO date',
    'date-time': 'Invalid ISO datetime',
    email: 'Invalid email address',
  };
  if (typeof schema.format === 'string' && formats[schema.format]) return formats[schema.format];
  if (typeof schema.maxLength === 'number') return `Too big: expected string to have <=${schema.maxLength} characters`;
  return undefined;
}
