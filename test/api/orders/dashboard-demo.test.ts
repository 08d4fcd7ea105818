// The dashboard and the analytics over the demo data (the seeders of the commerce core, the orders and
// this area): figures that agree with the orders and payouts endpoints over the same windows, seeded
// funnels and likes, no patient data in the activity feed, Harbor's ids answering 404 to Demo.
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { SEED_SESSIONS_PER_CLINIC, seedAnalytics } from '../../../scripts/seed/analytics';
import { seedCatalog, seedQuestionnaireId } from '../../../scripts/seed/catalog';
import { seedFoundation } from '../../../scripts/seed/foundation';
import { DEMO } from '../../../scripts/seed/ids';
import { seedOrders } from '../../../scripts/seed/orders';
import { seedProducts } from '../../../scripts/seed/products';
import { seedProgramId, seedPrograms, seedTenantProductId } from '../../../scripts/seed/programs';
import type { Database } from '../../../src/platform/db/client';
import { useTestApp } from '../../helpers/app';
import { makeKey } from '../../helpers/factories';

const t = useTestApp();
let demoKey: string;
const now = new Date();

beforeAll(async () => {
  await t.db.transaction(async (tx) => {
    const db = tx as unknown as Database;
    for (const seed of [seedFoundation, seedCatalog, seedProducts, seedPrograms, seedOrders, seedAnalytics]) await seed(db, now);
  });
  // Seeding twice adds nothing (fixed ids, on conflict do nothing).
  await seedAnalytics(t.db, now);
  demoKey = (await makeKey(t.db, DEMO.clinics.demo)).raw;
}, 120_000);

async function get(path: string) {
  const res = await t.request(path, { key: demoKey });
  expect(res.status, path).toBe(200);
  return (await res.json()).data;
}

const rows = async <T>(query: ReturnType<typeof sql>) => ((await t.db.execute(query)) as unknown as { rows: T[] }).rows;

describe('dashboard over the demo orders', () => {
  it('agrees with GET /orders/stats over the last 30 and 90 days and over the whole history', async () => {
    for (const period of ['30d', '90d']) {
      const metrics = await get(`/api/v1/dashboard/metrics?period=${period}`);
      const q = `startDate=${encodeURIComponent(metrics.window.startDate)}&endDate=${encodeURIComponent(metrics.window.endDate)}`;
      const stats = await get(`/api/v1/orders/stats?${q}`);
      expect(metrics.orders.current, period).toBe(stats.totalOrders);
      expect(metrics.paidOrders.current).toBe(stats.paidOrders);
      expect(metrics.revenue.current).toBe(stats.grossSales);
      expect(metrics.netRevenue.current).toBe(stats.netSales);
      const chart = await get(`/api/v1/dashboard/revenue-chart?${q}`);
      expect(chart.totals).toEqual({
        orders: stats.totalOrders,
        paidOrders: stats.paidOrders,
        revenue: stats.grossSales,
        refundedAmount: stats.refundedAmount,
        netRevenue: stats.netSales,
      });
      const summary = await get(`/api/v1/orders/summary?${q}`);
      expect(summary.totalOrders).toBe(metrics.orders.current);
    }
    const overview = await get('/api/v1/dashboard/overview');
    const all = await get('/api/v1/orders/stats');
    expect(overview.orders).toMatchObject({ total: all.totalOrders, paid: all.paidOrders });
    expect(overview.orders.total).toBeGreaterThanOrEqual(64);
    expect(overview.revenue).toMatchObject({ grossSales: all.grossSales, netSales: all.netSales, refundedAmount: all.refundedAmount });
    expect(overview.patients.total).toBe(40);
    expect(overview.patients.active).toBe((await get('/api/v1/programs/overview')).stats.totalPatients);
    expect(overview.pendingActions.failedPayments).toBe((await get('/api/v1/orders/needs-attention')).count);
    expect(overview.pendingActions.refundRequests).toBeGreaterThan(0);
    const balance = await get('/api/v1/payouts/balance');
    expect(overview.balance.available).toBe(balance.withdrawable);
  });

  it('earnings over the whole ledger agree with GET /payouts/balance', async () => {
    const start = new Date(now.getTime() - 1_000 * 86_400_000).toISOString();
    const report = await get(
      `/api/v1/dashboard/earnings-report?startDate=${encodeURIComponent(start)}&endDate=${encodeURIComponent(now.toISOString())}`,
    );
    const { balance } = await get('/api/v1/payouts/balance');
    expect(Math.round((report.gross - report.fees.total) * 100)).toBe(Math.round(balance.totalReceived * 100));
    expect(report.payouts).toBe(balance.totalWithdrawn);
    expect(report.refunds).toBeGreaterThan(0);
    expect(report.byMonth.length).toBeGreaterThanOrEqual(4);
  });

  it('lists recent activity without any patient name or email', async () => {
    const res = await t.request('/api/v1/dashboard/recent-activity?limit=100', { key: demoKey });
    const raw = await res.text();
    const { items } = JSON.parse(raw).data;
    expect(items).toHaveLength(100);
    expect(new Set(items.map((i: { source: string }) => i.source))).toEqual(new Set(['order_event', 'payment', 'refund', 'payout']));
    const people = await rows<{ first_name: string; last_name: string; email: string }>(
      sql`select first_name, last_name, email from patients where clinic_id = ${DEMO.clinics.demo}`,
    );
    for (const p of people) {
      expect(raw).not.toContain(p.email);
      expect(raw).not.toContain(`${p.first_name} ${p.last_name}`);
    }
    expect(raw).not.toContain('demo-patients.test');
  });

  it('projects the enrollments: one month of charges is about the monthly billing', async () => {
    const projection = await get('/api/v1/dashboard/projected-revenue?months=12');
    expect(projection.byMonth).toHaveLength(12);
    expect(projection.activeEnrollments).toBeGreaterThan(0);
    expect(projection.totals.charges).toBeGreaterThan(projection.activeEnrollments);
    expect(projection.byProgram.map((p: { programId: string }) => p.programId)).toContain(seedProgramId(0, 1));
  });
});

