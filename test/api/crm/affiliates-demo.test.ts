// The demo data of the affiliate program: the Demo Clinic's program, affiliates, referred orders,
// commissions, a generated payout, tax documents and tiers; Harbor Clinic has no entitlement and none.
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../../scripts/seed';
import { DEMO } from '../../../scripts/seed/ids';
import { rowsOf } from '../../../src/platform/db/sql';
import { useTestApp } from '../../helpers/app';
import { makeKey } from '../../helpers/factories';

const t = useTestApp();
const TABLES = [
  'affiliate_programs',
  'affiliates',
  'affiliate_referrals',
  'affiliate_commissions',
  'affiliate_payouts',
  'affiliate_tax_documents',
  'affiliate_tiers',
];
let demoKey: string;

const counts = async () => {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const rows = await rowsOf<{ clinic: string; n: number }>(
      t.db,
      sql.raw(`select clinic_id::text as clinic, count(*)::int as n from ${table} group by clinic_id`),
    );
    for (const row of rows) out[`${table} ${row.clinic === DEMO.clinics.demo ? 'demo' : row.clinic}`] = row.n;
  }
  return out;
};

beforeAll(async () => {
  await seedDemoData(t.db);
  demoKey = (await makeKey(t.db, DEMO.clinics.demo)).raw;
});

const get = async (path: string, key = demoKey) => {
  const res = await t.request(`/api/v1/affiliate-program${path}`, { key });
  expect(res.status, path).toBe(200);
  return res.json();
};

describe('affiliate demo data', () => {
  it('gives the Demo Clinic an enabled program with tiers, affiliates with referrals, commissions and a payout', async () => {
    const config = (await get('')).data;
    expect(config).toMatchObject({
      affiliateProgramEnabled: true,
      affiliateCommissionMode: 'percentage',
      isConfigured: true,
      affiliatePayoutFrequency: 'monthly',
    });
    expect(config.tiers).toHaveLength(2);
    expect(config.affiliateCount).toBeGreaterThanOrEqual(3);

    const listed = await get('/affiliates');
    expect(listed.data.length).toBeGreaterThanOrEqual(3);
    expect(
      listed.data.filter((a: { referralCount: number; earnedTotal: number }) => a.referralCount > 0 && a.earnedTotal > 0).length,
    ).toBeGreaterThanOrEqual(3);

    const payouts = await get('/payouts');
    expect(payouts.data.length).toBeGreaterThanOrEqual(1);
    const payout = payouts.data[0];
    expect(payout).toMatchObject({ status: 'pending' });
    expect(payout.amount).toBeGreaterThanOrEqual(config.affiliateMinimumPayoutThreshold);
    const commissions = await get(`/payouts/${payout.id}/commissions`);
    expect(commissions.data.length).toBe(payout.commissionCount);
    expect(commissions.data.some((c: { isFirstOrder: boolean }) => c.isFirstOrder)).toBe(true);

    const docs = (await get('/tax-documents')).data.map((d: { status: string }) => d.status);
    expect(docs).toContain('pending');
    expect(docs).toContain('verified');

    const estimate = (await get('/margin-estimate')).data;
    expect(estimate.products.length).toBeGreaterThan(0);
  });

  it('commissions only referred orders the API would commission (generating again creates nothing)', async () => {
    const res = await t.request('/api/v1/affiliate-program/payouts/generate', { key: demoKey, method: 'POST' });
    expect((await res.json()).data).toMatchObject({ commissionsCreated: 0, payoutsCreated: 0 });
  });

  it('seeds idempotently and gives Harbor Clinic nothing (its plan has no entitlement: 403)', async () => {
    const before = await counts();
    expect(Object.keys(before).every((k) => k.endsWith(' demo'))).toBe(true);
    await seedDemoData(t.db);
    expect(await counts()).toEqual(before);
    const harbor = await makeKey(t.db, DEMO.clinics.harbor);
    const res = await t.request('/api/v1/affiliate-program', { key: harbor.raw });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('AFFILIATES_TIER_REQUIRED');
  });
});
