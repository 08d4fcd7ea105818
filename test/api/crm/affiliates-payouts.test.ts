// Commissions and affiliate payouts: the arithmetic of generate (first order vs later, override, tier,
// duration cut-off, threshold carry-over), its idempotency, the payout state machine and exclusions.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { affiliateCommissions, affiliatePayouts, affiliateTiers } from '../../../drizzle/schema';
import { lastCompletePeriod } from '../../../src/modules/crm/affiliate-program/rules';
import { useTestApp } from '../../helpers/app';
import { makeOrder } from '../../helpers/order-fixtures';
import { activeReferrals, affiliateTenant, makeAffiliate, makeProgramConfig, makeReferral, paidOrder } from './affiliates-fixtures';

const t = useTestApp();

// The 15th of the current month, noon UTC: the last complete monthly period is the previous month.
const real = new Date();
const at = (monthOffset: number, day: number, hour = 12) =>
  new Date(Date.UTC(real.getUTCFullYear(), real.getUTCMonth() + monthOffset, day, hour));
const NOW = at(0, 15);
const freeze = (date = NOW) => t.clock.freezeAt(date.getTime());

const generate = (key: string) => t.request('/api/v1/affiliate-program/payouts/generate', { key, method: 'POST' });

async function commissionsOf(affiliateId: string) {
  return t.db
    .select()
    .from(affiliateCommissions)
    .where(eq(affiliateCommissions.affiliateId, affiliateId))
    .orderBy(affiliateCommissions.earnedAt);
}