describe('analytics over the demo sessions and likes', () => {
  it('answers realistic funnels for both questionnaires', async () => {
    const forms = await get('/api/v1/analytics/forms');
    expect(forms.totals.started).toBe(SEED_SESSIONS_PER_CLINIC[0]);
    expect(forms.totals.completed).toBeGreaterThan(0);
    expect(forms.totals.abandoned).toBeGreaterThan(0);
    expect(forms.totals.started).toBe(forms.totals.completed + forms.totals.abandoned + forms.totals.inProgress);
    expect(forms.forms.map((f: { formId: string }) => f.formId).sort()).toEqual(
      [seedQuestionnaireId(0, 1), seedQuestionnaireId(0, 2)].sort(),
    );
    for (const form of forms.forms) {
      const { data } = await (await t.request(`/api/v1/analytics/forms/${form.formId}/sessions`, { key: demoKey })).json();
      const reached = data.funnel.map((s: { reached: number }) => s.reached);
      expect(reached[0]).toBe(form.started);
      expect(reached).toEqual([...reached].sort((a, b) => b - a));
      expect(reached.at(-1)).toBeLessThan(reached[0]);
      expect(reached.at(-1)).toBeGreaterThanOrEqual(form.completed);
    }
    const program = await get(`/api/v1/analytics/programs/${seedProgramId(0, 1)}/sessions`);
    expect(program.summary.started).toBeGreaterThan(0);
    expect(program.byForm.map((f: { formId: string }) => f.formId)).toEqual([seedQuestionnaireId(0, 1)]);
    // Sessions over about eight weeks.
    const [span] = await rows<{ days: number }>(
      sql`select extract(day from max(started_at) - min(started_at))::int as days from form_sessions where clinic_id = ${DEMO.clinics.demo}`,
    );
    expect(span!.days).toBeGreaterThanOrEqual(40);
  });

  it('counts the seeded likes, unique per patient and product', async () => {
    const ids = Array.from({ length: 13 }, (_, k) => seedTenantProductId(0, k + 1));
    const res = await t.request('/api/v1/likes/admin/counts', {
      key: demoKey,
      body: { tenantProductIds: [...ids, seedTenantProductId(1, 1)] },
    });
    const { counts, total } = (await res.json()).data;
    const direct = await rows<{ id: string; n: number }>(
      sql`select tenant_product_id as id, count(*)::int as n from product_likes where clinic_id = ${DEMO.clinics.demo} group by 1`,
    );
    for (const row of direct) expect(counts.find((c: { tenantProductId: string }) => c.tenantProductId === row.id).likes).toBe(row.n);
    expect(total).toBe(direct.reduce((sum, r) => sum + r.n, 0));
    expect(counts.at(-1)).toEqual({ tenantProductId: seedTenantProductId(1, 1), likes: 0 }); // Harbor's
    const analytics = await get(`/api/v1/likes/admin/analytics/${seedTenantProductId(0, 1)}?period=90d&granularity=week`);
    expect(analytics.totalLikes).toBe(analytics.uniquePatients);
    expect(analytics.likesInWindow).toBe(analytics.totalLikes);
    expect(analytics.totalLikes).toBeGreaterThan(5);
  });

  it("answers 404 to Harbor's form, program and tenant product", async () => {
    for (const path of [
      `/api/v1/analytics/forms/${seedQuestionnaireId(1, 1)}/sessions`,
      `/api/v1/analytics/programs/${seedProgramId(1, 1)}/sessions`,
      `/api/v1/likes/admin/analytics/${seedTenantProductId(1, 1)}`,
    ]) {
      expect((await t.request(path, { key: demoKey })).status, path).toBe(404);
    }
  });
});
