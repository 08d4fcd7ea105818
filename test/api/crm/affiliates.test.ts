// The affiliate program: the plan gate on every route (after the scope check), the configuration,
// the margin estimate, affiliates, tax documents, tiers, and tenant isolation on every id route.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { affiliatePrograms, affiliates, affiliateTaxDocuments, affiliateTiers } from '../../../drizzle/schema';
import { routeTable } from '../../../src/app';
import { useTestApp } from '../../helpers/app';
import { makeGlobalProduct, makeProgram, makeTenantProduct } from '../../helpers/program-fixtures';
import {
  activeReferrals,
  affiliateTenant,
  makeAffiliate,
  makeProgramConfig,
  makeReferral,
  makeTaxDocument,
  paidOrder,
} from './affiliates-fixtures';

const t = useTestApp();
const BASE = '/api/v1/affiliate-program';
const affiliateRoutes = () => routeTable(t.app).filter((r) => r.path === BASE || r.path.startsWith(`${BASE}/`));

/** A body each write route accepts, so the gate (not validation) is what answers. */
function bodyFor(method: string, path: string): unknown {
  if (method === 'GET' || method === 'DELETE') return undefined;
  if (path === BASE) return { affiliateProgramEnabled: true };
  if (path.endsWith('/affiliates/{membershipId}')) return { payoutNotes: 'x' };
  if (path.endsWith('/mark-paid')) return { notes: 'x' };
  if (path.endsWith('/exclude-commissions')) return { commissionIds: [crypto.randomUUID()] };
  if (path.endsWith('/reject')) return { reason: 'x' };
  if (path.endsWith('/tiers')) return { minActiveReferrals: 3, percentage: 12, label: 'Silver' };
  return undefined;
}
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, () => crypto.randomUUID());

