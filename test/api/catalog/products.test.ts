// Products: the clinic's own products and the shared platform products in the Product shape;
// create, get, update, and the products-management aliases.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { products } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeGlobalProduct, makeImageOverride, makeOwnProduct, makePharmacy } from '../../helpers/catalog-fixtures';
import { makeKey, makeTenant } from '../../helpers/factories';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();
const MALFORMED = ['not-a-uuid', '123', 'x'.repeat(60)];
type P = { id: string; source: string };

const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

const NOT_FOUND = { success: false, message: 'Product not found', code: 'NOT_FOUND' };

describe('GET /api/v1/products', () => {
  it("lists the clinic's own products (newest first) then the platform products, never another clinic's", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const pharmacy = await makePharmacy(t.db);
    const older = await makeOwnProduct(t.db, clinic.id, { createdAt: new Date(Date.now() - 60_000) });
    const newer = await makeOwnProduct(
      t.db,
      clinic.id,
      {
        pharmacyPriceCents: 3_999,
        category: 'skin',
        categories: ['skin'],
        brandName: 'B',
        pharmacyProvider: 'P',
        pharmacyProductId: 'X-1',
        description: 'd',
        isActive: false,
      },
      [{ pharmacyId: pharmacy.id, customName: 'House B12' }],
    );
    const foreign = await makeOwnProduct(t.db, other.clinic.id);
    const global = await makeGlobalProduct(t.db);
    const res = await t.request('/api/v1/products', { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    const ids = data.map((p: P) => p.id);
    expect(ids.slice(0, 2)).toEqual([newer.id, older.id]);
    expect(ids).toContain(global.id);
    expect(ids).not.toContain(foreign.id);
    expect(data.slice(2).every((p: P) => p.source === 'platform')).toBe(true);
    expect(data[0]).toEqual({
      id: newer.id,
      name: newer.name,
      slug: newer.slug,
      description: 'd',
      category: 'skin',
      categories: ['skin'],
      isActive: false,
      pharmacyProvider: 'P',
      pharmacyPrice: 39.99,
      pharmacyProductId: 'X-1',
      brandName: 'B',
      imageUrl: null,
      pharmacyCoverages: [
        { id: newer.coverages[0]!.id, customName: 'House B12', pharmacy: { id: pharmacy.id, name: pharmacy.name, slug: pharmacy.slug } },
      ],
      source: 'clinic',
    });
    expect(await statements(() => t.request('/api/v1/products', { key }))).toEqual({ status: 200, count: 2 });
  });

  it('maps a platform product: primary pharmacy, base price in dollars, brand image override, first category', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const backup = await makePharmacy(t.db, 'Backup Rx');
    const primary = await makePharmacy(t.db, 'Primary Rx');
    const global = await makeGlobalProduct(
      t.db,
      { categories: ['hormone', 'mens_health'], pharmacyBasePriceCents: 4_550, imageUrl: 'https://img.test/shared.png', description: 'g' },
      [
        { pharmacyId: backup.id, role: 'backup', customName: 'B' },
        { pharmacyId: primary.id, role: 'primary', customName: 'P' },
      ],
    );
    const discontinued = await makeGlobalProduct(t.db, { isDiscontinued: true });
    await makeImageOverride(t.db, clinic.id, global.id, 'https://img.test/brand.png');
    const { data } = await (await t.request('/api/v1/products', { key })).json();
    expect(data.find((p: P) => p.id === global.id)).toEqual({
      id: global.id,
      name: global.name,
      slug: global.slug,
      description: 'g',
      category: 'hormone',
      categories: ['hormone', 'mens_health'],
      isActive: true,
      pharmacyProvider: 'Primary Rx',
      pharmacyPrice: 45.5,
      pharmacyProductId: null,
      brandName: null,
      imageUrl: 'https://img.test/brand.png',
      pharmacyCoverages: [
        { id: global.coverages[1]!.id, customName: 'P', pharmacy: { id: primary.id, name: primary.name, slug: primary.slug } },
        { id: global.coverages[0]!.id, customName: 'B', pharmacy: { id: backup.id, name: backup.name, slug: backup.slug } },
      ],
      source: 'platform',
    });
    expect(data.find((p: P) => p.id === discontinued.id)).toMatchObject({
      isActive: false,
      pharmacyProvider: null,
      category: null,
      pharmacyCoverages: [],
    });
    // Another clinic sees the shared image, not this clinic's override.
    const theirs = (await (await t.request('/api/v1/products', { key: other.key })).json()).data.find((p: P) => p.id === global.id);
    expect(theirs.imageUrl).toBe('https://img.test/shared.png');
  });
});

