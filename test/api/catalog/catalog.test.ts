// Shared catalogues: program templates, titration protocols, global form structures.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { makeFormStructure, makeGlobalProduct, makeTemplate, makeTitrationProtocol } from '../../helpers/catalog-fixtures';
import { makeKey, makeTenant } from '../../helpers/factories';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();
const MALFORMED = ['not-a-uuid', '123', 'x'.repeat(60)];

const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

describe('GET /api/v1/program-templates', () => {
  it('lists active templates with their product count and fee in dollars; inactive ones are hidden', async () => {
    const { key } = await makeTenant(t.db);
    const a = await makeGlobalProduct(t.db);
    const b = await makeGlobalProduct(t.db);
    const active = await makeTemplate(t.db, { nonMedicalServiceFeeCents: 4_950, version: 3, description: 'GLP-1' }, [
      { globalProductId: a.id, displayOrder: 2 },
      { globalProductId: b.id, displayOrder: 1 },
    ]);
    const inactive = await makeTemplate(t.db, { isActive: false });
    const res = await t.request('/api/v1/program-templates', { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    const found = data.find((x: { id: string }) => x.id === active.id);
    expect(found).toMatchObject({
      name: active.name,
      slug: active.slug,
      description: 'GLP-1',
      nonMedicalServiceFee: 49.5,
      version: 3,
      productCount: 2,
    });
    expect(data.some((x: { id: string }) => x.id === inactive.id)).toBe(false);
    const names = data.map((x: { name: string }) => x.name);
    expect(names).toEqual([...names].sort());
  });

  it('is one query after the key lookup (two round trips)', async () => {
    const { key } = await makeTenant(t.db);
    expect(await statements(() => t.request('/api/v1/program-templates', { key }))).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/program-templates/{id}', () => {
  it('answers the template with its products in display order, fees in dollars', async () => {
    const { key } = await makeTenant(t.db);
    const a = await makeGlobalProduct(t.db);
    const b = await makeGlobalProduct(t.db);
    const template = await makeTemplate(t.db, {}, [
      { globalProductId: a.id, displayOrder: 2, programBaseFeeCents: 9_900 },
      { globalProductId: b.id, displayOrder: 1, programBaseFeeCents: null, isPatientVisible: false },
    ]);
    const res = await t.request(`/api/v1/program-templates/${template.id}`, { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.id).toBe(template.id);
    expect(data.productCount).toBe(2);
    expect(data.products).toEqual([
      { globalProductId: b.id, name: b.name, displayOrder: 1, isPatientVisible: false, programBaseFee: null },
      { globalProductId: a.id, name: a.name, displayOrder: 2, isPatientVisible: true, programBaseFee: 99 },
    ]);
  });

  it('answers the same 404 for an unknown, an inactive and a malformed id', async () => {
    const { key } = await makeTenant(t.db);
    const inactive = await makeTemplate(t.db, { isActive: false });
    const bodies = [];
    for (const id of [crypto.randomUUID(), inactive.id, ...MALFORMED]) {
      const res = await t.request(`/api/v1/program-templates/${id}`, { key });
      expect(res.status, id).toBe(404);
      bodies.push(await res.json());
    }
    for (const body of bodies) expect(body).toEqual({ success: false, message: 'Program template not found', code: 'NOT_FOUND' });
  });

  it('is one query after the key lookup (two round trips)', async () => {
    const { key } = await makeTenant(t.db);
    const template = await makeTemplate(t.db);
    expect(await statements(() => t.request(`/api/v1/program-templates/${template.id}`, { key }))).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/program-templates/{id}/global-products', () => {
  it("answers the template's global products with the template's link fields, money in dollars", async () => {
    const { key } = await makeTenant(t.db);
    const product = await makeGlobalProduct(t.db, {
      categories: ['weight_loss'],
      description: 'd',
      imageUrl: 'https://img.test/a.png',
      pharmacyBasePriceCents: 12_999,
      packDurationMonths: 3,
      vialsPerPack: 2,
      supplyDays: 84,
      requiresCooler: true,
      allowPrepay: true,
      isDiscontinued: false,
    });
    const template = await makeTemplate(t.db, {}, [{ globalProductId: product.id, displayOrder: 4, programBaseFeeCents: 5_000 }]);
    const res = await t.request(`/api/v1/program-templates/${template.id}/global-products`, { key });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual([
      {
        id: product.id,
        name: product.name,
        slug: product.slug,
        categories: ['weight_loss'],
        description: 'd',
        imageUrl: 'https://img.test/a.png',
        pharmacyBasePrice: 129.99,
        packDurationMonths: 3,
        vialsPerPack: 2,
        supplyDays: 84,
        requiresCooler: true,
        allowPrepay: true,
        isDiscontinued: false,
        displayOrder: 4,
        isPatientVisible: true,
        programBaseFee: 50,
      },
    ]);
  });

  it('answers [] for a template without products and 404 for unknown or malformed ids', async () => {
    const { key } = await makeTenant(t.db);
    const empty = await makeTemplate(t.db);
    expect((await (await t.request(`/api/v1/program-templates/${empty.id}/global-products`, { key })).json()).data).toEqual([]);
    for (const id of [crypto.randomUUID(), ...MALFORMED]) {
      const res = await t.request(`/api/v1/program-templates/${id}/global-products`, { key });
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe('NOT_FOUND');
    }
  });

  it('is one query after the key lookup (two round trips)', async () => {
    const { key } = await makeTenant(t.db);
    const template = await makeTemplate(t.db, {}, [{ globalProductId: (await makeGlobalProduct(t.db)).id }]);
    expect(await statements(() => t.request(`/api/v1/program-templates/${template.id}/global-products`, { key }))).toEqual({
      status: 200,
      count: 2,
    });
  });
});

describe('GET /api/v1/titration-protocols', () => {
  it('lists the shared protocols with their levels', async () => {
    const { key } = await makeTenant(t.db);
    const protocol = await makeTitrationProtocol(t.db, { description: 'steps' });
    const res = await t.request('/api/v1/titration-protocols', { key });
    expect(res.status).toBe(200);
    const found = (await res.json()).data.find((x: { id: string }) => x.id === protocol.id);
    expect(found).toEqual({
      id: protocol.id,
      name: protocol.name,
      description: 'steps',
      maxLevel: 2,
      createdAt: protocol.createdAt.toISOString(),
      levels: [
        { level: 1, dose: '1 mg', weeks: 4 },
        { level: 2, dose: '2 mg', weeks: 0 },
      ],
    });
    expect(await statements(() => t.request('/api/v1/titration-protocols', { key }))).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/global-form-structures', () => {
  it('lists the shared form structures with their structure documents', async () => {
    const { key } = await makeTenant(t.db);
    const form = await makeFormStructure(t.db, { category: 'follow_up', structure: { steps: ['progress'], nested: { a: 1 } } });
    const res = await t.request('/api/v1/global-form-structures', { key });
    expect(res.status).toBe(200);
    const found = (await res.json()).data.find((x: { id: string }) => x.id === form.id);
    expect(found).toEqual({
      id: form.id,
      name: form.name,
      slug: form.slug,
      category: 'follow_up',
      structure: { steps: ['progress'], nested: { a: 1 } },
      createdAt: form.createdAt.toISOString(),
    });
    expect(await statements(() => t.request('/api/v1/global-form-structures', { key }))).toEqual({ status: 200, count: 2 });
  });
});

describe('access', () => {
  const paths = async () => {
    const template = await makeTemplate(t.db);
    return [
      '/api/v1/program-templates',
      `/api/v1/program-templates/${template.id}`,
      `/api/v1/program-templates/${template.id}/global-products`,
      '/api/v1/titration-protocols',
      '/api/v1/global-form-structures',
    ];
  };

  it('is readable with a read-only key, an AI-connector key and a sandbox key', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const ai = await makeKey(t.db, clinic.id, { kind: 'ai_connector', scopes: ['read'] });
    const sandbox = await makeTenant(t.db, { mode: 'sandbox' });
    for (const path of await paths()) {
      for (const key of [readOnly.raw, ai.raw, sandbox.key]) expect((await t.request(path, { key })).status, path).toBe(200);
    }
  });

  it('shows every clinic the same catalogue', async () => {
    const one = await makeTenant(t.db);
    const two = await makeTenant(t.db);
    for (const path of await paths()) {
      const a = await (await t.request(path, { key: one.key })).json();
      const b = await (await t.request(path, { key: two.key })).json();
      expect(a.data, path).toEqual(b.data);
    }
  });

  it('answers 401 without a key', async () => {
    for (const path of await paths()) expect((await t.request(path)).status).toBe(401);
  });
});