describe('the Affiliates plan gate', () => {
  it('declares 16 operations, every one gated on affiliates', () => {
    const routes = affiliateRoutes();
    expect(routes).toHaveLength(16);
    for (const route of routes) expect(route.access, `${route.method} ${route.path}`).toMatchObject({ auth: 'key', gate: 'affiliates' });
  });

  it('answers 403 AFFILIATES_TIER_REQUIRED on every route to a clinic without the entitlement, after the scope check', async () => {
    const { key, readKey } = await affiliateTenant(t.db, { entitled: false });
    for (const route of affiliateRoutes()) {
      const name = `${route.method} ${route.path}`;
      const path = concrete(route.path);
      const body = bodyFor(route.method, route.path);
      const res = await t.request(path, { key, method: route.method, body });
      expect(res.status, name).toBe(403);
      expect((await res.json()).code, name).toBe('AFFILIATES_TIER_REQUIRED');
      const readOnly = await (await t.request(path, { key: readKey, method: route.method, body })).json();
      const access = route.access as { scope: string };
      expect(readOnly.code, name).toBe(access.scope === 'write' ? 'INSUFFICIENT_SCOPE' : 'AFFILIATES_TIER_REQUIRED');
    }
  });

  it('lets an entitled clinic through (its read-only key still may not write)', async () => {
    const { key, readKey } = await affiliateTenant(t.db);
    expect((await t.request(BASE, { key: readKey })).status).toBe(200);
    expect((await t.request(BASE, { key })).status).toBe(200);
    const res = await t.request(BASE, { key: readKey, method: 'PUT', body: { affiliateProgramEnabled: true } });
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET and PUT /api/v1/affiliate-program', () => {
  it('answers the defaults before anything is saved', async () => {
    const { key } = await affiliateTenant(t.db);
    const res = await t.request(BASE, { key });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      affiliateProgramEnabled: false,
      affiliateCommissionMode: 'percentage',
      affiliateFirstOrderRate: 0,
      affiliateDefaultRate: 0,
      affiliateCommissionDurationMonths: null,
      affiliateCookieWindowDays: 30,
      affiliateMinimumPayoutThreshold: 0,
      affiliatePayoutFrequency: 'monthly',
      affiliateMaxCount: null,
      isConfigured: false,
      affiliateCount: 0,
      tiers: [],
      updatedAt: null,
    });
  });

  it('saves the configuration (rates x 100, threshold in cents), merges partial updates, and lists tiers and affiliates', async () => {
    const { key, clinicId } = await affiliateTenant(t.db);
    const full = {
      affiliateProgramEnabled: true,
      affiliateCommissionMode: 'percentage',
      affiliateFirstOrderRate: 22.5,
      affiliateDefaultRate: 10,
      affiliateCommissionDurationMonths: 12,
      affiliateCookieWindowDays: 45,
      affiliateMinimumPayoutThreshold: 49.99,
      affiliatePayoutFrequency: 'biweekly',
      affiliateMaxCount: 100,
    };
    const res = await t.request(BASE, { key, method: 'PUT', body: full });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ ...full, isConfigured: true, affiliateCount: 0, tiers: [] });
    const [row] = await t.db.select().from(affiliatePrograms).where(eq(affiliatePrograms.clinicId, clinicId));
    expect(row).toMatchObject({ firstOrderRateHundredths: 2_250, minimumPayoutThresholdCents: 4_999, payoutFrequency: 'biweekly' });

    await makeAffiliate(t.db, clinicId);
    await makeAffiliate(t.db, clinicId, { status: 'removed' });
    await t.db.insert(affiliateTiers).values([
      { clinicId, minActiveReferrals: 10, percentageHundredths: 1_500, label: 'Gold' },
      { clinicId, minActiveReferrals: 3, percentageHundredths: 1_250, label: 'Silver' },
    ]);
    const partial = await t.request(BASE, {
      key,
      method: 'PUT',
      body: { affiliateDefaultRate: 12, affiliateCommissionDurationMonths: null },
    });
    const data = (await partial.json()).data;
    expect(data).toMatchObject({ ...full, affiliateDefaultRate: 12, affiliateCommissionDurationMonths: null, affiliateCount: 1 });
    expect(
      data.tiers.map((tier: { label: string; percentage: number; minActiveReferrals: number }) => [
        tier.label,
        tier.percentage,
        tier.minActiveReferrals,
      ]),
    ).toEqual([
      ['Silver', 12.5, 3],
      ['Gold', 15, 10],
    ]);
    expect((await (await t.request(BASE, { key })).json()).data).toEqual(data);
  });

  it('refuses bad input with 400 naming the field', async () => {
    const { key } = await affiliateTenant(t.db);
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ affiliateFirstOrderRate: 100.01 }, 'body.affiliateFirstOrderRate'],
      [{ affiliateDefaultRate: 250 }, 'body.affiliateDefaultRate'],
      [{ affiliateDefaultRate: -1 }, 'body.affiliateDefaultRate'],
      [{ affiliateDefaultRate: 1.005 }, 'body.affiliateDefaultRate'],
      [{ affiliateCommissionMode: 'tiered' }, 'body.affiliateCommissionMode'],
      [{ affiliatePayoutFrequency: 'daily' }, 'body.affiliatePayoutFrequency'],
      [{ affiliateCookieWindowDays: 0 }, 'body.affiliateCookieWindowDays'],
      [{ affiliateCommissionDurationMonths: 1.5 }, 'body.affiliateCommissionDurationMonths'],
      [{ affiliateMinimumPayoutThreshold: 10.001 }, 'body.affiliateMinimumPayoutThreshold'],
      [{ affiliateMaxCount: 0 }, 'body.affiliateMaxCount'],
      [{ affiliateProgramEnabled: 'yes' }, 'body.affiliateProgramEnabled'],
      [{ affiliateProgramEnabled: true, extra: 1 }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request(BASE, { key, method: 'PUT', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message, JSON.stringify(body)).toContain(field);
    }
    // Flat mode takes dollar rates above 100; switching back with them answers 400.
    expect(
      (await t.request(BASE, { key, method: 'PUT', body: { affiliateCommissionMode: 'flat', affiliateFirstOrderRate: 150 } })).status,
    ).toBe(200);
    const back = await t.request(BASE, { key, method: 'PUT', body: { affiliateCommissionMode: 'percentage' } });
    expect(back.status).toBe(400);
    expect((await back.json()).message).toContain('body.affiliateFirstOrderRate: a percentage rate must be between 0 and 100');
  });

  it('answers 409 when the commission mode changes while affiliates hold rate overrides', async () => {
    const { key, clinicId } = await affiliateTenant(t.db);
    const affiliate = await makeAffiliate(t.db, clinicId, { commissionRateHundredths: 1_500 });
    const res = await t.request(BASE, { key, method: 'PUT', body: { affiliateCommissionMode: 'flat' } });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('CONFLICT');
    await t.request(`${BASE}/affiliates/${affiliate.id}`, { key, method: 'PATCH', body: { commissionRate: null } });
    expect((await t.request(BASE, { key, method: 'PUT', body: { affiliateCommissionMode: 'flat' } })).status).toBe(200);
  });
});