describe('POST /api/v1/affiliate-program/payouts/generate: commission arithmetic', () => {
  it('pays the first paid order at the first-order rate and later ones at the default rate, on subtotal - discount', async () => {
    freeze();
    const { clinicId, key } = await affiliateTenant(t.db);
    await makeProgramConfig(t.db, clinicId, { firstOrderRateHundredths: 2_000, defaultRateHundredths: 1_000 });
    const affiliate = await makeAffiliate(t.db, clinicId);
    const referral = await makeReferral(t.db, clinicId, affiliate.id, at(-2, 10));
    const first = await paidOrder(t.db, clinicId, referral.patientId, 10_000, at(-1, 1));
    const second = await paidOrder(t.db, clinicId, referral.patientId, 15_000, at(-1, 10), {
      discountCents: 1_000,
      taxCents: 900,
      shippingCents: 999,
    });
    const third = await paidOrder(t.db, clinicId, referral.patientId, 3_333, at(-1, 20));
    // Not commissioned: paid before the referral, refunded, cancelled, unpaid, paid after now.
    await paidOrder(t.db, clinicId, referral.patientId, 50_000, at(-2, 9));
    await paidOrder(t.db, clinicId, referral.patientId, 50_000, at(-1, 5), { status: 'refunded', refundedAt: at(-1, 6) });
    await paidOrder(t.db, clinicId, referral.patientId, 50_000, at(-1, 6), { status: 'cancelled' });
    await makeOrder(t.db, clinicId, { patientId: referral.patientId, subtotalCents: 50_000, status: 'pending_payment' });
    await paidOrder(t.db, clinicId, referral.patientId, 50_000, at(0, 16));

    const res = await generate(key);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      payoutFrequency: 'monthly',
      periodStart: at(-1, 1, 0).toISOString(),
      periodEnd: at(0, 1, 0).toISOString(),
      commissionsCreated: 3,
      commissionsAmount: 20 + 14 + 3.33,
      payoutsCreated: 1,
      carriedOver: [],
    });
    expect(data.payouts[0]).toMatchObject({
      amount: 37.33,
      status: 'pending',
      commissionCount: 3,
      excludedCommissionCount: 0,
      affiliate: { id: affiliate.id },
    });

    const rows = await commissionsOf(affiliate.id);
    expect(rows.map((r) => [r.orderId, r.isFirstOrder, r.baseAmountCents, r.rateHundredths, r.amountCents, r.status])).toEqual([
      [first.id, true, 10_000, 2_000, 2_000, 'included'],
      [second.id, false, 14_000, 1_000, 1_400, 'included'],
      [third.id, false, 3_333, 1_000, 333, 'included'], // 333.3 rounds half up to 333
    ]);
    expect(rows.every((r) => r.payoutId === data.payouts[0].id)).toBe(true);
  });

  it("uses the affiliate's overrides first, then the best tier reached by active referrals, then the program", async () => {
    freeze();
    const { clinicId, key } = await affiliateTenant(t.db);
    await makeProgramConfig(t.db, clinicId, { firstOrderRateHundredths: 2_000, defaultRateHundredths: 1_000 });
    await t.db.insert(affiliateTiers).values([
      { clinicId, minActiveReferrals: 1, percentageHundredths: 1_200, label: 'Bronze' },
      { clinicId, minActiveReferrals: 2, percentageHundredths: 1_500, label: 'Silver' },
      { clinicId, minActiveReferrals: 5, percentageHundredths: 4_000, label: 'Gold' },
    ]);
    // Overrides: first order 30%, later orders 25% (the tier it reaches does not apply).
    const overridden = await makeAffiliate(t.db, clinicId, { firstOrderRateHundredths: 3_000, commissionRateHundredths: 2_500 });
    await activeReferrals(t.db, clinicId, overridden.id, 2, at(-3, 1));
    const r1 = await makeReferral(t.db, clinicId, overridden.id, at(-2, 1));
    await paidOrder(t.db, clinicId, r1.patientId, 10_000, at(-1, 2));
    await paidOrder(t.db, clinicId, r1.patientId, 10_000, at(-1, 3));
    // Only a first-order override: later orders fall to the tier.
    const halfOverridden = await makeAffiliate(t.db, clinicId, { firstOrderRateHundredths: 3_000 });
    await activeReferrals(t.db, clinicId, halfOverridden.id, 2, at(-3, 1));
    const r2 = await makeReferral(t.db, clinicId, halfOverridden.id, at(-2, 1));
    await paidOrder(t.db, clinicId, r2.patientId, 10_000, at(-1, 2));
    await paidOrder(t.db, clinicId, r2.patientId, 10_000, at(-1, 3));
    // Two active referrals: Silver (15%) for first and later orders, not Bronze, not Gold.
    const tiered = await makeAffiliate(t.db, clinicId);
    await activeReferrals(t.db, clinicId, tiered.id, 2, at(-3, 1));
    const r3 = await makeReferral(t.db, clinicId, tiered.id, at(-2, 1));
    await paidOrder(t.db, clinicId, r3.patientId, 10_000, at(-1, 2));
    await paidOrder(t.db, clinicId, r3.patientId, 10_000, at(-1, 3));
    // No active referral (an inactive enrollment does not count): the program's rates.
    const plain = await makeAffiliate(t.db, clinicId);
    const r4 = await makeReferral(t.db, clinicId, plain.id, at(-2, 1));
    await paidOrder(t.db, clinicId, r4.patientId, 10_000, at(-1, 2));
    await paidOrder(t.db, clinicId, r4.patientId, 10_000, at(-1, 3));

    expect((await generate(key)).status).toBe(200);
    const rates = async (id: string) => (await commissionsOf(id)).map((c) => [c.isFirstOrder, c.rateHundredths, c.amountCents]);
    expect(await rates(overridden.id)).toEqual([
      [true, 3_000, 3_000],
      [false, 2_500, 2_500],
    ]);
    expect(await rates(halfOverridden.id)).toEqual([
      [true, 3_000, 3_000],
      [false, 1_500, 1_500],
    ]);
    expect(await rates(tiered.id)).toEqual([
      [true, 1_500, 1_500],
      [false, 1_500, 1_500],
    ]);
    expect(await rates(plain.id)).toEqual([
      [true, 2_000, 2_000],
      [false, 1_000, 1_000],
    ]);
  });

  it('pays flat amounts in flat mode (never more than the order), ignoring tiers', async () => {
    freeze();
    const { clinicId, key } = await affiliateTenant(t.db);
    await makeProgramConfig(t.db, clinicId, { commissionMode: 'flat', firstOrderRateHundredths: 5_000, defaultRateHundredths: 1_500 });
    await t.db.insert(affiliateTiers).values({ clinicId, minActiveReferrals: 1, percentageHundredths: 9_000, label: 'Ignored' });
    const affiliate = await makeAffiliate(t.db, clinicId);
    await activeReferrals(t.db, clinicId, affiliate.id, 1, at(-3, 1));
    const referral = await makeReferral(t.db, clinicId, affiliate.id, at(-2, 1));
    await paidOrder(t.db, clinicId, referral.patientId, 20_000, at(-1, 2));
    await paidOrder(t.db, clinicId, referral.patientId, 1_000, at(-1, 3));
    await generate(key);
    expect((await commissionsOf(affiliate.id)).map((c) => [c.rateHundredths, c.amountCents])).toEqual([
      [5_000, 5_000],
      [1_500, 1_000],
    ]);
  });

  it('stops earning at referral + commissionDurationMonths (exclusive), and skips removed affiliates', async () => {
    freeze();
    const { clinicId, key } = await affiliateTenant(t.db);
    await makeProgramConfig(t.db, clinicId, { commissionDurationMonths: 1 });
    const affiliate = await makeAffiliate(t.db, clinicId);
    const referredAt = at(-2, 10, 0);
    const referral = await makeReferral(t.db, clinicId, affiliate.id, referredAt);
    const inside = await paidOrder(t.db, clinicId, referral.patientId, 10_000, new Date(at(-1, 10, 0).getTime() - 1));
    await paidOrder(t.db, clinicId, referral.patientId, 10_000, at(-1, 10, 0));
    await paidOrder(t.db, clinicId, referral.patientId, 10_000, at(-1, 25));
    const removed = await makeAffiliate(t.db, clinicId, { status: 'removed' });
    const removedReferral = await makeReferral(t.db, clinicId, removed.id, referredAt);
    await paidOrder(t.db, clinicId, removedReferral.patientId, 10_000, at(-1, 2));

    const { data } = await (await generate(key)).json();
    expect(data.commissionsCreated).toBe(1);
    expect((await commissionsOf(affiliate.id)).map((c) => c.orderId)).toEqual([inside.id]);
    expect(await commissionsOf(removed.id)).toEqual([]);
  });

  it('carries commissions below the minimum payout threshold over to a later period, and keeps the current period for later', async () => {
    freeze();
    const { clinicId, key } = await affiliateTenant(t.db);
    await makeProgramConfig(t.db, clinicId, {
      minimumPayoutThresholdCents: 5_000,
      firstOrderRateHundredths: 2_000,
      defaultRateHundredths: 2_000,
    });
    const small = await makeAffiliate(t.db, clinicId);
    const smallReferral = await makeReferral(t.db, clinicId, small.id, at(-3, 1));
    await paidOrder(t.db, clinicId, smallReferral.patientId, 10_000, at(-1, 5)); // 20.00 last month
    const big = await makeAffiliate(t.db, clinicId);
    const bigReferral = await makeReferral(t.db, clinicId, big.id, at(-3, 1));
    await paidOrder(t.db, clinicId, bigReferral.patientId, 30_000, at(-1, 5)); // 60.00 last month
    await paidOrder(t.db, clinicId, bigReferral.patientId, 10_000, at(0, 2)); // 20.00 this month: not yet due

    const first = (await (await generate(key)).json()).data;
    expect(first.commissionsCreated).toBe(3);
    expect(first.payouts.map((p: { affiliate: { id: string }; amount: number }) => [p.affiliate.id, p.amount])).toEqual([[big.id, 60]]);
    expect(first.carriedOver).toEqual([
      {
        affiliate: { id: small.id, firstName: small.firstName, lastName: small.lastName, email: small.email },
        amount: 20,
        commissionCount: 1,
      },
    ]);
    expect((await commissionsOf(small.id)).map((c) => [c.status, c.payoutId])).toEqual([['earned', null]]);
    expect((await commissionsOf(big.id)).map((c) => c.status)).toEqual(['included', 'earned']);

    // A month later: the small affiliate's 20.00 carried over plus 40.00 of that period reach the threshold.
    freeze(at(1, 15));
    await paidOrder(t.db, clinicId, smallReferral.patientId, 20_000, at(0, 20));
    const next = (await (await generate(key)).json()).data;
    expect(next.periodStart).toBe(at(0, 1, 0).toISOString());
    const byAffiliate = Object.fromEntries(
      next.payouts.map((p: { affiliate: { id: string }; amount: number; commissionCount: number }) => [
        p.affiliate.id,
        [p.amount, p.commissionCount],
      ]),
    );
    expect(byAffiliate).toEqual({ [small.id]: [60, 2] });
    // The big affiliate's 20.00 of this period is below the threshold in its turn.
    expect(next.carriedOver.map((c: { affiliate: { id: string }; amount: number }) => [c.affiliate.id, c.amount])).toEqual([[big.id, 20]]);
  });

  it('is idempotent per period: a second call creates nothing', async () => {
    freeze();
    const { clinicId, key } = await affiliateTenant(t.db);
    await makeProgramConfig(t.db, clinicId);
    const affiliate = await makeAffiliate(t.db, clinicId);
    const referral = await makeReferral(t.db, clinicId, affiliate.id, at(-3, 1));
    await paidOrder(t.db, clinicId, referral.patientId, 10_000, at(-1, 5));
    expect((await (await generate(key)).json()).data.payoutsCreated).toBe(1);
    const again = (await (await generate(key)).json()).data;
    expect(again).toMatchObject({ commissionsCreated: 0, commissionsAmount: 0, payoutsCreated: 0, payouts: [], carriedOver: [] });
    expect(await t.db.$count(affiliatePayouts, eq(affiliatePayouts.clinicId, clinicId))).toBe(1);
    expect(await t.db.$count(affiliateCommissions, eq(affiliateCommissions.clinicId, clinicId))).toBe(1);
    // A late order of the same period after its payout exists waits for the next period's payout.
    await paidOrder(t.db, clinicId, referral.patientId, 10_000, at(-1, 6));
    const late = (await (await generate(key)).json()).data;
    expect(late).toMatchObject({ commissionsCreated: 1, payoutsCreated: 0 });
    expect((await commissionsOf(affiliate.id)).map((c) => c.status)).toEqual(['included', 'earned']);
  });

  it('uses weekly (Monday to Monday) and biweekly (14-day blocks from Monday 1970-01-05) periods in UTC', async () => {
    const wednesday = new Date('2030-01-16T10:00:00Z');
    expect(lastCompletePeriod('weekly', wednesday)).toEqual({
      start: new Date('2030-01-07T00:00:00Z'),
      end: new Date('2030-01-14T00:00:00Z'),
    });
    expect(lastCompletePeriod('weekly', new Date('2030-01-14T00:00:00Z'))).toEqual({
      start: new Date('2030-01-07T00:00:00Z'),
      end: new Date('2030-01-14T00:00:00Z'),
    });
    expect(lastCompletePeriod('monthly', new Date('2030-03-01T00:00:00Z'))).toEqual({
      start: new Date('2030-02-01T00:00:00Z'),
      end: new Date('2030-03-01T00:00:00Z'),
    });
    expect(lastCompletePeriod('monthly', new Date('2030-01-31T23:59:59Z'))).toEqual({
      start: new Date('2029-12-01T00:00:00Z'),
      end: new Date('2030-01-01T00:00:00Z'),
    });
    // 2030-01-14 is 21,924 days (1,566 blocks) after the anchor: a block runs 2030-01-14 to 2030-01-28.
    expect(lastCompletePeriod('biweekly', wednesday)).toEqual({
      start: new Date('2029-12-31T00:00:00Z'),
      end: new Date('2030-01-14T00:00:00Z'),
    });
    expect(lastCompletePeriod('biweekly', new Date('2030-01-28T00:00:00Z'))).toEqual({
      start: new Date('2030-01-14T00:00:00Z'),
      end: new Date('2030-01-28T00:00:00Z'),
    });

    freeze();
    const { clinicId, key } = await affiliateTenant(t.db);
    await makeProgramConfig(t.db, clinicId, { payoutFrequency: 'weekly' });
    const { data } = await (await generate(key)).json();
    expect({ start: new Date(data.periodStart), end: new Date(data.periodEnd) }).toEqual(lastCompletePeriod('weekly', NOW));
  });

  it('answers 409 while the program is not enabled (or never configured)', async () => {
    const { clinicId, key } = await affiliateTenant(t.db);
    const res = await generate(key);
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('CONFLICT');
    await makeProgramConfig(t.db, clinicId, { enabled: false });
    expect((await generate(key)).status).toBe(409);
  });
});

