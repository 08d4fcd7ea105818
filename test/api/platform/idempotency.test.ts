// Idempotency-Key on the writes of /api/v1 (docs/api-conventions.md, "Idempotent requests").
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { coupons, idempotencyKeys } from '../../../drizzle/schema';
import { routeTable } from '../../../src/app';
import { sha256Hex } from '../../../src/platform/crypto/bytes';
import {
  IDEMPOTENCY_ABANDONED_MS,
  IDEMPOTENCY_TTL_MS,
  IDEMPOTENCY_WAIT_MS,
  idempotencyKeyRetention,
} from '../../../src/platform/http/idempotency';
import { acceptsIdempotencyKey, defineRoute } from '../../../src/platform/http/route';
import { ApiError } from '../../../src/platform/values/errors';
import { buildTestApp, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { statementsOf } from '../../helpers/statements';
import { documentOf } from '../../helpers/strict-response';

const t = useTestApp();

const couponBody = (code = `IDEM${randomUUID().slice(0, 8).toUpperCase()}`) => ({ code, discountType: 'percent', discountValue: 10 });

const post = (key: string, idempotencyKey: string | undefined, body: unknown, path = '/api/v1/coupons') =>
  t.request(path, { key, body, headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } });

const couponsOf = (clinicId: string) => t.db.select().from(coupons).where(eq(coupons.clinicId, clinicId));

