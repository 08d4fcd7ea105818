// The clinic's catalog and its alias, pharmacy coverages, tenant products, discontinued products in use.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import {
  makeGlobalProduct,
  makeImageOverride,
  makeOwnProduct,
  makePharmacy,
  makeProgramUsing,
  makeQuestionnaireSelection,
  makeTenantProduct,
} from '../../helpers/catalog-fixtures';
import { makeKey, makeTenant } from '../../helpers/factories';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();
const MALFORMED = ['not-a-uuid', '123', 'x'.repeat(60)];
type Item = { id: string };

const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

describe('GET /api/v1/catalog and GET /api/v1/brand/product-catalog', () => {
  it('lists the global products offered through active tenant products, with fees in dollars and the filling pharmacy', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const primary = await makePharmacy(t.db, 'Primary Rx');
    const backup = await makePharmacy(t.db, 'Backup Rx');
    const priced = await makeGlobalProduct(
      t.db,
      {
        name: 'A priced',
        categories: ['weight_loss'],
        requiresCooler: true,
        pharmacyBasePriceCents: 12_900,
        description: 'd',
        imageUrl: 'https://img.test/a.png',
      },
      [
        { pharmacyId: backup.id, role: 'backup' },
        { pharmacyId: primary.id, role: 'primary' },
      ],
    );
    const unpriced = await makeGlobalProduct(t.db, { name: 'B unpriced' }, [{ pharmacyId: backup.id, role: 'backup' }]);
    const uncovered = await makeGlobalProduct(t.db, { name: 'C uncovered' });
    const inactive = await makeGlobalProduct(t.db, { name: 'D inactive' });
    const discontinued = await makeGlobalProduct(t.db, { name: 'E discontinued', isDiscontinued: true });
    const notOffered = await makeGlobalProduct(t.db, { name: 'F not offered' });
    const tpPriced = await makeTenantProduct(t.db, clinic.id, priced.id, { facilitationFeeCents: 2_500, priceCents: 19_950 });
    const tpUnpriced = await makeTenantProduct(t.db, clinic.id, unpriced.id, { facilitationFeeCents: 0 });
    const tpUncovered = await makeTenantProduct(t.db, clinic.id, uncovered.id);
    await makeTenantProduct(t.db, clinic.id, inactive.id, { isActive: false });
    await makeTenantProduct(t.db, clinic.id, discontinued.id);
    await makeTenantProduct(t.db, other.clinic.id, notOffered.id);
    await makeImageOverride(t.db, clinic.id, priced.id, 'https://img.test/brand.png');

    const res = await t.request('/api/v1/catalog', { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data).toEqual([
      {
        id: priced.id,
        name: 'A priced',
        slug: priced.slug,
        categories: ['weight_loss'],
        imageUrl: 'https://img.test/brand.png',
        description: 'd',
        requiresCooler: true,
        pharmacyPrice: 129,
        facilitationFee: 25,
        price: 199.5,
        pharmacyName: 'Primary Rx',
        pharmacyRole: 'primary',
        tenantProductId: tpPriced.id,
      },
      {
        id: unpriced.id,
        name: 'B unpriced',
        slug: unpriced.slug,
        categories: [],
        imageUrl: null,
        description: null,
        requiresCooler: false,
        pharmacyPrice: 100,
        facilitationFee: 0,
        price: null,
        pharmacyName: 'Backup Rx',
        pharmacyRole: 'backup',
        tenantProductId: tpUnpriced.id,
      },
      {
        id: uncovered.id,
        name: 'C uncovered',
        slug: uncovered.slug,
        categories: [],
        imageUrl: null,
        description: null,
        requiresCooler: false,
        pharmacyPrice: 100,
        facilitationFee: 15,
        price: null,
        pharmacyName: null,
        pharmacyRole: null,
        tenantProductId: tpUncovered.id,
      },
    ]);
    const alias = await t.request('/api/v1/brand/product-catalog', { key });
    expect(alias.status).toBe(200);
    expect(await alias.json()).toEqual(body);
    // The other clinic sees only its own offering.
    const theirs = (await (await t.request('/api/v1/catalog', { key: other.key })).json()).data;
    expect(theirs.map((i: Item) => i.id)).toEqual([notOffered.id]);
  });

  it('answers [] for a clinic offering nothing; one query; readable by AI-connector keys', async () => {
    const { clinic, key } = await makeTenant(t.db);
    expect((await (await t.request('/api/v1/catalog', { key })).json()).data).toEqual([]);
    expect(await statements(() => t.request('/api/v1/catalog', { key }))).toEqual({ status: 200, count: 2 });
    expect(await statements(() => t.request('/api/v1/brand/product-catalog', { key }))).toEqual({ status: 200, count: 2 });
    const ai = await makeKey(t.db, clinic.id, { kind: 'ai_connector', scopes: ['read'] });
    for (const path of ['/api/v1/catalog', '/api/v1/brand/product-catalog'])
      expect((await t.request(path, { key: ai.raw })).status).toBe(200);
  });
});

