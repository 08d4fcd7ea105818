// The demo data of the brand-content areas (scripts/seed/brand-content.ts), read through the API with
// keys of the two live demo clinics: treatments and selections, form links, notifications, intake
// requests, teleform removals, and the Demo Clinic's CRM connection (Harbor has none, nor the plan).
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { crmConnections } from '../../../drizzle/schema';
import { seedDemoData } from '../../../scripts/seed';
import { SEED_CRM_API_KEY, seedTreatmentId } from '../../../scripts/seed/brand-content';
import { DEMO } from '../../../scripts/seed/ids';
import { DEVELOPMENT_WEBHOOK_SECRET_KEY } from '../../../src/config';
import { decryptCrmCredentials } from '../../../src/modules/crm/connection/credentials';
import { useTestApp } from '../../helpers/app';
import { makeKey } from '../../helpers/factories';

const t = useTestApp();
let demoKey: string;
let harborKey: string;

beforeAll(async () => {
  await seedDemoData(t.db);
  demoKey = (await makeKey(t.db, DEMO.clinics.demo)).raw;
  harborKey = (await makeKey(t.db, DEMO.clinics.harbor)).raw;
});

const get = async (key: string, path: string) => {
  const res = await t.request(path, { key });
  expect(res.status, path).toBe(200);
  return res.json();
};

describe('brand content demo data', () => {
  it('gives both clinics treatments, some selected (one selection inactive), and keeps them apart', async () => {
    const demo = await get(demoKey, '/api/v1/treatments');
    expect(demo.data.length).toBeGreaterThanOrEqual(4);
    expect(demo.data.filter((x: { selected: boolean }) => x.selected).length).toBeGreaterThanOrEqual(2);
    expect(demo.data.every((x: { clinicSlug: string }) => x.clinicSlug === 'demo-clinic')).toBe(true);
    const brand = await get(demoKey, '/api/v1/brand-treatments');
    expect(brand.data.some((x: { selected: boolean }) => !x.selected)).toBe(true);
    const harbor = await get(harborKey, '/api/v1/treatments');
    expect(harbor.data.length).toBeGreaterThanOrEqual(2);
    expect((await t.request(`/api/v1/treatments/${seedTreatmentId(1, 1)}`, { key: demoKey })).status).toBe(404);
  });

  it('links forms to global products, and has read and unread notifications, intake requests and removals in several states', async () => {
    for (const key of [demoKey, harborKey]) {
      expect((await get(key, '/api/v1/forms/global-products')).data.length).toBeGreaterThanOrEqual(2);
      const { data } = await get(key, '/api/v1/notifications');
      expect(data.unreadCount).toBeGreaterThan(0);
      expect(data.total).toBeGreaterThan(data.unreadCount);
      const intake = await get(key, '/api/v1/intake-requests');
      expect(new Set(intake.data.map((r: { status: string }) => r.status)).size).toBeGreaterThanOrEqual(2);
      expect(intake.data.some((r: { requestedByUserId: string | null }) => r.requestedByUserId === null)).toBe(true);
      const removals = await get(key, '/api/v1/teleform-removals');
      expect(new Set(removals.data.map((r: { status: string }) => r.status))).toEqual(new Set(['scheduled', 'cancelled', 'completed']));
    }
  });

  it("connects the Demo Clinic's CRM with an encrypted key; Harbor has no connection and no CRM Connect", async () => {
    const { data } = await get(demoKey, '/api/v1/crm/connection');
    expect(data).toMatchObject({
      provider: 'hubspot',
      authType: 'api_key',
      phiSyncEnabled: true,
      credentialHint: `••••${SEED_CRM_API_KEY.slice(-4)}`,
    });
    const [row] = await t.db.select().from(crmConnections).where(eq(crmConnections.clinicId, DEMO.clinics.demo));
    expect(await decryptCrmCredentials(row!.encryptedCredentials, DEMO.clinics.demo, DEVELOPMENT_WEBHOOK_SECRET_KEY)).toEqual({
      apiKey: SEED_CRM_API_KEY,
    });
    expect(await t.db.select().from(crmConnections).where(eq(crmConnections.clinicId, DEMO.clinics.harbor))).toEqual([]);
    expect((await (await t.request('/api/v1/crm/connection', { key: harborKey })).json()).code).toBe('CRM_TIER_REQUIRED');
  });

  it('seeds again over itself without error or duplicates', async () => {
    const before = (await get(demoKey, '/api/v1/notifications')).data.total;
    await seedDemoData(t.db);
    expect((await get(demoKey, '/api/v1/notifications')).data.total).toBe(before);
  });
});
