// Bad input of every kind, sent to every declared route with valid credentials: never a 5xx.
// Routes added by later areas are covered here automatically: the hostile strings, dates and numbers
// below are put into every body field and query parameter their OpenAPI declaration names.
import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import { createApp, routeTable } from '../../../src/app';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../../src/platform/auth/jwt';
import { useTestApp } from '../../helpers/app';
import { makeTenant, makeUser, TEST_PASSWORD } from '../../helpers/factories';
import {
  type Document,
  HOSTILE_DATES,
  HOSTILE_NUMBERS,
  HOSTILE_PATH_IDS,
  HOSTILE_QUERY_VALUES,
  HOSTILE_STRINGS,
  leaves,
  type Schema,
  sample,
  typesOf,
  withValue,
} from '../../helpers/openapi-inputs';
import { documentOf, findOperation, resolveSchema } from '../../helpers/strict-response';

const t = useTestApp();

const BODIES = [
  '',
  'null',
  '[]',
  '{}',
  '"text"',
  '42',
  'true',
  '{"a":',
  '{"name": {"$gt": ""}}',
  JSON.stringify({ name: 'x'.repeat(10_000), email: '\u0000\uffff', password: ['a'], amount: 1e308, id: -1 }),
  JSON.stringify({ nested: JSON.parse('['.repeat(200) + ']'.repeat(200)) }),
  JSON.stringify({ expiresAt: '9999-99-99T99:99:99Z', scopes: 'read', kind: null, page: -1 }),
];
const QUERIES = ['', '?page=-1&limit=1e9', '?page=%00&limit=abc', '?page=1&page=2', "?search='%20or%201=1--"];

/** Body field names the fixed bodies above already send; each gets every hostile string. */
const FIELD_NAMES = ['name', 'email', 'password', 'amount', 'id', 'nested', 'expiresAt', 'scopes', 'kind', 'page'];

/** The sampled body with, at each leaf, each hostile value of its kind (strings, dates, numbers). */
function hostileBodies(document: Document, schema: Schema): { label: string; body: string }[] {
  const base = sample(document, schema);
  const out: { label: string; body: string }[] = [];
  for (const leaf of leaves(document, schema, base)) {
    const types = typesOf(leaf.schema);
    const values: unknown[] = [];
    if (types.includes('string') || leaf.schema.enum) values.push(...HOSTILE_STRINGS);
    if (leaf.schema.format === 'date-time' || leaf.schema.format === 'date') values.push(...HOSTILE_DATES);
    if (types.includes('integer') || types.includes('number')) values.push(...HOSTILE_NUMBERS);
    for (const value of values)
      out.push({ label: `${leaf.path.join('.')}=${JSON.stringify(value)}`, body: JSON.stringify(withValue(base, leaf.path, value)) });
  }
  return out;
}

/** 5xx answers the specification asks for, whatever the input: the copilot without a model (503, docs/copilot.md). */
const DELIBERATE_5XX = new Set(['COPILOT_UNAVAILABLE']);
const deliberate = async (res: Response) =>
  res.status === 503 &&
  DELIBERATE_5XX.has(
    (
      (await res
        .clone()
        .json()
        .catch(() => ({}))) as { code?: string }
    ).code ?? '',
  );

async function signInToken(email: string) {
  const res = await t.request('/auth/signin', { body: { email, password: TEST_PASSWORD } });
  return (await res.json()).data.token as string;
}

/** Every declared route, read from the declarations alone (no request is made to build the table). */
const ROUTES = routeTable(
  createApp(async () => {
    throw new Error('declarations only');
  }),
);

/** One tenant (both plan gates) and a brand-admin token, shared by every route's test. */
const credentialsFor = (() => {
  let made: Promise<{ key: string; token: string }> | undefined;
  return async (auth: string) => {
    made ??= (async () => {
      const { clinic, key } = await makeTenant(t.db, { entitlements: ['affiliates', 'crm_connect'] });
      const user = await makeUser(t.db, clinic.id, { role: 'owner' });
      return { key, token: await signInToken(user.email) };
    })();
    const { key, token } = await made;
    return auth === 'key' ? { key } : auth === 'jwt' ? { token } : {};
  };
})();

