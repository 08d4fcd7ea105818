// A program's products: the pricing read, replacing the set, the global-product pool, activation and visibility.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { globalProductImageOverrides, programProducts } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { makeGlobalProduct, makeProgram, makeTemplate, makeTenantProduct } from '../../helpers/program-fixtures';

const t = useTestApp();
const UNKNOWN = '7d7f3a52-5c4e-4c1f-9a55-1b2b3c4d5e6f';

/** Products priced through every fee source, one unpriced, one discontinued, one without a pharmacy. */
async function world() {
  const tenant = await makeTenant(t.db);
  const stranger = await makeTenant(t.db);
  const override = await makeGlobalProduct(t.db, {
    name: 'A override',
    pharmacyBasePriceCents: 12_900,
    packDurationMonths: 3,
    vialsPerPack: 3,
    supplyDays: 84,
    allowPrepay: true,
  });
  const base = await makeGlobalProduct(t.db, { name: 'B base', pharmacyBasePriceCents: 4_500 });
  const placeholder = await makeGlobalProduct(t.db, { name: 'C placeholder', pharmacyBasePriceCents: 2_000 });
  const unpriced = await makeGlobalProduct(t.db, { name: 'D unpriced', pharmacyBasePriceCents: 3_000 });
  const discontinued = await makeGlobalProduct(t.db, { name: 'E discontinued', pharmacyBasePriceCents: 9_900, isDiscontinued: true });
  const uncovered = await makeGlobalProduct(t.db, { name: 'F uncovered', pharmacyBasePriceCents: 1_000 }, { withCoverage: false });
  await makeTenantProduct(t.db, tenant.clinic.id, override.id, { facilitationFeeCents: 1_000, placeholderFeeCents: 500 });
  await makeTenantProduct(t.db, tenant.clinic.id, placeholder.id, { placeholderFeeCents: 1_500, facilitationFeeCents: 250 });
  const program = await makeProgram(t.db, tenant.clinic.id, { name: 'P', nonMedicalServiceFeeCents: 4_900 }, [
    { globalProductId: override.id, clinicFeeOverrideCents: 9_900, programBaseFeeCents: 7_000 },
    { globalProductId: base.id, programBaseFeeCents: 3_000, linkSource: 'template' },
    { globalProductId: placeholder.id, isPatientVisible: false },
    { globalProductId: unpriced.id },
    { globalProductId: discontinued.id, programBaseFeeCents: 2_000 },
    { globalProductId: uncovered.id, programBaseFeeCents: 500, isActive: false },
  ]);
  const strangerProgram = await makeProgram(t.db, stranger.clinic.id, {}, [{ globalProductId: base.id }]);
  return { ...tenant, stranger, override, base, placeholder, unpriced, discontinued, uncovered, program, strangerProgram };
}

async function expectSame404(requests: (() => Promise<Response>)[]) {
  const bodies = [];
  for (const send of requests) {
    const res = await send();
    expect(res.status).toBe(404);
    bodies.push(await res.json());
  }
  for (const body of bodies) expect(body).toEqual(bodies[0]);
}

const ids = (w: Awaited<ReturnType<typeof world>>) => [w.strangerProgram.id, UNKNOWN, 'not-a-uuid'];

