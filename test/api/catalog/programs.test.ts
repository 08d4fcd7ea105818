// Programs: list, create, get, update (productPricing), delete (wind-down), duplicate.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { orders, programProducts, programs, programTitrationProtocols } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import {
  makeEnrollment,
  makeGlobalProduct,
  makePatient,
  makeProgram,
  makeTemplate,
  makeTenantProduct,
  makeTitrationProtocol,
} from '../../helpers/program-fixtures';

const t = useTestApp();

/** A clinic with one program holding three products priced through each fee source, and a stranger clinic. */
async function world() {
  const tenant = await makeTenant(t.db);
  const stranger = await makeTenant(t.db);
  const a = await makeGlobalProduct(t.db, { pharmacyBasePriceCents: 12_900 });
  const b = await makeGlobalProduct(t.db, { pharmacyBasePriceCents: 4_500 });
  const c = await makeGlobalProduct(t.db, { pharmacyBasePriceCents: 2_000 });
  await makeTenantProduct(t.db, tenant.clinic.id, c.id, { placeholderFeeCents: 1_500, facilitationFeeCents: 500 });
  const program = await makeProgram(
    t.db,
    tenant.clinic.id,
    { name: 'Weight', state: 'live', isActive: true, nonMedicalServiceFeeCents: 4_900 },
    [
      { globalProductId: a.id, clinicFeeOverrideCents: 9_900, programBaseFeeCents: 7_000 },
      { globalProductId: b.id, programBaseFeeCents: 3_000 },
      { globalProductId: c.id },
    ],
  );
  const strangerProgram = await makeProgram(t.db, stranger.clinic.id, { name: 'Theirs' }, [
    { globalProductId: a.id, programBaseFeeCents: 1 },
  ]);
  return { ...tenant, stranger, a, b, c, program, strangerProgram };
}

const UNKNOWN = '7d7f3a52-5c4e-4c1f-9a55-1b2b3c4d5e6f';

async function expectSame404(requests: (() => Promise<Response>)[]) {
  const bodies = [];
  for (const send of requests) {
    const res = await send();
    expect(res.status).toBe(404);
    bodies.push(await res.json());
  }
  for (const body of bodies) expect(body).toEqual(bodies[0]);
}

describe('GET /api/v1/programs', () => {
  it('lists the clinic programs with products, counts and the spec fields, newest first, in one query', async () => {
    const { key, program } = await world();
    const second = await makeProgram(t.db, (await t.db.select().from(programs).where(eq(programs.id, program.id)))[0]!.clinicId, {
      name: 'Later',
    });
    await t.flush();
    t.queries.length = 0;
    const res = await t.request('/api/v1/programs', { key });
    expect(res.status).toBe(200);
    await t.flush();
    expect(t.queries.filter((q) => !q.includes('"request_logs"'))).toHaveLength(2);
    const body = await res.json();
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });
    expect(body.data.map((p: { id: string }) => p.id)).toEqual([second.id, program.id]);
    const listed = body.data[1];
    expect(listed).toMatchObject({
      name: 'Weight',
      isActive: true,
      nonMedicalServiceFee: 49,
      state: 'live',
      sellableProductCount: 3,
      unpricedProductCount: 0,
    });
    expect(listed.programGlobalProducts).toHaveLength(3);
    expect(listed.programGlobalProducts[0].globalProduct).toMatchObject({ pharmacyBasePrice: 129, isDiscontinued: false });
  });

  it('leaves retired programs out unless state=retired, and filters by state', async () => {
    const { key, clinic, program } = await world();
    const retired = await makeProgram(t.db, clinic.id, { state: 'retired' });
    const listed = (await (await t.request('/api/v1/programs', { key })).json()).data.map((p: { id: string }) => p.id);
    expect(listed).toEqual([program.id]);
    const onlyRetired = (await (await t.request('/api/v1/programs?state=retired', { key })).json()).data.map((p: { id: string }) => p.id);
    expect(onlyRetired).toEqual([retired.id]);
    expect((await (await t.request('/api/v1/programs?state=draft', { key })).json()).data).toEqual([]);
  });

  it('pages; a page past the end answers the real total', async () => {
    const { key } = await world();
    const res = await (await t.request('/api/v1/programs?page=3&limit=1', { key })).json();
    expect(res.data).toEqual([]);
    expect(res.pagination.total).toBe(1);
    expect((await t.request('/api/v1/programs?state=gone', { key })).status).toBe(400);
    expect((await t.request('/api/v1/programs?limit=500', { key })).status).toBe(400);
  });
});

