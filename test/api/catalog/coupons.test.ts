import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { coupons, patients } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeCoupon, makeCouponRedemption, makeKey, makeTenant } from '../../helpers/factories';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();

const valid = { code: 'WELCOME10', discountType: 'percent', discountValue: 10 };

async function tenant() {
  const tenant = await makeTenant(t.db);
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, readKey: readOnly.raw };
}

async function patient(clinicId: string) {
  const [row] = await t.db
    .insert(patients)
    .values({ clinicId, firstName: 'Pat', lastName: 'Ient', email: `p-${randomUUID().slice(0, 8)}@example.test` })
    .returning();
  return row!;
}

const create = (key: string, body: unknown) => t.request('/api/v1/coupons', { key, body });

/** Statements sent for one request (the request log, written after it, not counted). */
const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

describe('POST /api/v1/coupons', () => {
  it('creates a coupon with defaults and answers it in full (201)', async () => {
    const { key } = await tenant();
    const res = await create(key, { ...valid, description: 'Ten off' });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toMatchObject({
      code: 'WELCOME10',
      description: 'Ten off',
      discountType: 'percent',
      discountValue: 10,
      startsAt: null,
      expiresAt: null,
      isActive: true,
      scope: 'first_charge',
      overMarginBehavior: 'reject',
      maxRedemptions: null,
      perCustomerLimit: null,
      minOrderAmount: null,
      redemptionCount: 0,
    });
    const [row] = await t.db.select().from(coupons).where(eq(coupons.id, data.id));
    expect(row!.discountValueHundredths).toBe(1_000);
  });

  it('stores a fixed amount and a minimum order in cents, dates normalised to UTC, and trims the code', async () => {
    const { key } = await tenant();
    const res = await create(key, {
      code: '  SAVE-25_off ',
      discountType: 'fixed',
      discountValue: 24.99,
      startsAt: '2030-01-01T00:00:00+02:00',
      expiresAt: '2030-02-01T00:00:00Z',
      scope: 'all_charges',
      overMarginBehavior: 'cap',
      maxRedemptions: 100,
      perCustomerLimit: 2,
      minOrderAmount: 50.5,
      isActive: false,
    });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toMatchObject({
      code: 'SAVE-25_off',
      discountType: 'fixed',
      discountValue: 24.99,
      startsAt: '2029-12-31T22:00:00.000Z',
      expiresAt: '2030-02-01T00:00:00.000Z',
      scope: 'all_charges',
      overMarginBehavior: 'cap',
      maxRedemptions: 100,
      perCustomerLimit: 2,
      minOrderAmount: 50.5,
      isActive: false,
    });
    const [row] = await t.db.select().from(coupons).where(eq(coupons.id, data.id));
    expect(row).toMatchObject({ discountValueHundredths: 2_499, minOrderAmountCents: 5_050 });
  });

  it('accepts a percent of 1, 100 and 12.5', async () => {
    const { key } = await tenant();
    for (const [i, value] of [1, 100, 12.5].entries()) {
      const res = await create(key, { ...valid, code: `PCT${i}00`, discountValue: value });
      expect(res.status, String(value)).toBe(201);
      expect((await res.json()).data.discountValue).toBe(value);
    }
  });

  it('refuses bad input with 400 naming the field', async () => {
    const { key } = await tenant();
    const cases: [unknown, string][] = [
      [{ discountType: 'percent', discountValue: 10 }, 'body.code'],
      [{ ...valid, code: 'AB' }, 'body.code'],
      [{ ...valid, code: 'X'.repeat(41) }, 'body.code'],
      [{ ...valid, code: 'TEN OFF' }, 'body.code'],
      [{ ...valid, code: 'TEN\u0000OFF' }, 'body.code'],
      [{ ...valid, discountType: 'bogo' }, 'body.discountType'],
      [{ ...valid, discountValue: 0 }, 'body.discountValue'],
      [{ ...valid, discountValue: 0.5 }, 'body.discountValue'],
      [{ ...valid, discountValue: 100.01 }, 'body.discountValue'],
      [{ ...valid, discountValue: 10.001 }, 'body.discountValue'],
      [{ ...valid, discountValue: '10' }, 'body.discountValue'],
      [{ ...valid, discountType: 'fixed', discountValue: -5 }, 'body.discountValue'],
      [{ ...valid, discountType: 'fixed', discountValue: 5.555 }, 'body.discountValue'],
      [{ ...valid, startsAt: 'tomorrow' }, 'body.startsAt'],
      [{ ...valid, startsAt: '2030-02-01T00:00:00Z', expiresAt: '2030-01-01T00:00:00Z' }, 'body.expiresAt'],
      [{ ...valid, startsAt: '2030-01-01T00:00:00Z', expiresAt: '2030-01-01T00:00:00Z' }, 'body.expiresAt'],
      [{ ...valid, scope: 'forever' }, 'body.scope'],
      [{ ...valid, overMarginBehavior: 'ignore' }, 'body.overMarginBehavior'],
      [{ ...valid, maxRedemptions: 0 }, 'body.maxRedemptions'],
      [{ ...valid, perCustomerLimit: 1.5 }, 'body.perCustomerLimit'],
      [{ ...valid, minOrderAmount: -1 }, 'body.minOrderAmount'],
      [{ ...valid, isActive: 'yes' }, 'body.isActive'],
      [{ ...valid, extra: 1 }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await create(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const json = await res.json();
      expect(json.code).toBe('VALIDATION_ERROR');
      expect(json.message, JSON.stringify(body)).toContain(field);
    }
  });

  it('answers 409 CONFLICT naming the code for a code taken in any case; other clinics and deleted coupons do not count', async () => {
    const { key, clinic } = await tenant();
    expect((await create(key, valid)).status).toBe(201);
    const dup = await create(key, { ...valid, code: 'welcome10' });
    expect(dup.status).toBe(409);
    const body = await dup.json();
    expect(body.code).toBe('CONFLICT');
    expect(body.message).toContain('welcome10');
    const other = await tenant();
    expect((await create(other.key, valid)).status).toBe(201);
    await makeCoupon(t.db, clinic.id, { code: 'GONE10', deletedAt: new Date() });
    expect((await create(key, { ...valid, code: 'gone10' })).status).toBe(201);
  });

  it('lets exactly one of concurrent creations with the same code through', async () => {
    const { key } = await tenant();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => create(key, { ...valid, code: i % 2 ? 'RACE1' : 'race1' })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it('needs the write scope', async () => {
    const { readKey } = await tenant();
    const res = await create(readKey, valid);
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/coupons', () => {
  it("lists the clinic's live coupons newest first with redemption counts, paged, in one query", async () => {
    const { key, readKey, clinic } = await tenant();
    const old = await makeCoupon(t.db, clinic.id, { code: 'OLDER', createdAt: new Date(Date.now() - 60_000) });
    const recent = await makeCoupon(t.db, clinic.id, { code: 'NEWER' });
    await makeCoupon(t.db, clinic.id, { code: 'DELETED', deletedAt: new Date() });
    await makeCouponRedemption(t.db, clinic.id, old.id);
    await makeCouponRedemption(t.db, clinic.id, old.id);
    const other = await tenant();
    await makeCoupon(t.db, other.clinic.id, { code: 'THEIRS' });

    const res = await t.request('/api/v1/coupons', { key: readKey });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.map((c: { code: string }) => c.code)).toEqual(['NEWER', 'OLDER']);
    expect(body.data[1].redemptionCount).toBe(2);
    expect(body.data[0].id).toBe(recent.id);
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });

    const page2 = await (await t.request('/api/v1/coupons?page=2&limit=1', { key })).json();
    expect(page2.data.map((c: { code: string }) => c.code)).toEqual(['OLDER']);
    expect(page2.pagination).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });
    const past = await (await t.request('/api/v1/coupons?page=9&limit=1', { key })).json();
    expect(past).toMatchObject({ data: [], pagination: { total: 2 } });

    expect(await statements(() => t.request('/api/v1/coupons', { key }))).toEqual({ status: 200, count: 2 });
    expect((await t.request('/api/v1/coupons?limit=0', { key })).status).toBe(400);
  });
});

describe('GET /api/v1/coupons/{id}', () => {
  it("answers the coupon; another clinic's, an unknown, a malformed and a deleted id answer the same 404", async () => {
    const { key, readKey, clinic } = await tenant();
    const coupon = await makeCoupon(t.db, clinic.id, {
      code: 'MINE',
      discountType: 'fixed',
      discountValueHundredths: 1_250,
      minOrderAmountCents: 4_000,
    });
    const res = await t.request(`/api/v1/coupons/${coupon.id}`, { key: readKey });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({
      id: coupon.id,
      code: 'MINE',
      discountType: 'fixed',
      discountValue: 12.5,
      minOrderAmount: 40,
    });
    expect(await statements(() => t.request(`/api/v1/coupons/${coupon.id}`, { key }))).toEqual({ status: 200, count: 2 });

    const other = await tenant();
    const theirs = await makeCoupon(t.db, other.clinic.id);
    const deleted = await makeCoupon(t.db, clinic.id, { deletedAt: new Date() });
    const bodies = [];
    for (const id of [theirs.id, randomUUID(), 'not-a-uuid', deleted.id]) {
      const miss = await t.request(`/api/v1/coupons/${id}`, { key });
      expect(miss.status, id).toBe(404);
      bodies.push(await miss.json());
    }
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    expect(bodies[0]).toEqual({ success: false, message: 'Coupon not found', code: 'NOT_FOUND' });
  });
});

describe('PUT /api/v1/coupons/{id}', () => {
  it('changes only the fields sent and validates the merged coupon', async () => {
    const { key, clinic } = await tenant();
    const coupon = await makeCoupon(t.db, clinic.id, {
      code: 'EDIT',
      discountValueHundredths: 5_000,
      startsAt: new Date('2030-01-01T00:00:00Z'),
    });
    await makeCouponRedemption(t.db, clinic.id, coupon.id);
    const res = await t.request(`/api/v1/coupons/${coupon.id}`, {
      key,
      method: 'PUT',
      body: { description: 'Half off', maxRedemptions: 10 },
    });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      code: 'EDIT',
      description: 'Half off',
      maxRedemptions: 10,
      discountType: 'percent',
      discountValue: 50,
      startsAt: '2030-01-01T00:00:00.000Z',
      redemptionCount: 1,
    });
    expect(new Date(data.updatedAt).getTime()).toBeGreaterThan(coupon.updatedAt.getTime() - 1);

    // A fixed coupon of $150 cannot become a percent coupon without a new value.
    const fixed = await makeCoupon(t.db, clinic.id, { code: 'FIXED150', discountType: 'fixed', discountValueHundredths: 15_000 });
    const bad = await t.request(`/api/v1/coupons/${fixed.id}`, { key, method: 'PUT', body: { discountType: 'percent' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors).toEqual([{ field: 'body.discountValue', message: 'a percent discount must be between 1 and 100' }]);
    const good = await t.request(`/api/v1/coupons/${fixed.id}`, {
      key,
      method: 'PUT',
      body: { discountType: 'percent', discountValue: 15 },
    });
    expect((await good.json()).data).toMatchObject({ discountType: 'percent', discountValue: 15 });

    // expiresAt is checked against the stored startsAt.
    const early = await t.request(`/api/v1/coupons/${coupon.id}`, { key, method: 'PUT', body: { expiresAt: '2029-12-31T00:00:00Z' } });
    expect(early.status).toBe(400);
    expect((await early.json()).message).toContain('body.expiresAt');
    const cleared = await t.request(`/api/v1/coupons/${coupon.id}`, {
      key,
      method: 'PUT',
      body: { startsAt: null, expiresAt: '2029-12-31T00:00:00Z', minOrderAmount: 20 },
    });
    expect((await cleared.json()).data).toMatchObject({ startsAt: null, expiresAt: '2029-12-31T00:00:00.000Z', minOrderAmount: 20 });
  });

  it('answers 409 for a code another coupon has, allows a change of case of its own code', async () => {
    const { key, clinic } = await tenant();
    await makeCoupon(t.db, clinic.id, { code: 'TAKEN' });
    const coupon = await makeCoupon(t.db, clinic.id, { code: 'MINE' });
    const res = await t.request(`/api/v1/coupons/${coupon.id}`, { key, method: 'PUT', body: { code: 'taken' } });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('taken') });
    const recased = await t.request(`/api/v1/coupons/${coupon.id}`, { key, method: 'PUT', body: { code: 'mine' } });
    expect((await recased.json()).data.code).toBe('mine');
  });

  it("refuses an empty or invalid body, 404s other clinics' ids, needs the write scope", async () => {
    const { key, readKey, clinic } = await tenant();
    const coupon = await makeCoupon(t.db, clinic.id);
    for (const body of [{}, { discountValue: 0 }, { code: 'x' }, { unknown: true }]) {
      const res = await t.request(`/api/v1/coupons/${coupon.id}`, { key, method: 'PUT', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const other = await tenant();
    const theirs = await makeCoupon(t.db, other.clinic.id);
    for (const id of [theirs.id, randomUUID(), 'nope']) {
      const res = await t.request(`/api/v1/coupons/${id}`, { key, method: 'PUT', body: { isActive: false } });
      expect(res.status, id).toBe(404);
    }
    const [still] = await t.db.select().from(coupons).where(eq(coupons.id, theirs.id));
    expect(still!.isActive).toBe(true);
    const denied = await t.request(`/api/v1/coupons/${coupon.id}`, { key: readKey, method: 'PUT', body: { isActive: false } });
    expect((await denied.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('DELETE /api/v1/coupons/{id}', () => {
  it('soft-deletes: redemptions stay, the coupon answers 404 everywhere, its code is free again', async () => {
    const { key, readKey, clinic } = await tenant();
    const coupon = await makeCoupon(t.db, clinic.id, { code: 'BYEBYE' });
    await makeCouponRedemption(t.db, clinic.id, coupon.id);
    const res = await t.request(`/api/v1/coupons/${coupon.id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ id: coupon.id, deleted: true });
    const [row] = await t.db.select().from(coupons).where(eq(coupons.id, coupon.id));
    expect(row!.deletedAt).not.toBeNull();
    for (const [path, method] of [
      [`/api/v1/coupons/${coupon.id}`, 'GET'],
      [`/api/v1/coupons/${coupon.id}`, 'DELETE'],
      [`/api/v1/coupons/${coupon.id}/performance`, 'GET'],
    ]) {
      expect((await t.request(path!, { key, method })).status, `${method} ${path}`).toBe(404);
    }
    expect((await t.request(`/api/v1/coupons/${coupon.id}`, { key, method: 'PUT', body: { isActive: false } })).status).toBe(404);
    expect((await t.request('/api/v1/billing/validate-coupon?code=BYEBYE', { key })).status).toBe(404);
    expect((await create(key, { ...valid, code: 'byebye' })).status).toBe(201);

    const other = await tenant();
    const theirs = await makeCoupon(t.db, other.clinic.id);
    for (const id of [theirs.id, randomUUID(), '%27--']) {
      expect((await t.request(`/api/v1/coupons/${id}`, { key, method: 'DELETE' })).status, id).toBe(404);
    }
    const [kept] = await t.db.select().from(coupons).where(eq(coupons.id, theirs.id));
    expect(kept!.deletedAt).toBeNull();
    const denied = await t.request(`/api/v1/coupons/${theirs.id}`, { key: readKey, method: 'DELETE' });
    expect((await denied.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/coupons/{id}/performance', () => {
  it('sums real redemptions: counts, unique customers, discount and order totals, by UTC month, in one query', async () => {
    const { key, clinic } = await tenant();
    const coupon = await makeCoupon(t.db, clinic.id, { maxRedemptions: 10 });
    const other = await makeCoupon(t.db, clinic.id);
    const [a, b] = [await patient(clinic.id), await patient(clinic.id)];
    await makeCouponRedemption(t.db, clinic.id, coupon.id, {
      patientId: a.id,
      orderAmountCents: 20_000,
      discountCents: 2_000,
      redeemedAt: new Date('2030-01-05T10:00:00Z'),
    });
    await makeCouponRedemption(t.db, clinic.id, coupon.id, {
      patientId: a.id,
      orderAmountCents: 10_050,
      discountCents: 1_005,
      redeemedAt: new Date('2030-01-31T23:30:00Z'),
    });
    await makeCouponRedemption(t.db, clinic.id, coupon.id, {
      patientId: b.id,
      orderAmountCents: 5_000,
      discountCents: 500,
      redeemedAt: new Date('2030-03-01T00:00:00Z'),
    });
    await makeCouponRedemption(t.db, clinic.id, coupon.id, {
      patientId: null,
      orderAmountCents: 1_000,
      discountCents: 100,
      redeemedAt: new Date('2030-03-02T00:00:00Z'),
    });
    await makeCouponRedemption(t.db, clinic.id, other.id, { patientId: b.id, orderAmountCents: 99_900, discountCents: 9_990 });

    const res = await t.request(`/api/v1/coupons/${coupon.id}/performance`, { key });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      couponId: coupon.id,
      code: coupon.code,
      redemptions: 4,
      uniqueCustomers: 2,
      totalDiscount: 36.05,
      totalOrderAmount: 360.5,
      averageDiscount: 9.01,
      averageOrderAmount: 90.13,
      maxRedemptions: 10,
      remainingRedemptions: 6,
      firstRedeemedAt: '2030-01-05T10:00:00.000Z',
      lastRedeemedAt: '2030-03-02T00:00:00.000Z',
      byMonth: [
        { month: '2030-01', redemptions: 2, uniqueCustomers: 1, totalDiscount: 30.05, totalOrderAmount: 300.5 },
        { month: '2030-03', redemptions: 2, uniqueCustomers: 1, totalDiscount: 6, totalOrderAmount: 60 },
      ],
    });
    expect(await statements(() => t.request(`/api/v1/coupons/${coupon.id}/performance`, { key }))).toEqual({ status: 200, count: 2 });
  });

  it("answers zeros for a coupon without redemptions, 404 for other clinics' ids", async () => {
    const { key, clinic } = await tenant();
    const coupon = await makeCoupon(t.db, clinic.id);
    const { data } = await (await t.request(`/api/v1/coupons/${coupon.id}/performance`, { key })).json();
    expect(data).toMatchObject({
      redemptions: 0,
      uniqueCustomers: 0,
      totalDiscount: 0,
      totalOrderAmount: 0,
      averageDiscount: null,
      averageOrderAmount: null,
      remainingRedemptions: null,
      firstRedeemedAt: null,
      lastRedeemedAt: null,
      byMonth: [],
    });
    const other = await tenant();
    const theirs = await makeCoupon(t.db, other.clinic.id);
    for (const id of [theirs.id, randomUUID(), 'x'.repeat(40)]) {
      expect((await t.request(`/api/v1/coupons/${id}/performance`, { key })).status, id).toBe(404);
    }
  });
});