describe('Idempotency-Key', () => {
  it('runs the first request, and answers a retry of the same request with the same status and body, running nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const idem = randomUUID();
    const body = couponBody();
    const first = await post(key, idem, body);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.text();

    const retry = await post(key, idem, body);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('content-type')).toMatch(/application\/json/);
    expect(await retry.text()).toBe(firstBody);
    // The replay is a request of its own: its own X-Request-Id and the RateLimit-* of its own check.
    expect(retry.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(retry.headers.get('ratelimit-remaining')).not.toBeNull();
    expect(await couponsOf(clinic.id)).toHaveLength(1);

    // Without the header every request runs (and here the duplicate code is refused).
    expect((await post(key, undefined, body)).status).toBe(409);
  });

  it('keeps a 4xx answer too: the same request is answered the same way', async () => {
    const { key } = await makeTenant(t.db);
    const idem = randomUUID();
    const bad = { code: '', discountType: 'percent', discountValue: 10 };
    const first = await post(key, idem, bad);
    expect(first.status).toBe(400);
    const retry = await post(key, idem, bad);
    expect(retry.status).toBe(400);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the key on a different body, path or method, and runs nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const idem = randomUUID();
    const body = couponBody();
    expect((await post(key, idem, body)).status).toBe(201);
    // An undeclared query parameter is refused before the key is looked at (docs/api-conventions.md).
    const unknown = await post(key, idem, body, '/api/v1/coupons?x=1');
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).errors[0].field).toBe('query.x');
    const [created] = await couponsOf(clinic.id);
    for (const res of [
      await post(key, idem, couponBody()),
      await post(key, idem, { ...body, discountValue: 11 }),
      await t.request(`/api/v1/coupons/${created!.id}`, { key, method: 'DELETE', headers: { 'idempotency-key': idem } }),
    ]) {
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ success: false, code: 'IDEMPOTENCY_KEY_REUSED' });
    }
    expect(await couponsOf(clinic.id)).toHaveLength(1);
  });

  it('creates exactly one resource from 20 parallel requests with the same key; the others wait for it and replay', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const idem = randomUUID();
    const body = couponBody();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(key, idem, body)));
    const statuses = answers.map((r) => r.status);
    // Each duplicate's claim waits on the key's unique index for the first's commit (well within IDEMPOTENCY_WAIT_MS).
    expect(statuses.every((s) => s === 201)).toBe(true);
    expect(answers.filter((r) => r.status === 201 && !r.headers.get('idempotent-replayed'))).toHaveLength(1);
    expect(await couponsOf(clinic.id)).toHaveLength(1);
  });

  it('a duplicate sent while the first runs waits for its commit and replays its answer', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const idem = randomUUID();
    const body = couponBody();
    // Holds the clinic's coupon code index: the first request's insert waits until this transaction ends.
    const blocker = new pg.Client({ connectionString: t.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query(
        "insert into coupons (clinic_id, code, discount_type, discount_value_hundredths, created_at) values ($1, $2, 'percent', 1000, now())",
        [clinic.id, `${body.code}-HOLD`],
      );
      await blocker.query('lock table coupons in share row exclusive mode');
      const first = post(key, idem, body);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const second = post(key, idem, body);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await blocker.query('rollback');
      const [a, b] = await Promise.all([first, second]);
      expect(a.status).toBe(201);
      expect(a.headers.get('idempotent-replayed')).toBeNull();
      expect(b.status).toBe(201);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      expect(await b.json()).toEqual(await a.json());
      expect(await couponsOf(clinic.id)).toHaveLength(1);
    } finally {
      await blocker.end();
    }
  });

  it(`answers 409 IDEMPOTENCY_KEY_IN_USE to a duplicate that would wait more than ${IDEMPOTENCY_WAIT_MS} ms for the first`, async () => {
    const { clinic, key } = await makeTenant(t.db);
    const idem = randomUUID();
    const body = couponBody();
    // A first request's claim, not committed yet (as while its handler runs).
    const first = new pg.Client({ connectionString: t.databaseUrl });
    await first.connect();
    try {
      await first.query('begin');
      await first.query(
        "insert into idempotency_keys (clinic_id, key_hash, request_hash, state, created_at, expires_at) values ($1, $2, 'x', 'running', now(), now() + interval '1 day')",
        [clinic.id, await sha256Hex(idem)],
      );
      const started = Date.now();
      const res = await post(key, idem, body);
      const waited = Date.now() - started;
      expect(res.status).toBe(409);
      expect(await res.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
      expect(waited).toBeGreaterThanOrEqual(IDEMPOTENCY_WAIT_MS - 100);
      expect(await couponsOf(clinic.id)).toHaveLength(0);
    } finally {
      await first.query('rollback');
      await first.end();
    }
    // The first gone without committing: the key is free, the request runs.
    expect((await post(key, idem, body)).status).toBe(201);
  }, 20_000);

  it("is scoped to the calling key's clinic: another clinic's request with the same key runs on its own", async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    const idem = randomUUID();
    const body = couponBody();
    expect((await post(a.key, idem, body)).status).toBe(201);
    const other = await post(b.key, idem, body);
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(await couponsOf(b.clinic.id)).toHaveLength(1);
    // Another key of the same clinic shares the clinic's keys.
    const second = await makeKey(t.db, a.clinic.id);
    expect((await post(second.raw, idem, body)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses a key that is empty, longer than 255 characters or not visible ASCII with 400, running nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    for (const bad of ['', 'x'.repeat(256), 'caf\u00e9']) {
      const res = await t
        .request('/api/v1/coupons', {
          key,
          body: couponBody(),
          headers: { 'idempotency-key': bad },
        })
        .catch(() => null);
      // A header value outside Latin-1 cannot even be sent by fetch; the others must answer 400.
      if (!res) continue;
      expect(res.status).toBe(400);
      expect((await res.json()).message).toMatch(/Idempotency-Key/);
    }
    expect((await post(key, 'x'.repeat(255), couponBody())).status).toBe(201);
    expect(await couponsOf(clinic.id)).toHaveLength(1);
  });

  it('keeps neither the key nor the answer readable in the database', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const idem = `order-${randomUUID()}`;
    const body = couponBody();
    await post(key, idem, body);
    const [row] = await t.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.clinicId, clinic.id));
    expect(row!.keyHash).toBe(await sha256Hex(idem));
    expect(row!.state).toBe('done');
    expect(row!.responseStatus).toBe(201);
    expect(row!.sealedResponse).not.toContain(body.code);
    expect(JSON.stringify(row)).not.toContain(idem);
  });

  it('answers 409 while the first request runs, and runs again once it is abandoned or its 24 hours are over', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const idem = randomUUID();
    const body = couponBody();
    const now = Date.now();
    t.clock.freezeAt(now);
    await t.db.insert(idempotencyKeys).values({
      clinicId: clinic.id,
      keyHash: await sha256Hex(idem),
      requestHash: 'whatever is running',
      state: 'running',
      createdAt: new Date(now),
      expiresAt: new Date(now + IDEMPOTENCY_TTL_MS),
    });
    expect((await post(key, idem, body)).status).toBe(409);
    t.clock.freezeAt(now + IDEMPOTENCY_ABANDONED_MS + 1_000);
    expect((await post(key, idem, body)).status).toBe(201);
    expect(await couponsOf(clinic.id)).toHaveLength(1);

    // A day later the key is new again (the duplicate code then answers 409 CONFLICT from the route itself).
    t.clock.freezeAt(now + IDEMPOTENCY_TTL_MS + IDEMPOTENCY_ABANDONED_MS + 2_000);
    const later = await post(key, idem, body);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect((await later.json()).code).toBe('CONFLICT');

    // The cron sweep deletes what expired.
    await idempotencyKeyRetention(t.db, new Date(now + 3 * IDEMPOTENCY_TTL_MS), t.services);
    expect(await t.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.clinicId, clinic.id))).toHaveLength(0);
  });

  it('does not keep a 5xx: the retry runs again', async () => {
    const { key } = await makeTenant(t.db);
    let calls = 0;
    // A fresh app: routes cannot be added once an app has answered.
    const probe = buildTestApp(t.db, t.databaseUrl);
    const route = defineRoute(
      { auth: 'key', scope: 'write' },
      {
        method: 'post',
        path: '/api/v1/_idempotency-probe',
        operationId: 'postIdempotencyProbe',
        responses: { 200: { description: 'ok' } },
      },
    );
    probe.app.openapi(route, (c) => {
      calls++;
      if (calls === 1) throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'try again');
      return c.json({ success: true, data: { calls } }, 200);
    });
    const idem = randomUUID();
    const send = () =>
      probe.app.request('/api/v1/_idempotency-probe', {
        method: 'POST',
        headers: { 'x-api-key': key, 'idempotency-key': idem, 'cf-connecting-ip': '203.0.113.9' },
      });
    expect((await send()).status).toBe(503);
    const second = await send();
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    const third = await send();
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(calls).toBe(2);
    const [row] = await t.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.keyHash, await sha256Hex(idem)), eq(idempotencyKeys.responseStatus, 200)));
    expect(row).toBeDefined();
  });

  it('an operation that changes nothing (a count) runs, then keeps its answer in one statement: a retry replays it, another body is 422', async () => {
    const { key } = await makeTenant(t.db);
    const idem = randomUUID();
    const counts = (tenantProductIds: string[]) => post(key, idem, { tenantProductIds }, '/api/v1/likes/admin/counts');
    const ids = [randomUUID()];
    await t.request('/api/v1/me', { key }); // the key cached: its lookup is not counted
    const first = await statementsOf(t, () => counts(ids));
    expect(first.status).toBe(200);
    const sent = first.all
      .filter((q) => !q.includes('"request_logs"'))
      .map((q) => q.trim().split(/\s+/).slice(0, 3).join(' ').toLowerCase());
    // The count itself, then the answer kept: no transaction, one statement for the machinery.
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatch(/^insert into idempotency_keys/);
    const body = await (await counts(ids)).json();
    const retry = await counts(ids);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(body);
    expect((await counts([randomUUID()])).status).toBe(422);
  });

  it('a duplicate of a count that finished first answers the answer kept first, in place of its own', async () => {
    const { key } = await makeTenant(t.db);
    const idem = randomUUID();
    const ids = [randomUUID()];
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => post(key, idem, { tenantProductIds: ids }, '/api/v1/likes/admin/counts')),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const bodies = await Promise.all(answers.map((r) => r.json()));
    for (const b of bodies) expect(b).toEqual(bodies[0]);
    const kept = await t.db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.keyHash, await sha256Hex(idem)));
    expect(kept).toHaveLength(1);
  });

  it('is declared on every key-authenticated write of /api/v1 and on nothing else (walking the route table)', () => {
    const document = documentOf(t.app);
    let writes = 0;
    for (const route of routeTable(t.app)) {
      const operation = (
        document.paths as Record<
          string,
          Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, unknown> }>
        >
      )[route.path]?.[route.method.toLowerCase()];
      if (!operation) continue;
      const declared = (operation.parameters ?? []).some((p) => p.in === 'header' && p.name === 'idempotency-key');
      const expected = acceptsIdempotencyKey(route.access, route.method, route.path);
      expect(declared, `${route.method.toUpperCase()} ${route.path}`).toBe(expected);
      if (expected) {
        writes++;
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['409', '422']));
      }
    }
    expect(writes).toBeGreaterThan(100);
  });
});