describe('POST /api/v1/programs', () => {
  it('creates a draft program from a name (201)', async () => {
    const { key } = await world();
    const res = await t.request('/api/v1/programs', { key, body: { name: '  Hair  ' } });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toMatchObject({
      name: 'Hair',
      state: 'draft',
      isActive: false,
      isFeatured: false,
      nonMedicalServiceFee: 0,
      templateId: null,
      sellableProductCount: 0,
      unpricedProductCount: 0,
      programGlobalProducts: [],
      description: null,
    });
    expect((await t.request(`/api/v1/programs/${data.id}`, { key })).status).toBe(200);
  });

  it('derives a program from a template: its products, base fees and fee', async () => {
    const { key, a, b } = await world();
    const template = await makeTemplate(t.db, [{ globalProductId: a.id, programBaseFeeCents: 8_000 }, { globalProductId: b.id }], {
      version: 4,
      nonMedicalServiceFeeCents: 2_900,
    });
    const { data } = await (await t.request('/api/v1/programs', { key, body: { name: 'From template', templateId: template.id } })).json();
    expect(data).toMatchObject({ templateId: template.id, nonMedicalServiceFee: 29, unpricedProductCount: 1, sellableProductCount: 1 });
    expect(data.programGlobalProducts.map((p: { globalProduct: { id: string } }) => p.globalProduct.id)).toEqual([a.id, b.id]);
    const status = await (await t.request(`/api/v1/programs/${data.id}/sync-status`, { key })).json();
    expect(status.data).toEqual({
      programId: data.id,
      templateId: template.id,
      templateVersion: 4,
      latestTemplateVersion: 4,
      isBehind: false,
    });
  });

  it('takes every program field and answers them', async () => {
    const { key } = await world();
    const body = {
      name: 'Full',
      description: 'Line one\nline two',
      isActive: true,
      isFeatured: true,
      nonMedicalServiceFee: 19.99,
      heroImageUrl: 'https://cdn.example.com/a.jpg',
      customSlug: 'full-program',
      accentColor: '#0F766E',
      state: 'live',
    };
    const { data } = await (await t.request('/api/v1/programs', { key, body })).json();
    expect(data).toMatchObject({ ...body });
    const [row] = await t.db.select().from(programs).where(eq(programs.id, data.id));
    expect(row!.nonMedicalServiceFeeCents).toBe(1_999);
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const { key } = await world();
    const cases: [unknown, string][] = [
      [{}, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ name: 'x', extra: 1 }, 'extra'],
      [{ name: 'x', nonMedicalServiceFee: -1 }, 'body.nonMedicalServiceFee'],
      [{ name: 'x', nonMedicalServiceFee: 1.234 }, 'body.nonMedicalServiceFee'],
      [{ name: 'x', customSlug: 'Not A Slug' }, 'body.customSlug'],
      [{ name: 'x', accentColor: 'red' }, 'body.accentColor'],
      [{ name: 'x', heroImageUrl: 'http://insecure.example/a.png' }, 'body.heroImageUrl'],
      [{ name: 'x', state: 'retired' }, 'body.state'],
      [{ name: 'x', templateId: 'nope' }, 'body.templateId'],
      [{ name: 'x', templateId: UNKNOWN }, 'body.templateId'],
      [{ name: 'a\u0000b' }, 'body.name'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('/api/v1/programs', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message, JSON.stringify(body)).toContain(field);
    }
  });

  it('answers 409 when the custom slug is taken in the clinic (not across clinics)', async () => {
    const { key, stranger } = await world();
    expect((await t.request('/api/v1/programs', { key, body: { name: 'a', customSlug: 'same' } })).status).toBe(201);
    const again = await t.request('/api/v1/programs', { key, body: { name: 'b', customSlug: 'same' } });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('CONFLICT');
    expect((await t.request('/api/v1/programs', { key: stranger.key, body: { name: 'c', customSlug: 'same' } })).status).toBe(201);
  });

  it('needs the write scope', async () => {
    const { clinic } = await world();
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await t.request('/api/v1/programs', { key: readOnly.raw, body: { name: 'x' } });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/programs/{id}', () => {
  it('answers the Program with its products in display order', async () => {
    const { key, program, a, b, c } = await world();
    const { data } = await (await t.request(`/api/v1/programs/${program.id}`, { key })).json();
    expect(data.id).toBe(program.id);
    expect(data.programGlobalProducts.map((p: { globalProduct: { id: string } }) => p.globalProduct.id)).toEqual([a.id, b.id, c.id]);
    expect(Object.keys(data).sort()).toEqual([
      'accentColor',
      'createdAt',
      'customSlug',
      'description',
      'heroImageUrl',
      'id',
      'isActive',
      'isFeatured',
      'name',
      'nonMedicalServiceFee',
      'programGlobalProducts',
      'sellableProductCount',
      'state',
      'templateId',
      'unpricedProductCount',
      'updatedAt',
    ]);
  });

  it('answers the same 404 for another clinic program, an unknown id and a malformed id', async () => {
    const { key, strangerProgram } = await world();
    await expectSame404([strangerProgram.id, UNKNOWN, 'not-a-uuid'].map((id) => () => t.request(`/api/v1/programs/${id}`, { key })));
  });
});

describe('PUT /api/v1/programs/{id}', () => {
  it('updates fields and sets clinic overrides that the pricing read shows at once', async () => {
    const { key, program, b, c } = await world();
    const res = await t.request(`/api/v1/programs/${program.id}`, {
      key,
      method: 'PUT',
      body: {
        name: 'Renamed',
        nonMedicalServiceFee: 10,
        productPricing: { [b.id]: { programFee: 45.5 }, [c.id.toUpperCase()]: { programFee: 0 } },
      },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ name: 'Renamed', nonMedicalServiceFee: 10 });
    const pricing = (await (await t.request(`/api/v1/programs/${program.id}/products`, { key })).json()).data;
    const byId = Object.fromEntries(pricing.products.map((p: { globalProductId: string }) => [p.globalProductId, p]));
    expect(byId[b.id]).toMatchObject({
      feeSource: 'clinic_override',
      clinicProgramFee: 45.5,
      effectiveProgramFee: 45.5,
      programBaseFee: 30,
      displayPrice: 45 + 45.5,
    });
    expect(byId[c.id]).toMatchObject({ feeSource: 'clinic_override', clinicProgramFee: 0, displayPrice: 20 + 5 });
  });

  it('clears an override with programFee null (back to the base fee)', async () => {
    const { key, program, a } = await world();
    await t.request(`/api/v1/programs/${program.id}`, { key, method: 'PUT', body: { productPricing: { [a.id]: { programFee: null } } } });
    const pricing = (await (await t.request(`/api/v1/programs/${program.id}/products`, { key })).json()).data;
    expect(pricing.products[0]).toMatchObject({
      globalProductId: a.id,
      feeSource: 'program_base',
      clinicProgramFee: null,
      effectiveProgramFee: 70,
    });
  });

  it('refuses unknown or foreign global product ids in productPricing with a 400 naming them, changing nothing', async () => {
    const { key, program, a } = await world();
    const outsider = await makeGlobalProduct(t.db);
    const res = await t.request(`/api/v1/programs/${program.id}`, {
      key,
      method: 'PUT',
      body: { name: 'Changed', productPricing: { [a.id]: { programFee: 1 }, [outsider.id]: { programFee: 2 }, nope: { programFee: 3 } } },
    });
    expect(res.status).toBe(400);
    const { message } = await res.json();
    expect(message).toContain('body.productPricing');
    expect(message).toContain(outsider.id);
    expect(message).toContain('nope');
    expect(message).not.toContain(a.id);
    const [row] = await t.db.select().from(programs).where(eq(programs.id, program.id));
    expect(row!.name).toBe('Weight');
  });

  it('refuses one product keyed twice in productPricing (ids differing only in case) with a 400, changing nothing', async () => {
    const { key, program, a } = await world();
    const res = await t.request(`/api/v1/programs/${program.id}`, {
      key,
      method: 'PUT',
      body: { productPricing: { [a.id]: { programFee: 1 }, [a.id.toUpperCase()]: { programFee: 2 } } },
    });
    expect(res.status).toBe(400);
    const { message } = await res.json();
    expect(message).toContain('body.productPricing');
    expect(message).toContain(a.id);
    const [row] = await t.db
      .select()
      .from(programProducts)
      .where(and(eq(programProducts.programId, program.id), eq(programProducts.globalProductId, a.id)));
    expect(row!.clinicFeeOverrideCents).toBe(9_900);
  });

  it('validates the body', async () => {
    const { key, program, a } = await world();
    for (const body of [
      { name: '' },
      { productPricing: { [a.id]: { programFee: -1 } } },
      { productPricing: { [a.id]: {} } },
      { productPricing: { [a.id]: { programFee: 1, x: 1 } } },
      { isActive: 'yes' },
      { unknown: 1 },
    ]) {
      const res = await t.request(`/api/v1/programs/${program.id}`, { key, method: 'PUT', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('404s like GET, needs the write scope', async () => {
    const { key, clinic, strangerProgram } = await world();
    await expectSame404(
      [strangerProgram.id, UNKNOWN, 'x'].map(
        (id) => () => t.request(`/api/v1/programs/${id}`, { key, method: 'PUT', body: { name: 'n' } }),
      ),
    );
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await t.request(`/api/v1/programs/${UNKNOWN}`, { key: readOnly.raw, method: 'PUT', body: { name: 'n' } })).status).toBe(403);
  });
});

describe('DELETE /api/v1/programs/{id}', () => {
  it('removes a program with nothing in flight and answers it as it was', async () => {
    const { key, program, stranger } = await world();
    const res = await t.request(`/api/v1/programs/${program.id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.message).toBe('Program deleted');
    expect(body.data).toMatchObject({ id: program.id, state: 'live', name: 'Weight' });
    expect(body.data.programGlobalProducts).toHaveLength(3);
    expect(await t.db.select().from(programs).where(eq(programs.id, program.id))).toEqual([]);
    expect(await t.db.select().from(programProducts).where(eq(programProducts.programId, program.id))).toEqual([]);
    expect((await t.request(`/api/v1/programs/${program.id}`, { key })).status).toBe(404);
    void stranger;
  });

  it('retires a program that orders still refer to (active order, no enrollment), and the order keeps its program', async () => {
    const { key, clinic, program } = await world();
    const patient = await makePatient(t.db, clinic.id);
    const breakdown = {
      subtotal: 10_000,
      discount: 0,
      tax: 0,
      shipping: 0,
      total: 10_000,
      pharmacyCost: 4_000,
      doctorFee: 1_500,
      processorFee: 320,
      platformFee: 500,
      brandAmount: 3_680,
    };
    const [order] = await t.db
      .insert(orders)
      .values({
        clinicId: clinic.id,
        orderNumber: `T-${crypto.randomUUID().slice(0, 8)}`,
        patientId: patient.id,
        programId: program.id,
        status: 'sent_to_pharmacy',
        subtotalCents: 10_000,
        totalCents: 10_000,
        brandAmountCents: 3_680,
        feeBreakdown: breakdown,
      })
      .returning();
    const res = await t.request(`/api/v1/programs/${program.id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect((await res.json()).data.state).toBe('retired');
    const [stored] = await t.db.select({ programId: orders.programId }).from(orders).where(eq(orders.id, order!.id));
    expect(stored!.programId).toBe(program.id);
  });

  it('retires a program whose enrollments are paused (in flight, nobody enrolled): not listed, still readable', async () => {
    const { key, clinic, program } = await world();
    await makeEnrollment(t.db, clinic.id, program.id, { status: 'paused' });
    await makeEnrollment(t.db, clinic.id, program.id, { status: 'cancelled' });
    const res = await t.request(`/api/v1/programs/${program.id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.message).toContain('retired');
    expect(body.data).toMatchObject({ id: program.id, state: 'retired', isActive: false });
    const [row] = await t.db.select().from(programs).where(eq(programs.id, program.id));
    expect(row!.retiredAt).toBeInstanceOf(Date);
    expect((await (await t.request('/api/v1/programs', { key })).json()).data).toEqual([]);
    expect((await (await t.request(`/api/v1/programs/${program.id}`, { key })).json()).data.state).toBe('retired');
    // A retired program is not offered again.
    const offer = await t.request(`/api/v1/programs/${program.id}`, { key, method: 'PUT', body: { isActive: true } });
    expect(offer.status).toBe(409);
  });

  it('retires a program that only has finished enrollments (their history stays)', async () => {
    const { key, clinic, program } = await world();
    await makeEnrollment(t.db, clinic.id, program.id, { status: 'completed' });
    const body = await (await t.request(`/api/v1/programs/${program.id}`, { key, method: 'DELETE' })).json();
    expect(body.data.state).toBe('retired');
  });

  it('refuses with 409 WINDDOWN_CONSENT_REQUIRED and data.patients while patients are enrolled', async () => {
    const { key, clinic, program } = await world();
    const first = await makeEnrollment(t.db, clinic.id, program.id);
    await makeEnrollment(t.db, clinic.id, program.id, { patientId: first.patientId, status: 'active' });
    await makeEnrollment(t.db, clinic.id, program.id);
    await makeEnrollment(t.db, clinic.id, program.id, { status: 'paused' });
    const res = await t.request(`/api/v1/programs/${program.id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(409);
    const body = await res.json();
    expect(body).toMatchObject({ success: false, code: 'WINDDOWN_CONSENT_REQUIRED', data: { patients: 2 } });
    const [row] = await t.db.select().from(programs).where(eq(programs.id, program.id));
    expect(row!.state).toBe('live');
  });

  it('404s like GET, needs the write scope', async () => {
    const { key, clinic, strangerProgram } = await world();
    await expectSame404(
      [strangerProgram.id, UNKNOWN, 'x'].map((id) => () => t.request(`/api/v1/programs/${id}`, { key, method: 'DELETE' })),
    );
    expect(await t.db.select().from(programs).where(eq(programs.id, strangerProgram.id))).toHaveLength(1);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await t.request(`/api/v1/programs/${strangerProgram.id}`, { key: readOnly.raw, method: 'DELETE' })).status).toBe(403);
  });
});

describe('POST /api/v1/programs/{id}/duplicate', () => {
  it('deep-copies the program, its products with their fees and its titration attachments as a draft', async () => {
    const { key, clinic, program } = await world();
    const protocol = await makeTitrationProtocol(t.db);
    await t.db.insert(programTitrationProtocols).values({
      clinicId: clinic.id,
      programId: program.id,
      titrationProtocolId: protocol.id,
      flatFeeCents: 2_500,
      allowedBillingMonths: [1, 3],
      position: 2,
    });
    await t.db.update(programs).set({ customSlug: 'weight' }).where(eq(programs.id, program.id));
    const res = await t.request(`/api/v1/programs/${program.id}/duplicate`, { key, method: 'POST' });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data.id).not.toBe(program.id);
    expect(data).toMatchObject({
      name: 'Weight (copy)',
      state: 'draft',
      isActive: false,
      customSlug: null,
      nonMedicalServiceFee: 49,
      sellableProductCount: 3,
    });
    const original = (await (await t.request(`/api/v1/programs/${program.id}/products`, { key })).json()).data.products;
    const copied = (await (await t.request(`/api/v1/programs/${data.id}/products`, { key })).json()).data.products;
    expect(copied).toEqual(original);
    const attachments = (await (await t.request(`/api/v1/programs/${data.id}/titration-protocols`, { key })).json()).data;
    expect(attachments).toHaveLength(1);
    expect(attachments[0]).toMatchObject({
      titrationProtocolId: protocol.id,
      flatFee: 25,
      allowedBillingMonths: [1, 3],
      position: 2,
      programId: data.id,
    });
  });

  it('404s like GET, needs the write scope', async () => {
    const { key, clinic, strangerProgram } = await world();
    await expectSame404(
      [strangerProgram.id, UNKNOWN, 'x'].map((id) => () => t.request(`/api/v1/programs/${id}/duplicate`, { key, method: 'POST' })),
    );
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await t.request(`/api/v1/programs/${UNKNOWN}/duplicate`, { key: readOnly.raw, method: 'POST' })).status).toBe(403);
  });
});