describe('POST /api/v1/products', () => {
  it('creates a product (201) with a slug unique within the clinic', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const res = await t.request('/api/v1/products', {
      key,
      body: { name: 'Vitamin B12 Injection', description: 'Weekly', pharmacyPrice: 35.5, pharmacyProductId: 'B12', isActive: true },
    });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toEqual({
      id: expect.any(String),
      name: 'Vitamin B12 Injection',
      slug: 'vitamin-b12-injection',
      description: 'Weekly',
      category: null,
      categories: [],
      isActive: true,
      pharmacyProvider: null,
      pharmacyPrice: 35.5,
      pharmacyProductId: 'B12',
      brandName: null,
      imageUrl: null,
      pharmacyCoverages: [],
      source: 'clinic',
    });
    const [row] = await t.db.select().from(products).where(eq(products.id, data.id));
    expect(row).toMatchObject({ clinicId: clinic.id, pharmacyPriceCents: 3_550 });

    const second = await (await t.request('/api/v1/products', { key, body: { name: 'Vitamin B12 injection!', pharmacyPrice: 1 } })).json();
    expect(second.data.slug).toBe('vitamin-b12-injection-2');
    const third = await (await t.request('/api/v1/products', { key, body: { name: 'Vitamin  B12 Injection', pharmacyPrice: 1 } })).json();
    expect(third.data.slug).toBe('vitamin-b12-injection-3');
    // Another clinic may use the same slug.
    const other = await makeTenant(t.db);
    const theirs = await (
      await t.request('/api/v1/products', { key: other.key, body: { name: 'Vitamin B12 Injection', pharmacyPrice: 1 } })
    ).json();
    expect(theirs.data.slug).toBe('vitamin-b12-injection');
    // The new product is readable and listed.
    expect((await t.request(`/api/v1/products/${data.id}`, { key })).status).toBe(200);
  });

  it('accepts the documented extras and defaults isActive to true', async () => {
    const { key } = await makeTenant(t.db);
    const res = await t.request('/api/v1/products', {
      key,
      body: {
        name: '  Crème ŝérum  ',
        pharmacyPrice: 0,
        category: 'skin',
        categories: ['skin', 'care'],
        brandName: 'Glow',
        pharmacyProvider: 'Lakeview',
      },
    });
    expect(res.status).toBe(201);
    expect((await res.json()).data).toMatchObject({
      name: 'Crème ŝérum',
      slug: 'creme-serum',
      isActive: true,
      category: 'skin',
      categories: ['skin', 'care'],
      brandName: 'Glow',
      pharmacyProvider: 'Lakeview',
      pharmacyPrice: 0,
    });
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const { key } = await makeTenant(t.db);
    const cases: [unknown, string][] = [
      [{ pharmacyPrice: 1 }, 'name'],
      [{ name: '', pharmacyPrice: 1 }, 'name'],
      [{ name: 'a\u0000b', pharmacyPrice: 1 }, 'name'],
      [{ name: 'x' }, 'pharmacyPrice'],
      [{ name: 'x', pharmacyPrice: 1.234 }, 'pharmacyPrice'],
      [{ name: 'x', pharmacyPrice: -1 }, 'pharmacyPrice'],
      [{ name: 'x', pharmacyPrice: '10' }, 'pharmacyPrice'],
      [{ name: 'x', pharmacyPrice: 1, isActive: 'yes' }, 'isActive'],
      [{ name: 'x', pharmacyPrice: 1, slug: 'mine' }, 'slug'],
      [{ name: 'x', pharmacyPrice: 1, categories: Array(21).fill('a') }, 'categories'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('/api/v1/products', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(await res.json()), JSON.stringify(body)).toContain(field);
    }
  });

  it('needs the write scope', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await t.request('/api/v1/products', { key: readOnly.raw, body: { name: 'x', pharmacyPrice: 1 } });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/products/{id} and its alias /api/v1/products-management/{id}', () => {
  it('answers an own product or a platform product, identically on both paths, in one query', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const own = await makeOwnProduct(t.db, clinic.id);
    const global = await makeGlobalProduct(t.db);
    for (const [id, source] of [
      [own.id, 'clinic'],
      [global.id, 'platform'],
    ] as const) {
      const a = await t.request(`/api/v1/products/${id}`, { key });
      const b = await t.request(`/api/v1/products-management/${id}`, { key });
      expect(a.status).toBe(200);
      const body = await a.json();
      expect(body.data).toMatchObject({ id, source });
      expect(await b.json()).toEqual(body);
      expect(await statements(() => t.request(`/api/v1/products/${id}`, { key }))).toEqual({ status: 200, count: 2 });
    }
  });

  it("answers the same 404 for another clinic's product, an unknown id and a malformed id", async () => {
    const { key } = await makeTenant(t.db);
    const harbor = await makeTenant(t.db);
    const theirs = await makeOwnProduct(t.db, harbor.clinic.id);
    for (const base of ['/api/v1/products', '/api/v1/products-management']) {
      for (const id of [theirs.id, crypto.randomUUID(), ...MALFORMED]) {
        const res = await t.request(`${base}/${id}`, { key });
        expect(res.status, `${base}/${id}`).toBe(404);
        expect(await res.json()).toEqual(NOT_FOUND);
      }
    }
  });
});