describe('GET /api/v1/programs/{id}/products (pricing read)', () => {
  it('resolves every product through the pricing rules', async () => {
    const w = await world();
    const res = await t.request(`/api/v1/programs/${w.program.id}/products`, { key: w.key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.programId).toBe(w.program.id);
    expect(data.nonMedicalServiceFee).toBe(49);
    expect(data.nonMedicalServiceFeeIncludedInDisplayPrice).toBe(false);
    const [a, b, c, d, e, f] = data.products;
    expect(a).toEqual({
      globalProductId: w.override.id,
      name: 'A override',
      displayOrder: 0,
      linkSource: 'program',
      isPatientVisible: true,
      displayPrice: 129 + 10 + 99,
      effectiveProgramFee: 99,
      feeSource: 'clinic_override',
      clinicProgramFee: 99,
      programBaseFee: 70,
      placeholderPrice: 5,
      pharmacyBasePrice: 129,
      facilitationFee: 10,
      packDurationMonths: 3,
      vialsPerPack: 3,
      supplyDays: 84,
      allowPrepay: true,
      isSellable: true,
      isCostBacked: true,
      hasResolvedPrice: true,
    });
    expect(b).toMatchObject({
      feeSource: 'program_base',
      linkSource: 'template',
      effectiveProgramFee: 30,
      displayPrice: 75,
      facilitationFee: 0,
      isSellable: true,
    });
    expect(c).toMatchObject({
      feeSource: 'tenant_placeholder',
      effectiveProgramFee: 15,
      placeholderPrice: 15,
      displayPrice: 37.5,
      isPatientVisible: false,
      isSellable: true,
    });
    expect(d).toMatchObject({
      feeSource: 'none',
      effectiveProgramFee: null,
      displayPrice: null,
      hasResolvedPrice: false,
      isSellable: false,
      isCostBacked: true,
    });
    expect(e).toMatchObject({ feeSource: 'program_base', hasResolvedPrice: true, isSellable: false });
    expect(f).toMatchObject({ hasResolvedPrice: true, isCostBacked: false, isSellable: false });
    const program = (await (await t.request(`/api/v1/programs/${w.program.id}`, { key: w.key })).json()).data;
    expect(program).toMatchObject({ sellableProductCount: 3, unpricedProductCount: 1 });
  });

  it('404s for another clinic, unknown and malformed ids', async () => {
    const w = await world();
    await expectSame404(ids(w).map((id) => () => t.request(`/api/v1/programs/${id}/products`, { key: w.key })));
  });
});

describe('PUT /api/v1/programs/{id}/products', () => {
  it('replaces the set in the order given, keeping fees of products that stay', async () => {
    const w = await world();
    const other = await makeGlobalProduct(t.db, { name: 'G new' });
    const res = await t.request(`/api/v1/programs/${w.program.id}/products`, {
      key: w.key,
      method: 'PUT',
      body: { products: [{ productId: other.id }, { productId: w.override.id }, { productId: w.discontinued.id }] },
    });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.products.map((p: { globalProductId: string }) => p.globalProductId)).toEqual([other.id, w.override.id, w.discontinued.id]);
    expect(data.products[0]).toMatchObject({ displayOrder: 0, linkSource: 'program', feeSource: 'none' });
    expect(data.products[1]).toMatchObject({ displayOrder: 1, feeSource: 'clinic_override', clinicProgramFee: 99, programBaseFee: 70 });
    const rows = await t.db.select().from(programProducts).where(eq(programProducts.programId, w.program.id));
    expect(rows).toHaveLength(3);
  });

  it('takes the template base fee for a product the template has', async () => {
    const w = await world();
    const extra = await makeGlobalProduct(t.db);
    const template = await makeTemplate(t.db, [{ globalProductId: extra.id, programBaseFeeCents: 4_200 }]);
    const program = await makeProgram(t.db, w.clinic.id, { templateId: template.id, templateVersion: 1 });
    const { data } = await (
      await t.request(`/api/v1/programs/${program.id}/products`, {
        key: w.key,
        method: 'PUT',
        body: { products: [{ productId: extra.id }] },
      })
    ).json();
    expect(data.products[0]).toMatchObject({ linkSource: 'template', programBaseFee: 42, feeSource: 'program_base' });
  });

  it('empties the set with an empty list', async () => {
    const w = await world();
    const { data } = await (
      await t.request(`/api/v1/programs/${w.program.id}/products`, { key: w.key, method: 'PUT', body: { products: [] } })
    ).json();
    expect(data.products).toEqual([]);
  });

  it('refuses unknown ids, repeated ids and newly added discontinued products with a 400 naming them', async () => {
    const w = await world();
    const freshDiscontinued = await makeGlobalProduct(t.db, { isDiscontinued: true });
    const send = (products: unknown) =>
      t.request(`/api/v1/programs/${w.program.id}/products`, { key: w.key, method: 'PUT', body: { products } });
    const unknown = await send([{ productId: w.base.id }, { productId: UNKNOWN }]);
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).message).toContain(UNKNOWN);
    const repeated = await send([{ productId: w.base.id }, { productId: w.base.id }]);
    expect(repeated.status).toBe(400);
    const discontinued = await send([{ productId: freshDiscontinued.id }]);
    expect(discontinued.status).toBe(400);
    expect((await discontinued.json()).message).toContain(freshDiscontinued.id);
    for (const body of [{}, { products: 'x' }, { products: [{ productId: 'nope' }] }, { products: [{ productId: w.base.id, extra: 1 }] }]) {
      const res = await t.request(`/api/v1/programs/${w.program.id}/products`, { key: w.key, method: 'PUT', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(await t.db.select().from(programProducts).where(eq(programProducts.programId, w.program.id))).toHaveLength(6);
  });

  it('404s for another clinic, unknown and malformed ids; needs the write scope', async () => {
    const w = await world();
    await expectSame404(
      ids(w).map((id) => () => t.request(`/api/v1/programs/${id}/products`, { key: w.key, method: 'PUT', body: { products: [] } })),
    );
    expect(await t.db.select().from(programProducts).where(eq(programProducts.programId, w.strangerProgram.id))).toHaveLength(1);
    const readOnly = await makeKey(t.db, w.clinic.id, { scopes: ['read'] });
    expect(
      (await t.request(`/api/v1/programs/${w.program.id}/products`, { key: readOnly.raw, method: 'PUT', body: { products: [] } })).status,
    ).toBe(403);
  });
});

describe('GET /api/v1/programs/{id}/global-products', () => {
  it('lists the pool with fees in the program or as they would be if added; discontinued ones only when in the program', async () => {
    const w = await world();
    const candidate = await makeGlobalProduct(t.db, { name: 'Z candidate', pharmacyBasePriceCents: 5_000 });
    const hidden = await makeGlobalProduct(t.db, { name: 'Z discontinued', isDiscontinued: true });
    await makeTenantProduct(t.db, w.clinic.id, candidate.id, { placeholderFeeCents: 2_000 });
    await t.db
      .insert(globalProductImageOverrides)
      .values({ clinicId: w.clinic.id, globalProductId: candidate.id, imageUrl: 'https://img.example/z.png' });
    const res = await t.request(`/api/v1/programs/${w.program.id}/global-products`, { key: w.key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    const byId = Object.fromEntries(data.map((p: { id: string }) => [p.id, p]));
    expect(byId[hidden.id]).toBeUndefined();
    expect(byId[w.discontinued.id]).toMatchObject({ inProgram: true, isDiscontinued: true });
    expect(byId[candidate.id]).toMatchObject({
      inProgram: false,
      feeSource: 'tenant_placeholder',
      effectiveProgramFee: 20,
      displayPrice: 70,
      hasResolvedPrice: true,
      imageUrl: 'https://img.example/z.png',
    });
    expect(byId[w.override.id]).toMatchObject({ inProgram: true, feeSource: 'clinic_override', displayPrice: 238 });
  });

  it('404s for another clinic, unknown and malformed ids', async () => {
    const w = await world();
    await expectSame404(ids(w).map((id) => () => t.request(`/api/v1/programs/${id}/global-products`, { key: w.key })));
  });
});

describe('activation and visibility', () => {
  it('reads the activation and visibility of each product', async () => {
    const w = await world();
    const activation = (await (await t.request(`/api/v1/programs/${w.program.id}/products/activation-status`, { key: w.key })).json()).data;
    expect(activation.programId).toBe(w.program.id);
    expect(activation.products[5]).toEqual({
      globalProductId: w.uncovered.id,
      name: 'F uncovered',
      isActive: false,
      isDiscontinued: false,
      hasResolvedPrice: true,
      isSellable: false,
    });
    const visibility = (await (await t.request(`/api/v1/programs/${w.program.id}/products/visibility-status`, { key: w.key })).json()).data;
    expect(visibility.products[2]).toEqual({ globalProductId: w.placeholder.id, name: 'C placeholder', isPatientVisible: false });
  });

  it('PATCH activate and visibility change one product (by global product id)', async () => {
    const w = await world();
    const off = await t.request(`/api/v1/programs/${w.program.id}/products/${w.override.id}/activate`, {
      key: w.key,
      method: 'PATCH',
      body: { isActive: false },
    });
    expect(off.status).toBe(200);
    expect((await off.json()).data).toEqual({
      globalProductId: w.override.id,
      name: 'A override',
      isActive: false,
      isDiscontinued: false,
      hasResolvedPrice: true,
      isSellable: false,
    });
    const shown = await t.request(`/api/v1/programs/${w.program.id}/products/${w.placeholder.id}/visibility`, {
      key: w.key,
      method: 'PATCH',
      body: { isPatientVisible: true },
    });
    expect((await shown.json()).data).toEqual({ globalProductId: w.placeholder.id, name: 'C placeholder', isPatientVisible: true });
    const [row] = await t.db
      .select()
      .from(programProducts)
      .where(and(eq(programProducts.programId, w.program.id), eq(programProducts.globalProductId, w.override.id)));
    expect(row!.isActive).toBe(false);
    // An unpriced product may be activated: hasResolvedPrice is not an activation gate.
    const unpricedOn = await t.request(`/api/v1/programs/${w.program.id}/products/${w.unpriced.id}/activate`, {
      key: w.key,
      method: 'PATCH',
      body: { isActive: true },
    });
    expect(unpricedOn.status).toBe(200);
  });

  it('validates the body', async () => {
    const w = await world();
    for (const [path, body] of [
      ['activate', {}],
      ['activate', { isActive: 'yes' }],
      ['visibility', { isPatientVisible: 1 }],
      ['visibility', { isPatientVisible: true, x: 1 }],
    ] as const) {
      const res = await t.request(`/api/v1/programs/${w.program.id}/products/${w.base.id}/${path}`, { key: w.key, method: 'PATCH', body });
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
    }
  });

  it('404s for another clinic program, unknown or malformed ids, and a product not in the program; writes need the write scope', async () => {
    const w = await world();
    const outsider = await makeGlobalProduct(t.db);
    for (const path of ['activation-status', 'visibility-status']) {
      await expectSame404(ids(w).map((id) => () => t.request(`/api/v1/programs/${id}/products/${path}`, { key: w.key })));
    }
    for (const [path, body] of [
      ['activate', { isActive: true }],
      ['visibility', { isPatientVisible: true }],
    ] as const) {
      await expectSame404([
        ...ids(w).map(
          (id) => () => t.request(`/api/v1/programs/${id}/products/${w.base.id}/${path}`, { key: w.key, method: 'PATCH', body }),
        ),
        () => t.request(`/api/v1/programs/${w.program.id}/products/${outsider.id}/${path}`, { key: w.key, method: 'PATCH', body }),
        () => t.request(`/api/v1/programs/${w.program.id}/products/nope/${path}`, { key: w.key, method: 'PATCH', body }),
      ]);
      const readOnly = await makeKey(t.db, w.clinic.id, { scopes: ['read'] });
      const res = await t.request(`/api/v1/programs/${w.program.id}/products/${w.base.id}/${path}`, {
        key: readOnly.raw,
        method: 'PATCH',
        body,
      });
      expect(res.status).toBe(403);
    }
    const [row] = await t.db.select().from(programProducts).where(eq(programProducts.programId, w.strangerProgram.id));
    expect(row!.isActive).toBe(true);
  });
});