let sent = 0;
/** Sends one request and fails on any 5xx but the deliberate ones; the clock moves so a 429 never hides a handler. */
async function expectNo5xx(label: string, path: string, method: string, credentials: object, body?: string) {
  if (++sent % 50 === 0) t.clock.advance(61_000);
  const res = await t.request(path, {
    method,
    ...credentials,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
  if (!(await deliberate(res))) expect(res.status, `${method} ${path} ${label}`).toBeLessThan(500);
}

// One test per route, so each has its own time budget and a failure names its route. Inputs are
// varied one axis at a time (path ids, then queries, then bodies) rather than as a cross product:
// every class of bad input still reaches every route, in a fraction of the requests.
describe.each(ROUTES.map((route) => ({ ...route, name: `${route.method} ${route.path}` })))('$name never answers a 5xx', (route) => {
  it('for malformed bodies, query strings and path ids', async () => {
    const credentials = await credentialsFor(route.access.auth);
    const paths = route.path.includes('{') ? HOSTILE_PATH_IDS.map((id) => route.path.replace(/\{[^}]+\}/g, id)) : [route.path];
    const bodies = route.method === 'GET' ? [undefined] : BODIES;
    for (const path of paths) await expectNo5xx('path', path, route.method, credentials, bodies.at(-1));
    for (const query of QUERIES) await expectNo5xx('query', paths[0] + query, route.method, credentials, bodies.at(-1));
    for (const body of bodies) await expectNo5xx(`body ${body?.slice(0, 40)}`, paths[0]!, route.method, credentials, body);
  });

  it('for control characters, lone surrogates, out-of-range dates and huge numbers in every declared field and query', async () => {
    const credentials = await credentialsFor(route.access.auth);
    const document = documentOf(t.app);
    const path = route.path.replace(/\{[^}]+\}/g, '00000000-0000-0000-0000-000000000000');
    const operation = findOperation(document, route.method, route.path)!.operation;
    const parameters = ((operation.parameters ?? []) as Schema[]).map((p) => resolveSchema(document, p)).filter((p) => p.in === 'query');
    const bodySchema = ((operation.requestBody as Schema | undefined)?.content as Record<string, { schema?: Schema }> | undefined)?.[
      'application/json'
    ]?.schema;
    const baseBody = bodySchema ? JSON.stringify(sample(document, bodySchema)) : undefined;
    // Query values: every declared parameter, and an undeclared one.
    for (const name of [...parameters.map((p) => String(p.name)), 'search']) {
      for (const value of HOSTILE_QUERY_VALUES)
        await expectNo5xx(`query ${name}`, `${path}?${encodeURIComponent(name)}=${value}`, route.method, credentials, baseBody);
    }
    if (route.method === 'GET' || !bodySchema) return;
    // Bodies: the declared schema's sample with one hostile value at a time, then the known field names.
    for (const { label, body } of hostileBodies(document, bodySchema)) await expectNo5xx(label, path, route.method, credentials, body);
    for (const field of FIELD_NAMES) {
      for (const value of HOSTILE_STRINGS)
        await expectNo5xx(`${field}=${JSON.stringify(value)}`, path, route.method, credentials, JSON.stringify({ [field]: value }));
    }
  });
});

describe('no input produces a 5xx', () => {
  it('walks every declared route', () => {
    expect(ROUTES.length).toBeGreaterThan(50);
    expect(ROUTES.filter((r) => r.method !== 'GET').length).toBeGreaterThan(20);
  });

  it('answers 401 on every bearer-token route for validly signed tokens with malformed claims', async () => {
    const { clinic } = await makeTenant(t.db);
    const user = await makeUser(t.db, clinic.id, { role: 'owner' });
    const now = Math.floor(Date.now() / 1000);
    const base = { sub: user.id, cid: clinic.id, role: 'owner', iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, iat: now, exp: now + 3600 };
    const { exp: _exp, ...withoutExpiry } = base;
    const tokens = await Promise.all(
      [
        { ...base, sub: 'not-a-uuid' },
        { ...base, cid: 'a\u0000b' },
        { ...base, sub: '\ud800' },
        { ...base, role: 'root' },
        withoutExpiry,
      ].map((claims) => sign(claims, t.config.jwtSecret, 'HS256')),
    );
    const jwtRoutes = routeTable(t.app).filter((r) => r.access.auth === 'jwt');
    expect(jwtRoutes.length).toBeGreaterThan(0);
    for (const route of jwtRoutes) {
      const path = route.path.replace(/\{[^}]+\}/g, '00000000-0000-0000-0000-000000000000');
      for (const token of tokens) {
        const res = await t.request(path, { method: route.method, token, ...(route.method === 'GET' ? {} : { body: {} }) });
        expect(res.status, `${route.method} ${route.path}`).toBe(401);
      }
    }
  });
});