/** A clinic with one pending payout of two commissions (20.00 first order + 14.00 later order). */
async function pendingPayout() {
  freeze();
  const tenant = await affiliateTenant(t.db);
  await makeProgramConfig(t.db, tenant.clinicId);
  const affiliate = await makeAffiliate(t.db, tenant.clinicId);
  const referral = await makeReferral(t.db, tenant.clinicId, affiliate.id, at(-3, 1));
  await paidOrder(t.db, tenant.clinicId, referral.patientId, 10_000, at(-1, 2));
  await paidOrder(t.db, tenant.clinicId, referral.patientId, 14_000, at(-1, 3));
  const { data } = await (await generate(tenant.key)).json();
  const payout = data.payouts[0];
  const commissions = await commissionsOf(affiliate.id);
  return { ...tenant, affiliate, payout, commissions };
}

const action = (key: string, id: string, what: string, body?: unknown) =>
  t.request(`/api/v1/affiliate-program/payouts/${id}/${what}`, { key, method: 'POST', body });

describe('payout state machine', () => {
  it('moves pending -> approved -> paid; the commissions become paid', async () => {
    const { key, payout, affiliate } = await pendingPayout();
    expect(payout).toMatchObject({ status: 'pending', amount: 34, approvedAt: null, paidAt: null, notes: null });

    const approved = await action(key, payout.id, 'approve');
    expect(approved.status).toBe(200);
    expect((await approved.json()).data).toMatchObject({ id: payout.id, status: 'approved', approvedAt: NOW.toISOString(), paidAt: null });

    const paid = await action(key, payout.id, 'mark-paid', { notes: '  PayPal transfer 4F2K  ' });
    expect(paid.status).toBe(200);
    expect((await paid.json()).data).toMatchObject({
      status: 'paid',
      paidAt: NOW.toISOString(),
      notes: 'PayPal transfer 4F2K',
      amount: 34,
    });
    expect((await commissionsOf(affiliate.id)).map((c) => c.status)).toEqual(['paid', 'paid']);

    const listed = await (await t.request('/api/v1/affiliate-program/affiliates', { key })).json();
    expect(listed.data[0]).toMatchObject({ id: affiliate.id, earnedTotal: 34, paidTotal: 34, unpaidTotal: 0 });
  });

  it('refuses illegal moves with 409 ILLEGAL_TRANSITION and changes nothing', async () => {
    const { key, payout } = await pendingPayout();
    const expect409 = async (res: Awaited<ReturnType<typeof action>>) => {
      expect(res.status).toBe(409);
      expect((await res.json()).code).toBe('ILLEGAL_TRANSITION');
    };
    await expect409(await action(key, payout.id, 'mark-paid', {}));
    expect((await action(key, payout.id, 'approve')).status).toBe(200);
    await expect409(await action(key, payout.id, 'approve'));
    await expect409(await action(key, payout.id, 'exclude-commissions', { commissionIds: [crypto.randomUUID()] }));
    expect((await action(key, payout.id, 'mark-paid', {})).status).toBe(200);
    await expect409(await action(key, payout.id, 'mark-paid', {}));
    await expect409(await action(key, payout.id, 'approve'));
    const [row] = await t.db.select().from(affiliatePayouts).where(eq(affiliatePayouts.id, payout.id));
    expect(row).toMatchObject({ status: 'paid', amountCents: 3_400, notes: null });
  });

  it('refuses a mark-paid body with unknown fields or a non-string note (400)', async () => {
    const { key, payout } = await pendingPayout();
    await action(key, payout.id, 'approve');
    expect((await action(key, payout.id, 'mark-paid', { notes: 5 })).status).toBe(400);
    expect((await action(key, payout.id, 'mark-paid', { note: 'x' })).status).toBe(400);
    expect((await action(key, payout.id, 'mark-paid', { notes: 'x'.repeat(2001) })).status).toBe(400);
  });
});