describe('PUT /api/v1/products/{id} and its alias PUT /api/v1/products-management/{id}', () => {
  it('changes only the fields sent, on both paths', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const pharmacy = await makePharmacy(t.db);
    const own = await makeOwnProduct(t.db, clinic.id, { description: 'keep', pharmacyProductId: 'KEEP' }, [{ pharmacyId: pharmacy.id }]);
    const res = await t.request(`/api/v1/products/${own.id}`, {
      key,
      method: 'PUT',
      body: { name: 'Renamed', pharmacyPrice: 12.34, isActive: false, brandName: null },
    });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      id: own.id,
      name: 'Renamed',
      slug: own.slug,
      description: 'keep',
      pharmacyProductId: 'KEEP',
      pharmacyPrice: 12.34,
      isActive: false,
      brandName: null,
      source: 'clinic',
    });
    expect(data.pharmacyCoverages).toHaveLength(1);
    const alias = await t.request(`/api/v1/products-management/${own.id}`, {
      key,
      method: 'PUT',
      body: { slug: 'renamed', description: null, categories: ['a', 'b'] },
    });
    expect(alias.status).toBe(200);
    expect((await alias.json()).data).toMatchObject({ slug: 'renamed', description: null, categories: ['a', 'b'], name: 'Renamed' });
    const [row] = await t.db.select().from(products).where(eq(products.id, own.id));
    expect(row!.pharmacyPriceCents).toBe(1_234);
    expect(row!.updatedAt.getTime()).toBeGreaterThan(own.updatedAt.getTime());
  });

  it('answers 409 for a slug another product of the clinic has', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const a = await makeOwnProduct(t.db, clinic.id);
    const b = await makeOwnProduct(t.db, clinic.id);
    const res = await t.request(`/api/v1/products/${b.id}`, { key, method: 'PUT', body: { slug: a.slug } });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('CONFLICT');
  });

  it("answers the same 404 for a platform product, another clinic's product, an unknown and a malformed id", async () => {
    const { key } = await makeTenant(t.db);
    const harbor = await makeTenant(t.db);
    const theirs = await makeOwnProduct(t.db, harbor.clinic.id);
    const global = await makeGlobalProduct(t.db);
    for (const base of ['/api/v1/products', '/api/v1/products-management']) {
      for (const id of [global.id, theirs.id, crypto.randomUUID(), ...MALFORMED]) {
        const res = await t.request(`${base}/${id}`, { key, method: 'PUT', body: { name: 'Hijack' } });
        expect(res.status, `${base}/${id}`).toBe(404);
        expect(await res.json()).toEqual(NOT_FOUND);
      }
    }
    const [row] = await t.db.select().from(products).where(eq(products.id, theirs.id));
    expect(row!.name).toBe(theirs.name);
  });

  it('refuses bad bodies with 400 naming the field, and needs the write scope', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const own = await makeOwnProduct(t.db, clinic.id);
    const cases: [unknown, string][] = [
      [{}, 'at least one field'],
      [{ name: '' }, 'name'],
      [{ slug: 'Not A Slug' }, 'slug'],
      [{ slug: 'double--hyphen' }, 'slug'],
      [{ pharmacyPrice: 10.001 }, 'pharmacyPrice'],
      [{ unknown: 1 }, 'unknown'],
      [{ description: 'a\u0001b' }, 'description'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request(`/api/v1/products/${own.id}`, { key, method: 'PUT', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(await res.json()), JSON.stringify(body)).toContain(field);
    }
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    for (const base of ['/api/v1/products', '/api/v1/products-management']) {
      const res = await t.request(`${base}/${own.id}`, { key: readOnly.raw, method: 'PUT', body: { name: 'x' } });
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
    }
  });
});