describe('GET /api/v1/public/products/{productId}/pharmacy-coverages', () => {
  it("answers the coverages of the clinic's own product and of a platform product, primary first, prices in dollars", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const a = await makePharmacy(t.db, 'Alpha Rx');
    const b = await makePharmacy(t.db, 'Beta Rx');
    const own = await makeOwnProduct(t.db, clinic.id, {}, [
      { pharmacyId: a.id, role: 'backup', priceCents: 3_000, customName: null },
      { pharmacyId: b.id, role: 'primary', priceCents: 2_550, customName: 'House' },
    ]);
    const res = await t.request(`/api/v1/public/products/${own.id}/pharmacy-coverages`, { key });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual([
      { id: own.coverages[1]!.id, customName: 'House', role: 'primary', price: 25.5, pharmacy: { id: b.id, name: b.name, slug: b.slug } },
      { id: own.coverages[0]!.id, customName: null, role: 'backup', price: 30, pharmacy: { id: a.id, name: a.name, slug: a.slug } },
    ]);
    const global = await makeGlobalProduct(t.db, {}, [{ pharmacyId: a.id, role: 'primary', priceCents: 9_999, customName: 'G' }]);
    const globalRes = await (await t.request(`/api/v1/public/products/${global.id}/pharmacy-coverages`, { key })).json();
    expect(globalRes.data).toEqual([
      { id: global.coverages[0]!.id, customName: 'G', role: 'primary', price: 99.99, pharmacy: { id: a.id, name: a.name, slug: a.slug } },
    ]);
    const bare = await makeOwnProduct(t.db, clinic.id);
    expect((await (await t.request(`/api/v1/public/products/${bare.id}/pharmacy-coverages`, { key })).json()).data).toEqual([]);
    expect(await statements(() => t.request(`/api/v1/public/products/${own.id}/pharmacy-coverages`, { key }))).toEqual({
      status: 200,
      count: 2,
    });
  });

  it('answers the same 404 for a cross-brand, unknown or non-uuid id', async () => {
    const { key } = await makeTenant(t.db);
    const harbor = await makeTenant(t.db);
    const pharmacy = await makePharmacy(t.db);
    const theirs = await makeOwnProduct(t.db, harbor.clinic.id, {}, [{ pharmacyId: pharmacy.id }]);
    for (const id of [theirs.id, crypto.randomUUID(), ...MALFORMED]) {
      const res = await t.request(`/api/v1/public/products/${id}/pharmacy-coverages`, { key });
      expect(res.status, id).toBe(404);
      expect(await res.json()).toEqual({ success: false, message: 'Product not found', code: 'NOT_FOUND' });
    }
  });
});

