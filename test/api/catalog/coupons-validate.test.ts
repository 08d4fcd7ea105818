import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { makeCoupon, makeCouponRedemption, makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
const DAY = 86_400_000;
const validate = (key: string, code: string) => t.request(`/api/v1/billing/validate-coupon?code=${encodeURIComponent(code)}`, { key });

describe('GET /api/v1/billing/validate-coupon', () => {
  it('says a current coupon is valid, ignoring case and surrounding spaces, with its terms, in one query', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const coupon = await makeCoupon(t.db, clinic.id, {
      code: 'Spring25',
      discountType: 'fixed',
      discountValueHundredths: 2_500,
      minOrderAmountCents: 10_000,
      maxRedemptions: 5,
      perCustomerLimit: 1,
      startsAt: new Date(Date.now() - DAY),
      expiresAt: new Date(Date.now() + DAY),
      scope: 'all_charges',
    });
    await makeCouponRedemption(t.db, clinic.id, coupon.id);
    const res = await validate(readOnly.raw, ' spring25 ');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({
      valid: true,
      reason: null,
      reasons: [],
      message: 'The coupon is valid',
      coupon: {
        id: coupon.id,
        code: 'Spring25',
        discountType: 'fixed',
        discountValue: 25,
        scope: 'all_charges',
        overMarginBehavior: 'reject',
        isActive: true,
        minOrderAmount: 100,
        perCustomerLimit: 1,
        maxRedemptions: 5,
        redemptionCount: 1,
        remainingRedemptions: 4,
      },
    });

    await t.flush();
    t.queries.length = 0;
    expect((await validate(key, 'SPRING25')).status).toBe(200);
    await t.flush();
    expect(t.queries.filter((q) => !q.includes('"request_logs"'))).toHaveLength(2);
  });

  it('says why a coupon is not valid: inactive, expired, not started, max redemptions reached', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const now = Date.now();
    await makeCoupon(t.db, clinic.id, { code: 'OFF', isActive: false });
    await makeCoupon(t.db, clinic.id, { code: 'OLD', expiresAt: new Date(now - 1000) });
    await makeCoupon(t.db, clinic.id, { code: 'SOON', startsAt: new Date(now + DAY) });
    const full = await makeCoupon(t.db, clinic.id, { code: 'FULL', maxRedemptions: 2 });
    await makeCouponRedemption(t.db, clinic.id, full.id);
    await makeCouponRedemption(t.db, clinic.id, full.id);
    const expected: [string, string, string][] = [
      ['OFF', 'inactive', 'The coupon is inactive'],
      ['OLD', 'expired', 'The coupon has expired'],
      ['SOON', 'not_started', 'The coupon is not valid yet'],
      ['FULL', 'max_redemptions_reached', 'The coupon has reached its maximum number of redemptions'],
    ];
    for (const [code, reason, message] of expected) {
      const res = await validate(key, code);
      expect(res.status, code).toBe(200);
      const body = await res.json();
      expect(body.data, code).toMatchObject({ valid: false, reason, reasons: [reason], message });
      expect(body.message).toBe(message);
    }
    const full2 = await (await validate(key, 'FULL')).json();
    expect(full2.data.coupon).toMatchObject({ redemptionCount: 2, remainingRedemptions: 0 });
  });

  it('lists every reason in a fixed order, the first as reason', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const coupon = await makeCoupon(t.db, clinic.id, {
      code: 'ALLBAD',
      isActive: false,
      expiresAt: new Date(Date.now() - DAY),
      maxRedemptions: 1,
    });
    await makeCouponRedemption(t.db, clinic.id, coupon.id);
    const { data } = await (await validate(key, 'allbad')).json();
    expect(data).toMatchObject({ valid: false, reason: 'inactive', reasons: ['inactive', 'expired', 'max_redemptions_reached'] });
  });

  it('checks dates at the clock of the request: startsAt inclusive, expiresAt exclusive', async () => {
    const { clinic, key } = await makeTenant(t.db);
    // Within the key's year of validity.
    const start = Math.floor(Date.now() / DAY) * DAY + 30 * DAY;
    await makeCoupon(t.db, clinic.id, { code: 'WINDOW', startsAt: new Date(start), expiresAt: new Date(start + DAY) });
    const at = async (ms: number) => {
      t.clock.freezeAt(ms);
      return (await (await validate(key, 'WINDOW')).json()).data.reason;
    };
    expect(await at(start - 1)).toBe('not_started');
    expect(await at(start)).toBeNull();
    expect(await at(start + DAY - 1)).toBeNull();
    expect(await at(start + DAY)).toBe('expired');
  });

  it("answers 404 for a code no live coupon of the clinic has (another clinic's, a deleted one, an unknown one)", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    await makeCoupon(t.db, other.clinic.id, { code: 'THEIRS' });
    await makeCoupon(t.db, clinic.id, { code: 'DELETED', deletedAt: new Date() });
    const bodies = [];
    for (const code of ['THEIRS', 'DELETED', 'NOPE', 'x'.repeat(100), "' or 1=1 --"]) {
      const res = await validate(key, code);
      expect(res.status, code).toBe(404);
      bodies.push(await res.json());
    }
    for (const body of bodies) expect(body).toEqual({ success: false, message: 'Coupon not found', code: 'NOT_FOUND' });
  });

  it('answers 400 naming the code when it is missing, empty, blank, too long or holds control characters', async () => {
    const { key } = await makeTenant(t.db);
    for (const query of ['', '?code=', '?code=%20%20', `?code=${'x'.repeat(101)}`, '?code=a%00b']) {
      const res = await t.request(`/api/v1/billing/validate-coupon${query}`, { key });
      expect(res.status, query).toBe(400);
      const body = await res.json();
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.message, query).toContain('query.code');
    }
    // A parameter the operation does not take is named before the missing one (docs/api-conventions.md).
    const unknown = await t.request('/api/v1/billing/validate-coupon?other=1', { key });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).message).toContain('query.other');
  });
});
