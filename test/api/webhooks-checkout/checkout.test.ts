// Checkout sessions: POST/GET /api/v1/checkout/sessions, CORS on the create route only, and the
// development simulator's completion (POST /_dev/checkout/sessions/{id}/complete).
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessions, ledgerEntries, orderItems, orders, outboxEvents, patients, payments } from '../../../drizzle/schema';
import { sha256Hex } from '../../../src/platform/crypto/bytes';
import { buildTestApp, type TestApp, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { makeGlobalProduct, makePatient, makeProgram } from '../../helpers/program-fixtures';

const t = useTestApp();
let dev: TestApp;
beforeAll(() => {
  dev = buildTestApp(t.db, t.databaseUrl, { clock: t.clock });
  dev.config.devSimulator = true;
});

const PATH = '/api/v1/checkout/sessions';
const MINUTE = 60_000;
/** Stops the test clock at a whole second of the present (keys made now must still be valid). */
function freeze(): number {
  const at = Math.floor(Date.now() / 1000) * 1000;
  t.clock.freezeAt(at);
  return at;
}

/** A live, active program with one sellable product: pharmacy cost 100.00 + program fee 50.00. */
async function offeredProgram(clinicId: string, values: Parameters<typeof makeProgram>[2] = {}) {
  const product = await makeGlobalProduct(t.db);
  return makeProgram(t.db, clinicId, { state: 'live', isActive: true, ...values }, [
    { globalProductId: product.id, programBaseFeeCents: 5_000 },
  ]);
}

async function setup() {
  const tenant = await makeTenant(t.db);
  const publishable = await makeKey(t.db, tenant.clinic.id, { kind: 'publishable', scopes: ['read', 'write'] });
  const program = await offeredProgram(tenant.clinic.id);
  return { ...tenant, publishable: publishable.raw, program };
}

async function createSession(key: string, programId: string, extra: Record<string, unknown> = {}) {
  const res = await t.request(PATH, {
    key,
    body: { programId, metadata: { cartId: 'c_1' }, successUrl: 'https://brand.example.com/done', ...extra },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()).data as { sessionId: string; sessionToken: string; embedUrl: string; expiresAt: string };
}

describe('POST /api/v1/checkout/sessions', () => {
  it('a publishable key creates a session: 201, token shown once and stored hashed, embedUrl, 30-minute expiry', async () => {
    const at = freeze();
    const { clinic, publishable, program } = await setup();
    const res = await t.request(PATH, {
      key: publishable,
      body: { programId: program.id, metadata: { cartId: 'c_1', qty: 2, gift: false }, successUrl: 'https://brand.example.com/done' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const { data } = await res.json();
    expect(Object.keys(data).sort()).toEqual(['embedUrl', 'expiresAt', 'sessionId', 'sessionToken']);
    expect(data.sessionToken).toMatch(/^cs_tok_[A-Za-z0-9_-]{43}$/);
    expect(data.expiresAt).toBe(new Date(at + 30 * MINUTE).toISOString());
    expect(data.embedUrl).toBe(`https://checkout.example.com/embed/${data.sessionId}#token=${data.sessionToken}`);

    const [row] = await t.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, data.sessionId));
    expect(row!.clinicId).toBe(clinic.id);
    expect(row!.programId).toBe(program.id);
    expect(row!.tokenHash).toBe(await sha256Hex(data.sessionToken));
    expect(JSON.stringify(row)).not.toContain(data.sessionToken.slice(7));
    expect(row!.metadata).toEqual({ cartId: 'c_1', qty: 2, gift: false });
    expect(row!.successUrl).toBe('https://brand.example.com/done');
    expect(row!.status).toBe('created');
  });

  it('a secret key with write may create one too; metadata and successUrl are optional; CHECKOUT_EMBED_BASE_URL is used', async () => {
    const { key, program } = await setup();
    const app = buildTestApp(t.db, t.databaseUrl);
    app.config.checkoutEmbedBaseUrl = 'https://pay.brand.example/c/';
    const res = await app.request(PATH, { key, body: { programId: program.id } });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data.embedUrl).toBe(`https://pay.brand.example/c/${data.sessionId}#token=${data.sessionToken}`);
    const [row] = await t.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, data.sessionId));
    expect(row!.metadata).toEqual({});
    expect(row!.successUrl).toBeNull();
  });

  it("404 for another clinic's, an unknown, a malformed, and a not-offered program (one body for all)", async () => {
    const { publishable, clinic } = await setup();
    const other = await setup();
    const draft = await offeredProgram(clinic.id, { state: 'draft' });
    const inactive = await offeredProgram(clinic.id, { isActive: false });
    const paused = await offeredProgram(clinic.id, { state: 'paused' });
    const bodies = [];
    for (const programId of [other.program.id, crypto.randomUUID(), 'not-a-uuid', draft.id, inactive.id, paused.id]) {
      const res = await t.request(PATH, { key: publishable, body: { programId } });
      expect(res.status, programId).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      bodies.push(await res.json());
    }
    for (const body of bodies) expect(body).toEqual({ success: false, code: 'NOT_FOUND', message: 'Program not found' });
    expect(await t.db.$count(checkoutSessions, eq(checkoutSessions.clinicId, clinic.id))).toBe(0);
  });

  it('400 naming the field for bad input', async () => {
    const { publishable, program } = await setup();
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]));
    const tooBig = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'x'.repeat(450)]));
    const cases: [unknown, string][] = [
      [{}, 'body.programId'],
      [{ programId: program.id, successUrl: 'http://brand.example.com/done' }, 'body.successUrl'],
      [{ programId: program.id, successUrl: 'not a url' }, 'body.successUrl'],
      [{ programId: program.id, successUrl: `https://brand.example.com/${'a'.repeat(2048)}` }, 'body.successUrl'],
      [{ programId: program.id, metadata: 'x' }, 'body.metadata'],
      [{ programId: program.id, metadata: { nested: { a: 1 } } }, 'body.metadata.nested'],
      [{ programId: program.id, metadata: { list: [1] } }, 'body.metadata.list'],
      [{ programId: program.id, metadata: { empty: null } }, 'body.metadata.empty'],
      [{ programId: program.id, metadata: tooMany }, 'body.metadata'],
      [{ programId: program.id, metadata: tooBig }, 'body.metadata'],
      [{ programId: program.id, metadata: { bad: 'a\u0000b' } }, 'body.metadata.bad'],
      [{ programId: program.id, extra: 1 }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request(PATH, { key: publishable, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const json = await res.json();
      expect(json.code).toBe('VALIDATION_ERROR');
      expect(json.message, JSON.stringify(body).slice(0, 80)).toContain(field);
    }
    const ok = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    expect((await t.request(PATH, { key: publishable, body: { programId: program.id, metadata: ok, successUrl: null } })).status).toBe(201);
  });

  it('403 INSUFFICIENT_SCOPE for a read-only secret key', async () => {
    const { clinic, program } = await setup();
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await t.request(PATH, { key: readOnly.raw, body: { programId: program.id } });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/checkout/sessions/{id}', () => {
  it('a secret key reads the session; a publishable key gets 403 KEY_KIND_NOT_ALLOWED', async () => {
    const { key, publishable, program } = await setup();
    const session = await createSession(publishable, program.id);
    const denied = await t.request(`${PATH}/${session.sessionId}`, { key: publishable });
    expect(denied.status).toBe(403);
    expect((await denied.json()).code).toBe('KEY_KIND_NOT_ALLOWED');
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();

    const res = await t.request(`${PATH}/${session.sessionId}`, { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect((await res.json()).data).toEqual({
      sessionId: session.sessionId,
      status: 'created',
      orderId: null,
      expiresAt: session.expiresAt,
    });
  });

  it('reads as expired once expiresAt has passed (test clock), created just before', async () => {
    const at = freeze();
    const { key, publishable, program } = await setup();
    const session = await createSession(publishable, program.id);
    t.clock.advance(30 * MINUTE - 1);
    expect((await (await t.request(`${PATH}/${session.sessionId}`, { key })).json()).data.status).toBe('created');
    t.clock.advance(1);
    expect((await (await t.request(`${PATH}/${session.sessionId}`, { key })).json()).data).toEqual({
      sessionId: session.sessionId,
      status: 'expired',
      orderId: null,
      expiresAt: new Date(at + 30 * MINUTE).toISOString(),
    });
  });

  it("404 for another clinic's, an unknown and a malformed id (one body)", async () => {
    const { key } = await setup();
    const other = await setup();
    const foreign = await createSession(other.publishable, other.program.id);
    const bodies = [];
    for (const id of [foreign.sessionId, crypto.randomUUID(), 'nope']) {
      const res = await t.request(`${PATH}/${id}`, { key });
      expect(res.status).toBe(404);
      bodies.push(await res.json());
    }
    for (const body of bodies) expect(body).toEqual({ success: false, code: 'NOT_FOUND', message: 'Checkout session not found' });
  });
});

describe('CORS', () => {
  const preflight = (path: string, headers: Record<string, string> = {}) =>
    t.request(path, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://brand.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type',
        ...headers,
      },
    });

  it('the preflight answers 204 without a key, with origin, methods, headers and max age', async () => {
    const res = await preflight(PATH);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase();
    expect(allowed).toContain('x-api-key');
    expect(allowed).toContain('content-type');
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    // Counted against the address like any keyless request.
    expect(res.headers.get('ratelimit-policy')).toBe('120;w=60');
  });

  it('the preflight still counts against the per-address limit (429 once over, with CORS headers)', async () => {
    t.clock.freezeAtWindowStart(60);
    const ip = '203.0.113.77';
    for (let i = 0; i < 120; i++) expect((await preflight(PATH, { 'cf-connecting-ip': ip })).status).toBe(204);
    const res = await preflight(PATH, { 'cf-connecting-ip': ip });
    expect(res.status).toBe(429);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('the POST answer carries Access-Control-Allow-Origin, errors included (401, 400)', async () => {
    const { publishable } = await setup();
    const headers = { origin: 'https://brand.example.com' };
    const unauthenticated = await t.request(PATH, { body: { programId: crypto.randomUUID() }, headers });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('access-control-allow-origin')).toBe('*');
    const invalid = await t.request(PATH, { key: publishable, body: {}, headers });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('access-control-allow-origin')).toBe('*');
    expect(invalid.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });

  it('no other route sends CORS headers, and OPTIONS elsewhere still needs a key', async () => {
    const { key } = await setup();
    const me = await t.request('/api/v1/me', { key, headers: { origin: 'https://brand.example.com' } });
    expect(me.status).toBe(200);
    for (const name of ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers'])
      expect(me.headers.get(name)).toBeNull();
    const other = await preflight('/api/v1/me');
    expect(other.status).toBe(401);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const sub = await preflight(`${PATH}/${crypto.randomUUID()}`);
    expect(sub.status).toBe(401);
    expect(sub.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('the preflight is not an OpenAPI operation', async () => {
    const doc = await (await t.request('/api/v1/openapi.json')).json();
    expect(Object.keys(doc.paths[PATH]).sort()).toEqual(['post']);
    expect(doc.paths[PATH].post['x-access']).toEqual({ auth: 'key', scope: 'write', publishable: true });
  });
});

describe('POST /_dev/checkout/sessions/{id}/complete', () => {
  const complete = (app: TestApp, id: string, key: string | undefined, body?: unknown) =>
    app.request(`/_dev/checkout/sessions/${id}/complete`, { method: 'POST', key, body });

  it('is the generic 404 of an unknown route without DEV_SIMULATOR', async () => {
    const { key, publishable, program } = await setup();
    const session = await createSession(publishable, program.id);
    const res = await complete(t, session.sessionId, key, {});
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      success: false,
      code: 'NOT_FOUND',
      message: `No route for POST /_dev/checkout/sessions/${session.sessionId}/complete`,
    });
  });

  it('completes the session in one go: patient, order and items, payment, ledger, session, three outbox events', async () => {
    const { clinic, key, publishable, program } = await setup();
    const session = await createSession(publishable, program.id);
    const res = await complete(dev, session.sessionId, key, { email: 'Jane.Doe@Example.com', firstName: 'Jane', lastName: 'Doe' });
    expect(res.status, await res.clone().text()).toBe(200);
    const { data } = await res.json();
    expect(Object.keys(data)).toEqual(['orderId']);

    const [order] = await t.db.select().from(orders).where(eq(orders.id, data.orderId));
    expect(order!.clinicId).toBe(clinic.id);
    expect(order!.programId).toBe(program.id);
    expect(order!.status).toBe('paid');
    expect(order!.totalCents).toBe(15_000);
    const [patient] = await t.db.select().from(patients).where(eq(patients.id, order!.patientId));
    expect(patient).toMatchObject({ email: 'jane.doe@example.com', firstName: 'Jane', lastName: 'Doe', clinicId: clinic.id });
    const items = await t.db.select().from(orderItems).where(eq(orderItems.orderId, order!.id));
    expect(items.map((i) => [i.quantity, i.unitPriceCents])).toEqual([[1, 15_000]]);
    const paid = await t.db.select().from(payments).where(eq(payments.orderId, order!.id));
    expect(paid.map((p) => [p.status, p.amountCents])).toEqual([['succeeded', 15_000]]);
    expect(await t.db.$count(ledgerEntries, eq(ledgerEntries.orderId, order!.id))).toBeGreaterThan(0);

    const [row] = await t.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, session.sessionId));
    expect(row).toMatchObject({ status: 'completed', orderId: order!.id });
    expect(row!.completedAt).not.toBeNull();
    const read = await (await t.request(`${PATH}/${session.sessionId}`, { key })).json();
    expect(read.data).toEqual({ sessionId: session.sessionId, status: 'completed', orderId: order!.id, expiresAt: session.expiresAt });

    const events = await t.db.select().from(outboxEvents).where(eq(outboxEvents.clinicId, clinic.id));
    expect(events.map((e) => e.eventType).sort()).toEqual(['order.created', 'payment.succeeded', 'session.completed']);
    expect(events.find((e) => e.eventType === 'session.completed')!.payload).toEqual({ sessionId: session.sessionId, orderId: order!.id });

    // Completing again: 409, nothing more written.
    const again = await complete(dev, session.sessionId, key, {});
    expect(again.status).toBe(409);
    expect(await t.db.$count(orders, eq(orders.clinicId, clinic.id))).toBe(1);
  });

  it('reuses the patient with that email; generates one without a body', async () => {
    const { clinic, key, publishable, program } = await setup();
    const existing = await makePatient(t.db, clinic.id);
    const first = await createSession(publishable, program.id);
    const res = await complete(dev, first.sessionId, key, { email: existing.email.toUpperCase() });
    expect(res.status).toBe(200);
    const [order] = await t.db
      .select()
      .from(orders)
      .where(eq(orders.id, (await res.json()).data.orderId));
    expect(order!.patientId).toBe(existing.id);

    const second = await createSession(publishable, program.id);
    const generated = await complete(dev, second.sessionId, key);
    expect(generated.status).toBe(200);
    const [order2] = await t.db
      .select()
      .from(orders)
      .where(eq(orders.id, (await generated.json()).data.orderId));
    expect(order2!.patientId).not.toBe(existing.id);
    expect(await t.db.$count(patients, eq(patients.clinicId, clinic.id))).toBe(2);
  });

  it('409 for an expired session, and for a program without a sellable product; nothing written', async () => {
    freeze();
    const { clinic, key, publishable, program } = await setup();
    const session = await createSession(publishable, program.id);
    t.clock.advance(30 * MINUTE);
    const expired = await complete(dev, session.sessionId, key, {});
    expect(expired.status).toBe(409);
    expect((await expired.json()).message).toContain('expired');

    t.clock.unfreeze();
    const unpriced = await makeGlobalProduct(t.db);
    const bare = await makeProgram(t.db, clinic.id, { state: 'live', isActive: true }, [{ globalProductId: unpriced.id }]);
    const unsellable = await createSession(publishable, bare.id);
    const res = await complete(dev, unsellable.sessionId, key, {});
    expect(res.status).toBe(409);
    expect((await res.json()).message).toContain('no sellable product');
    expect(await t.db.$count(orders, eq(orders.clinicId, clinic.id))).toBe(0);
    expect(await t.db.$count(outboxEvents, and(eq(outboxEvents.clinicId, clinic.id)))).toBe(0);
  });

  it("401 without a secret key, 403 for publishable keys, 404 for another clinic's, unknown and malformed sessions, 400 for bad bodies", async () => {
    const { key, publishable, program } = await setup();
    const other = await setup();
    const session = await createSession(publishable, program.id);
    expect((await complete(dev, session.sessionId, undefined, {})).status).toBe(401);
    const kind = await complete(dev, session.sessionId, publishable, {});
    expect(kind.status).toBe(403);
    expect((await kind.json()).code).toBe('KEY_KIND_NOT_ALLOWED');
    for (const id of [session.sessionId, crypto.randomUUID(), 'nope']) {
      const res = await complete(dev, id, other.key, {});
      expect(res.status).toBe(404);
      expect((await res.json()).message).toBe('Checkout session not found');
    }
    const bad = await complete(dev, session.sessionId, key, { email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toContain('body.email');
    const badJson = await complete(dev, session.sessionId, key, '{nope');
    expect((await badJson.json()).code).toBe('INVALID_JSON');
  });
});