describe('POST /api/v1/affiliate-program/payouts/{payoutId}/exclude-commissions', () => {
  it('excludes commissions and recomputes the amount in the same transaction', async () => {
    const { key, payout, commissions } = await pendingPayout();
    const later = commissions.find((c) => !c.isFirstOrder)!;
    const res = await action(key, payout.id, 'exclude-commissions', { commissionIds: [later.id.toUpperCase()] });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({
      id: payout.id,
      status: 'pending',
      amount: 20,
      commissionCount: 1,
      excludedCommissionCount: 1,
    });
    const [row] = await t.db.select().from(affiliatePayouts).where(eq(affiliatePayouts.id, payout.id));
    expect(row!.amountCents).toBe(2_000);

    // Listed with the payout as excluded; excluding it again changes nothing.
    const listed = await (await t.request(`/api/v1/affiliate-program/payouts/${payout.id}/commissions`, { key })).json();
    expect(listed.data.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual(
      commissions.map((c) => [c.id, c.id === later.id ? 'excluded' : 'included']),
    );
    expect((await (await action(key, payout.id, 'exclude-commissions', { commissionIds: [later.id] })).json()).data.amount).toBe(20);

    // Paid: the excluded commission stays excluded and is never paid.
    await action(key, payout.id, 'approve');
    await action(key, payout.id, 'mark-paid', {});
    const after = await t.db.select().from(affiliateCommissions).where(eq(affiliateCommissions.payoutId, payout.id));
    expect(after.map((c) => [c.id, c.status]).sort()).toEqual(
      commissions.map((c) => [c.id, c.id === later.id ? 'excluded' : 'paid']).sort(),
    );
  });

  it("answers 400 for ids that are not this payout's commissions (unknown, another payout's, another clinic's) and changes nothing", async () => {
    const one = await pendingPayout();
    const other = await pendingPayout();
    for (const id of [crypto.randomUUID(), other.commissions[0]!.id]) {
      const res = await action(one.key, one.payout.id, 'exclude-commissions', { commissionIds: [one.commissions[0]!.id, id] });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.message).toContain(id);
      expect(body.message).not.toContain(one.commissions[0]!.id);
    }
    const [row] = await t.db.select().from(affiliatePayouts).where(eq(affiliatePayouts.id, one.payout.id));
    expect(row!.amountCents).toBe(3_400);
    for (const body of [
      {},
      { commissionIds: [] },
      { commissionIds: ['not-a-uuid'] },
      { commissionIds: 'x' },
      { commissionIds: [one.commissions[0]!.id], extra: 1 },
    ]) {
      expect((await action(one.key, one.payout.id, 'exclude-commissions', body)).status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('GET /api/v1/affiliate-program/payouts and .../{id}/commissions', () => {
  it('lists payouts newest first with a status filter, and the commissions of one without patient emails', async () => {
    const { key, payout, affiliate, commissions } = await pendingPayout();
    const listed = await (await t.request('/api/v1/affiliate-program/payouts', { key })).json();
    expect(listed.pagination).toEqual({ page: 1, limit: 25, total: 1, totalPages: 1 });
    expect(listed.data[0]).toMatchObject({
      id: payout.id,
      affiliate: { id: affiliate.id, email: affiliate.email },
      amount: 34,
      status: 'pending',
      commissionCount: 2,
    });
    expect((await (await t.request('/api/v1/affiliate-program/payouts?status=paid', { key })).json()).data).toEqual([]);
    expect((await t.request('/api/v1/affiliate-program/payouts?status=unknown', { key })).status).toBe(400);
    expect((await (await t.request('/api/v1/affiliate-program/payouts?page=3', { key })).json()).pagination.total).toBe(1);

    const res = await t.request(`/api/v1/affiliate-program/payouts/${payout.id}/commissions?limit=1`, { key });
    expect(res.status).toBe(200);
    const page = await res.json();
    expect(page.pagination).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
    expect(page.data[0]).toMatchObject({
      id: commissions[0]!.id,
      affiliateId: affiliate.id,
      payoutId: payout.id,
      isFirstOrder: true,
      baseAmount: 100,
      rate: 20,
      amount: 20,
      status: 'included',
    });
    expect(Object.keys(page.data[0].patient).sort()).toEqual(['firstName', 'id', 'lastName']);
    expect(JSON.stringify(page)).not.toContain('@example.test');
    const second = await (await t.request(`/api/v1/affiliate-program/payouts/${payout.id}/commissions?page=2&limit=1`, { key })).json();
    expect(second.data.map((c: { id: string }) => c.id)).toEqual([commissions[1]!.id]);
  });
});
