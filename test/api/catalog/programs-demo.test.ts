// The demo data behind the programs area: real overview numbers, wind-down cases, every fee source,
// and Harbor's real ids answering 404 to the Demo clinic on every /programs/{id} path.
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../../scripts/seed';
import { SEED_TITRATION, seedGlobalProductId } from '../../../scripts/seed/catalog';
import { DEMO, DEMO_BLOCKS, demoId } from '../../../scripts/seed/ids';
import { seedProgramId } from '../../../scripts/seed/programs';
import { routeTable } from '../../../src/app';
import { useTestApp } from '../../helpers/app';
import { makeKey } from '../../helpers/factories';

const t = useTestApp();
let demoKey: string;

beforeAll(async () => {
  await seedDemoData(t.db);
  demoKey = (await makeKey(t.db, DEMO.clinics.demo)).raw;
});

const get = async (path: string) => (await (await t.request(path, { key: demoKey })).json()).data;

describe('programs demo data', () => {
  it('gives each live clinic six programs and at least 40 patients with an enrollment', async () => {
    const listed = await get('/api/v1/programs');
    expect(listed.map((p: { id: string }) => p.id).sort()).toEqual([1, 2, 3, 4, 5, 6].map((i) => seedProgramId(0, i)).sort());
    const rows = (await t.db.execute(sql`
      select clinic_id, count(distinct patient_id)::int as n from enrollments group by clinic_id`)) as unknown as {
      rows: { clinic_id: string; n: number }[];
    };
    const byClinic = Object.fromEntries(rows.rows.map((r) => [r.clinic_id, r.n]));
    expect(byClinic[DEMO.clinics.demo]).toBeGreaterThanOrEqual(40);
    expect(byClinic[DEMO.clinics.harbor]).toBeGreaterThanOrEqual(40);
  });

  it('prices products through every fee source, with one unpriced product in program 3', async () => {
    const sources = new Set<string>();
    for (const i of [1, 2, 3, 4, 5, 6]) {
      for (const product of (await get(`/api/v1/programs/${seedProgramId(0, i)}/products`)).products) sources.add(product.feeSource);
    }
    expect([...sources].sort()).toEqual(['clinic_override', 'none', 'program_base', 'tenant_placeholder']);
    const program3 = await get(`/api/v1/programs/${seedProgramId(0, 3)}`);
    expect(program3).toMatchObject({ state: 'draft', unpricedProductCount: 1 });
    const program1 = await get(`/api/v1/programs/${seedProgramId(0, 1)}`);
    expect(program1).toMatchObject({ state: 'live', unpricedProductCount: 0, sellableProductCount: 4 });
    const program2 = await get(`/api/v1/programs/${seedProgramId(0, 2)}/products`);
    expect(program2.products.find((p: { globalProductId: string }) => p.globalProductId === seedGlobalProductId(4))).toMatchObject({
      isSellable: false,
      hasResolvedPrice: true,
    });
  });

  it('answers a real overview', async () => {
    const overview = await get('/api/v1/programs/overview');
    expect(overview.stats).toMatchObject({ livePrograms: 3, draftPrograms: 2, pausedPrograms: 1, totalPatients: 30 });
    expect(overview.stats.estBilledMonthlyCents).toBeGreaterThan(overview.stats.estNetMonthlyCents);
    expect(overview.stats.estNetMonthlyCents).toBeGreaterThan(0);
    const types = overview.attention.map((a: { type: string; programId: string }) => `${a.type} ${a.programId}`);
    expect(types).toContain(`unpriced_products ${seedProgramId(0, 3)}`);
    expect(types).toContain(`discontinued_product_in_use ${seedProgramId(0, 2)}`);
    expect(types).toContain(`pharmacy_price_increase ${seedProgramId(0, 1)}`);
    expect((await get(`/api/v1/programs/${seedProgramId(0, 4)}/sync-status`)).isBehind).toBe(true);
  });

  it("answers 404 to Harbor's real ids on every /programs/{id} path", async () => {
    const harborProgram = seedProgramId(1, 1);
    const routes = routeTable(t.app).filter((r) => r.path.startsWith('/api/v1/programs/{id}') && !r.path.includes('upload-image'));
    expect(routes.length).toBeGreaterThanOrEqual(17);
    for (const route of routes) {
      const path = route.path
        .replace('{id}', harborProgram)
        .replace('{productId}', seedGlobalProductId(1))
        .replace('{attachmentId}', demoId(DEMO_BLOCKS.programTitration, 101));
      const body =
        route.method === 'GET' || route.method === 'DELETE'
          ? undefined
          : path.endsWith('/activate')
            ? { isActive: false }
            : path.endsWith('/visibility')
              ? { isPatientVisible: false }
              : path.endsWith('/titration-protocols')
                ? { titrationProtocolId: SEED_TITRATION.semaglutide }
                : route.path.endsWith('{attachmentId}')
                  ? { position: 1 }
                  : path.endsWith('/products')
                    ? { products: [] }
                    : route.path === '/api/v1/programs/{id}'
                      ? { name: 'Taken over' }
                      : undefined;
      const res = await t.request(path, { key: demoKey, method: route.method, body });
      expect(res.status, `${route.method} ${route.path}`).toBe(404);
    }
    const harbor = await makeKey(t.db, DEMO.clinics.harbor);
    const still = await (await t.request(`/api/v1/programs/${harborProgram}`, { key: harbor.raw })).json();
    expect(still.data).toMatchObject({ state: 'live', name: 'Harbor Weight Care' });
  });

  it('applies the wind-down rules to the demo programs', async () => {
    const refused = await t.request(`/api/v1/programs/${seedProgramId(0, 1)}`, { key: demoKey, method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect((await refused.json()).data).toEqual({ patients: 24 });
    const retired = await (await t.request(`/api/v1/programs/${seedProgramId(0, 4)}`, { key: demoKey, method: 'DELETE' })).json();
    expect(retired.data.state).toBe('retired');
    const removed = await (await t.request(`/api/v1/programs/${seedProgramId(0, 6)}`, { key: demoKey, method: 'DELETE' })).json();
    expect(removed.message).toBe('Program deleted');
    // Seeding again brings the demo back.
    await seedDemoData(t.db);
    expect((await get(`/api/v1/programs/${seedProgramId(0, 4)}`)).state).toBe('paused');
    expect((await get(`/api/v1/programs/${seedProgramId(0, 6)}`)).state).toBe('live');
  });
});