describe('GET /api/v1/tenant-products', () => {
  it("lists the clinic's offerings, active or not, with fees in dollars, selections and their global product", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const g1 = await makeGlobalProduct(t.db, {
      name: 'A first',
      pharmacyBasePriceCents: 12_345,
      packDurationMonths: 3,
      requiresCooler: true,
      categories: ['x'],
    });
    const g2 = await makeGlobalProduct(t.db, { name: 'B second', isDiscontinued: true });
    const tp1 = await makeTenantProduct(t.db, clinic.id, g1.id, {
      facilitationFeeCents: 1_999,
      priceCents: 25_000,
      placeholderFeeCents: 4_900,
      processorPriceId: 'price_dev_1',
    });
    const tp2 = await makeTenantProduct(t.db, clinic.id, g2.id, { isActive: false, facilitationFeeCents: 0 });
    await makeTenantProduct(t.db, other.clinic.id, g1.id);
    await makeImageOverride(t.db, clinic.id, g1.id, 'https://img.test/brand.png');
    const questionnaire = await makeQuestionnaireSelection(t.db, clinic.id, tp1.id);
    const res = await t.request('/api/v1/tenant-products', { key });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual([
      {
        id: tp1.id,
        globalProductId: g1.id,
        facilitationFee: 19.99,
        price: 250,
        placeholderFee: 49,
        processorPriceId: 'price_dev_1',
        isActive: true,
        questionnaireIds: [questionnaire.id],
        createdAt: tp1.createdAt.toISOString(),
        updatedAt: tp1.updatedAt.toISOString(),
        globalProduct: {
          id: g1.id,
          name: 'A first',
          slug: g1.slug,
          categories: ['x'],
          imageUrl: 'https://img.test/brand.png',
          pharmacyBasePrice: 123.45,
          packDurationMonths: 3,
          requiresCooler: true,
          isDiscontinued: false,
        },
      },
      {
        id: tp2.id,
        globalProductId: g2.id,
        facilitationFee: 0,
        price: null,
        placeholderFee: null,
        processorPriceId: null,
        isActive: false,
        questionnaireIds: [],
        createdAt: tp2.createdAt.toISOString(),
        updatedAt: tp2.updatedAt.toISOString(),
        globalProduct: {
          id: g2.id,
          name: 'B second',
          slug: g2.slug,
          categories: [],
          imageUrl: null,
          pharmacyBasePrice: 100,
          packDurationMonths: 1,
          requiresCooler: false,
          isDiscontinued: true,
        },
      },
    ]);
    expect(await statements(() => t.request('/api/v1/tenant-products', { key }))).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/global-products/discontinued-in-use', () => {
  it("lists discontinued products used by the clinic's non-retired programs, with those programs", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const gone = await makeGlobalProduct(t.db, { name: 'Gone', isDiscontinued: true });
    const goneUnused = await makeGlobalProduct(t.db, { isDiscontinued: true });
    const onlyRetired = await makeGlobalProduct(t.db, { isDiscontinued: true });
    const fine = await makeGlobalProduct(t.db);
    const live = await makeProgramUsing(t.db, clinic.id, [gone.id, fine.id], { name: 'B live', state: 'live' });
    const draft = await makeProgramUsing(t.db, clinic.id, [gone.id], { name: 'A draft', state: 'draft' });
    await makeProgramUsing(t.db, clinic.id, [gone.id, onlyRetired.id], { state: 'retired' });
    await makeProgramUsing(t.db, other.clinic.id, [goneUnused.id]);
    const res = await t.request('/api/v1/global-products/discontinued-in-use', { key });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual([
      {
        globalProductId: gone.id,
        name: 'Gone',
        slug: gone.slug,
        programs: [
          { id: draft.id, name: 'A draft', state: 'draft' },
          { id: live.id, name: 'B live', state: 'live' },
        ],
      },
    ]);
    expect(
      (await (await t.request('/api/v1/global-products/discontinued-in-use', { key: other.key })).json()).data.map(
        (d: { globalProductId: string }) => d.globalProductId,
      ),
    ).toEqual([goneUnused.id]);
    expect(await statements(() => t.request('/api/v1/global-products/discontinued-in-use', { key }))).toEqual({ status: 200, count: 2 });
  });
});

describe('access', () => {
  it('reads work with a read-only key; the non-catalog reads refuse AI-connector keys', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const ai = await makeKey(t.db, clinic.id, { kind: 'ai_connector', scopes: ['read'] });
    const own = await makeOwnProduct(t.db, clinic.id);
    for (const path of [
      '/api/v1/tenant-products',
      '/api/v1/global-products/discontinued-in-use',
      `/api/v1/public/products/${own.id}/pharmacy-coverages`,
    ]) {
      expect((await t.request(path, { key: readOnly.raw })).status, path).toBe(200);
      const res = await t.request(path, { key: ai.raw });
      expect((await res.json()).code, path).toBe('KEY_KIND_NOT_ALLOWED');
    }
  });
});