describe('GET /api/v1/products-management', () => {
  it('pages the products of GET /products with pagination inside data', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const own = [];
    for (let i = 0; i < 3; i++) own.push(await makeOwnProduct(t.db, clinic.id, { createdAt: new Date(Date.now() - i * 1000) }));
    const all = (await (await t.request('/api/v1/products', { key })).json()).data;
    const first = await t.request('/api/v1/products-management?limit=2', { key });
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body.data.products.map((p: P) => p.id)).toEqual([own[0]!.id, own[1]!.id]);
    expect(body.data.pagination).toEqual({ page: 1, limit: 2, total: all.length, totalPages: Math.ceil(all.length / 2) });
    const second = (await (await t.request('/api/v1/products-management?limit=2&page=2', { key })).json()).data;
    expect(second.products.map((p: P) => p.id)).toEqual(all.slice(2, 4).map((p: P) => p.id));
    const past = (await (await t.request('/api/v1/products-management?limit=2&page=9999', { key })).json()).data;
    expect(past).toEqual({ products: [], pagination: { page: 9999, limit: 2, total: all.length, totalPages: Math.ceil(all.length / 2) } });
    expect(await statements(() => t.request('/api/v1/products-management', { key }))).toEqual({ status: 200, count: 2 });
  });

  it('refuses bad paging with 400 naming the parameter', async () => {
    const { key } = await makeTenant(t.db);
    for (const query of ['limit=0', 'limit=201', 'page=0', 'page=abc']) {
      const res = await t.request(`/api/v1/products-management?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(await res.json())).toContain(query.split('=')[0]);
    }
  });
});

describe('access', () => {
  it('is not on the AI-connector allowlist', async () => {
    const { clinic } = await makeTenant(t.db);
    const ai = await makeKey(t.db, clinic.id, { kind: 'ai_connector', scopes: ['read'] });
    const res = await t.request('/api/v1/products', { key: ai.raw });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('KEY_KIND_NOT_ALLOWED');
  });
});