describe('GET /api/v1/affiliate-program/margin-estimate', () => {
  it("prices each product with the pricing rules and the order fee waterfall, at the program's rates", async () => {
    const { key, clinicId } = await affiliateTenant(t.db);
    await makeProgramConfig(t.db, clinicId, { firstOrderRateHundredths: 2_000, defaultRateHundredths: 1_000 });
    const product = await makeGlobalProduct(t.db, { pharmacyBasePriceCents: 10_000 });
    await makeTenantProduct(t.db, clinicId, product.id, { facilitationFeeCents: 1_000 });
    const unpriced = await makeGlobalProduct(t.db);
    const program = await makeProgram(t.db, clinicId, { name: 'Weight loss', state: 'live' }, [
      { globalProductId: product.id, programBaseFeeCents: 5_000 },
      { globalProductId: unpriced.id },
    ]);
    await makeProgram(t.db, clinicId, { state: 'retired' }, [{ globalProductId: product.id, programBaseFeeCents: 5_000 }]);

    const res = await t.request(`${BASE}/margin-estimate`, { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    // displayPrice 160.00 = 100.00 pharmacy + 10.00 facilitation + 50.00 fee. Clinic share: 160.00 - 100.00 - 10.00
    // - 15.00 doctor - 4.94 processor (2.9% + 0.30) = 30.06.
    expect(data).toEqual({
      affiliateCommissionMode: 'percentage',
      affiliateFirstOrderRate: 20,
      affiliateDefaultRate: 10,
      products: [
        {
          programId: program.id,
          programName: 'Weight loss',
          programState: 'live',
          globalProductId: product.id,
          productName: product.name,
          isSellable: true,
          displayPrice: 160,
          clinicMargin: 30.06,
          commissionFirstOrder: 32,
          commissionDefault: 16,
          marginAfterFirstOrderCommission: -1.94,
          marginAfterDefaultCommission: 14.06,
        },
      ],
    });
  });
});

describe('affiliates', () => {
  it('lists affiliates newest first with referral counts, tier and commission totals', async () => {
    const { key, clinicId } = await affiliateTenant(t.db);
    await makeProgramConfig(t.db, clinicId);
    const older = await makeAffiliate(t.db, clinicId, { createdAt: new Date(Date.now() - 86_400_000), payoutContactMethod: 'PayPal' });
    const newer = await makeAffiliate(t.db, clinicId, { firstOrderRateHundredths: 3_000 });
    await t.db.insert(affiliateTiers).values({ clinicId, minActiveReferrals: 2, percentageHundredths: 1_500, label: 'Silver' });
    const referredAt = new Date(Date.now() - 60 * 86_400_000);
    await activeReferrals(t.db, clinicId, older.id, 2, referredAt);
    const referral = await makeReferral(t.db, clinicId, older.id, referredAt);
    await paidOrder(t.db, clinicId, referral.patientId, 10_000, new Date(Date.now() - 40 * 86_400_000));
    await t.request(`${BASE}/payouts/generate`, { key, method: 'POST' });

    const res = await t.request(`${BASE}/affiliates`, { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });
    expect(body.data.map((a: { id: string }) => a.id)).toEqual([newer.id, older.id]);
    expect(body.data[0]).toMatchObject({
      firstOrderRate: 30,
      commissionRate: null,
      referralCount: 0,
      activeReferralCount: 0,
      tier: null,
      earnedTotal: 0,
    });
    expect(body.data[1]).toMatchObject({
      id: older.id,
      firstName: older.firstName,
      email: older.email,
      referralCode: older.referralCode,
      status: 'active',
      payoutContactMethod: 'PayPal',
      referralCount: 3,
      activeReferralCount: 2,
      tier: { label: 'Silver', percentage: 15 },
      earnedTotal: 15,
      unpaidTotal: 15,
      paidTotal: 0,
    });
    const paged = await (await t.request(`${BASE}/affiliates?page=2&limit=1`, { key })).json();
    expect(paged.data.map((a: { id: string }) => a.id)).toEqual([older.id]);
    expect((await (await t.request(`${BASE}/affiliates?page=9`, { key })).json()).pagination.total).toBe(2);
    expect((await t.request(`${BASE}/affiliates?limit=500`, { key })).status).toBe(400);
  });

  it('PATCH sets and clears overrides and payout details (partial), validated against the mode', async () => {
    const { key, clinicId } = await affiliateTenant(t.db);
    const affiliate = await makeAffiliate(t.db, clinicId, { payoutNotes: 'keep me' });
    const patch = (body: unknown) => t.request(`${BASE}/affiliates/${affiliate.id}`, { key, method: 'PATCH', body });

    const res = await patch({ firstOrderRate: 30, commissionRate: 12.5, payoutContactMethod: ' Venmo ' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({
      id: affiliate.id,
      firstOrderRate: 30,
      commissionRate: 12.5,
      payoutContactMethod: 'Venmo',
      payoutNotes: 'keep me',
    });
    const [row] = await t.db.select().from(affiliates).where(eq(affiliates.id, affiliate.id));
    expect(row).toMatchObject({ firstOrderRateHundredths: 3_000, commissionRateHundredths: 1_250 });

    expect((await (await patch({ firstOrderRate: null, payoutNotes: null })).json()).data).toMatchObject({
      firstOrderRate: null,
      commissionRate: 12.5,
      payoutNotes: null,
    });

    for (const body of [
      {},
      { commissionRate: 100.5 },
      { firstOrderRate: -1 },
      { commissionRate: '10' },
      { payoutContactMethod: '' },
      { payoutContactMethod: 'x'.repeat(201) },
      { status: 'removed' },
    ]) {
      expect((await patch(body)).status, JSON.stringify(body)).toBe(400);
    }
    await makeProgramConfig(t.db, clinicId, { commissionMode: 'flat' });
    expect((await (await patch({ commissionRate: 150 })).json()).data.commissionRate).toBe(150);
  });
});

describe('tax documents', () => {
  it('lists documents newest first with a status filter', async () => {
    const { key, clinicId } = await affiliateTenant(t.db);
    const affiliate = await makeAffiliate(t.db, clinicId);
    const old = await makeTaxDocument(t.db, clinicId, affiliate.id, {
      submittedAt: new Date(Date.now() - 86_400_000),
      status: 'verified',
      reviewedAt: new Date(),
    });
    const recent = await makeTaxDocument(t.db, clinicId, affiliate.id, { documentType: 'w8ben', tinLastFour: null });
    const res = await t.request(`${BASE}/tax-documents`, { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.map((d: { id: string }) => d.id)).toEqual([recent.id, old.id]);
    expect(body.data[0]).toMatchObject({
      affiliate: { id: affiliate.id, email: affiliate.email },
      documentType: 'w8ben',
      taxYear: 2029,
      status: 'pending',
      tinLastFour: null,
      reviewedAt: null,
      rejectionReason: null,
    });
    const pending = await (await t.request(`${BASE}/tax-documents?status=pending`, { key })).json();
    expect(pending.data.map((d: { id: string }) => d.id)).toEqual([recent.id]);
    expect((await t.request(`${BASE}/tax-documents?status=lost`, { key })).status).toBe(400);
  });

  it('verifies or rejects (with a reason) a pending document; any other move is 409', async () => {
    const { key, clinicId } = await affiliateTenant(t.db);
    const affiliate = await makeAffiliate(t.db, clinicId);
    const a = await makeTaxDocument(t.db, clinicId, affiliate.id);
    const b = await makeTaxDocument(t.db, clinicId, affiliate.id);

    const verified = await t.request(`${BASE}/tax-documents/${a.id}/verify`, { key, method: 'POST' });
    expect(verified.status).toBe(200);
    expect((await verified.json()).data).toMatchObject({ id: a.id, status: 'verified', rejectionReason: null });

    for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 5 }, { reason: 'x'.repeat(1001) }, { reason: 'ok', extra: 1 }]) {
      expect((await t.request(`${BASE}/tax-documents/${b.id}/reject`, { key, method: 'POST', body })).status, JSON.stringify(body)).toBe(
        400,
      );
    }
    const rejected = await t.request(`${BASE}/tax-documents/${b.id}/reject`, {
      key,
      method: 'POST',
      body: { reason: ' Name does not match the TIN. ' },
    });
    expect(rejected.status).toBe(200);
    expect((await rejected.json()).data).toMatchObject({ id: b.id, status: 'rejected', rejectionReason: 'Name does not match the TIN.' });

    for (const [id, what, body] of [
      [a.id, 'verify'],
      [a.id, 'reject', { reason: 'x' }],
      [b.id, 'verify'],
      [b.id, 'reject', { reason: 'x' }],
    ] as const) {
      const res = await t.request(`${BASE}/tax-documents/${id}/${what}`, { key, method: 'POST', body });
      expect(res.status, `${what} ${id}`).toBe(409);
      expect((await res.json()).code).toBe('ILLEGAL_TRANSITION');
    }
    const rows = await t.db.select().from(affiliateTaxDocuments).where(eq(affiliateTaxDocuments.clinicId, clinicId));
    expect(rows.map((r) => [r.id, r.status]).sort()).toEqual(
      [
        [a.id, 'verified'],
        [b.id, 'rejected'],
      ].sort(),
    );
  });
});

describe('tiers', () => {
  it('creates (201) and deletes tiers; a duplicate minActiveReferrals is 409', async () => {
    const { key } = await affiliateTenant(t.db);
    const res = await t.request(`${BASE}/tiers`, { key, body: { minActiveReferrals: 5, percentage: 17.5, label: ' Gold ' } });
    expect(res.status).toBe(201);
    const created = (await res.json()).data;
    expect(created).toMatchObject({ minActiveReferrals: 5, percentage: 17.5, label: 'Gold' });

    const duplicate = await t.request(`${BASE}/tiers`, { key, body: { minActiveReferrals: 5, percentage: 20, label: 'Other' } });
    expect(duplicate.status).toBe(409);
    expect((await duplicate.json()).code).toBe('CONFLICT');

    for (const body of [
      {},
      { minActiveReferrals: 0, percentage: 10, label: 'x' },
      { minActiveReferrals: 2, percentage: 100.5, label: 'x' },
      { minActiveReferrals: 2, percentage: 10, label: '' },
      { minActiveReferrals: 2.5, percentage: 10, label: 'x' },
      { minActiveReferrals: 2, percentage: 10, label: 'x', extra: true },
    ]) {
      expect((await t.request(`${BASE}/tiers`, { key, body })).status, JSON.stringify(body)).toBe(400);
    }

    const deleted = await t.request(`${BASE}/tiers/${created.id}`, { key, method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect((await deleted.json()).data).toEqual({ id: created.id, deleted: true });
    expect((await t.request(`${BASE}/tiers/${created.id}`, { key, method: 'DELETE' })).status).toBe(404);
    expect((await t.request(`${BASE}/tiers`, { key, body: { minActiveReferrals: 5, percentage: 20, label: 'Again' } })).status).toBe(201);
  });
});

describe('reads', () => {
  it('answer in one statement after the key lookup', async () => {
    const { key, clinicId } = await affiliateTenant(t.db);
    await makeProgramConfig(t.db, clinicId);
    const affiliate = await makeAffiliate(t.db, clinicId);
    const referral = await makeReferral(t.db, clinicId, affiliate.id, new Date(Date.now() - 90 * 86_400_000));
    await paidOrder(t.db, clinicId, referral.patientId, 10_000, new Date(Date.now() - 45 * 86_400_000));
    await makeTaxDocument(t.db, clinicId, affiliate.id);
    const payout = (await (await t.request(`${BASE}/payouts/generate`, { key, method: 'POST' })).json()).data.payouts[0];
    for (const path of ['', '/margin-estimate', '/affiliates', '/payouts', `/payouts/${payout.id}/commissions`, '/tax-documents']) {
      await t.flush();
      t.forgetKeys(); // a cold key: the key lookup is counted
      t.queries.length = 0;
      const res = await t.request(`${BASE}${path}`, { key });
      expect(res.status, path).toBe(200);
      expect((await res.json()).data, path).not.toEqual([]);
      await t.flush();
      expect(
        t.queries.filter((q) => !q.includes('"request_logs"')),
        path,
      ).toHaveLength(2);
    }
  });
});

describe('tenant isolation', () => {
  it("answers another clinic's ids on every id route with the body an unknown id gets, and changes nothing", async () => {
    const mine = await affiliateTenant(t.db);
    const theirs = await affiliateTenant(t.db);
    await makeProgramConfig(t.db, theirs.clinicId);
    const affiliate = await makeAffiliate(t.db, theirs.clinicId);
    const referral = await makeReferral(t.db, theirs.clinicId, affiliate.id, new Date(Date.now() - 90 * 86_400_000));
    await paidOrder(t.db, theirs.clinicId, referral.patientId, 10_000, new Date(Date.now() - 45 * 86_400_000));
    const generated = (await (await t.request(`${BASE}/payouts/generate`, { key: theirs.key, method: 'POST' })).json()).data;
    const payout = generated.payouts[0];
    const doc = await makeTaxDocument(t.db, theirs.clinicId, affiliate.id);
    const [tier] = await t.db
      .insert(affiliateTiers)
      .values({ clinicId: theirs.clinicId, minActiveReferrals: 1, percentageHundredths: 1_000, label: 'T' })
      .returning();

    const ids: Record<string, string> = { membershipId: affiliate.id, id: payout.id, payoutId: payout.id, docId: doc.id, tierId: tier!.id };
    const idRoutes = affiliateRoutes().filter((r) => r.path.includes('{'));
    expect(idRoutes).toHaveLength(8);
    for (const route of idRoutes) {
      const name = `${route.method} ${route.path}`;
      const body = bodyFor(route.method, route.path);
      const theirPath = route.path.replace(/\{([^}]+)\}/g, (_, p: string) => ids[p]!);
      const foreign = await t.request(theirPath, { key: mine.key, method: route.method, body });
      const unknown = await t.request(concrete(route.path), { key: mine.key, method: route.method, body });
      const malformed = await t.request(route.path.replace(/\{[^}]+\}/g, 'not-a-uuid'), { key: mine.key, method: route.method, body });
      expect(foreign.status, name).toBe(404);
      const foreignBody = await foreign.json();
      expect(foreignBody, name).toEqual(await unknown.json());
      expect(foreignBody, name).toEqual(await malformed.json());
    }
    // Nothing of theirs moved.
    const theirPayouts = await (await t.request(`${BASE}/payouts`, { key: theirs.key })).json();
    expect(theirPayouts.data[0]).toMatchObject({ id: payout.id, status: 'pending', amount: 20, excludedCommissionCount: 0 });
    const [theirDoc] = await t.db.select().from(affiliateTaxDocuments).where(eq(affiliateTaxDocuments.id, doc.id));
    expect(theirDoc!.status).toBe('pending');
    expect(await t.db.$count(affiliateTiers, eq(affiliateTiers.id, tier!.id))).toBe(1);
    const [theirAffiliate] = await t.db.select().from(affiliates).where(eq(affiliates.id, affiliate.id));
    expect(theirAffiliate!.payoutNotes).toBeNull();
    // And lists show only the key's clinic.
    for (const path of ['/affiliates', '/payouts', '/tax-documents']) {
      expect((await (await t.request(`${BASE}${path}`, { key: mine.key })).json()).data, path).toEqual([]);
    }
  });
});
