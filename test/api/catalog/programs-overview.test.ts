// GET /api/v1/programs/overview: counts, patients and money from real enrollments, attention items from real conditions.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { makeKey, makePriceChangeAlert, makeTenant } from '../../helpers/factories';
import { makeEnrollment, makeGlobalProduct, makePatient, makeProgram } from '../../helpers/program-fixtures';

const t = useTestApp();

describe('GET /api/v1/programs/overview', () => {
  it('counts states, patients and monthly money from active enrollments, per program too', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const product = await makeGlobalProduct(t.db);
    const live = await makeProgram(t.db, clinic.id, { name: 'Live', state: 'live' }, [
      { globalProductId: product.id, programBaseFeeCents: 1_000 },
    ]);
    const live2 = await makeProgram(t.db, clinic.id, { name: 'Live 2', state: 'live' });
    const draft = await makeProgram(t.db, clinic.id, { name: 'Draft', state: 'draft' });
    await makeProgram(t.db, clinic.id, { name: 'Paused', state: 'paused' });
    await makeProgram(t.db, clinic.id, { name: 'Retired', state: 'retired' });
    const patient = await makePatient(t.db, clinic.id);
    // Monthly 200.00/50.00; quarterly 300.00/90.00 -> 100.00/30.00 a month; 3 x 100.00 every 3 months = 33.33.. each.
    await makeEnrollment(t.db, clinic.id, live.id, { patientId: patient.id, globalProductId: product.id });
    await makeEnrollment(t.db, clinic.id, live.id, { billingIntervalMonths: 3, chargeAmountCents: 30_000, netAmountCents: 9_000 });
    await makeEnrollment(t.db, clinic.id, live.id, { status: 'paused', chargeAmountCents: 99_999 });
    await makeEnrollment(t.db, clinic.id, live.id, { status: 'cancelled', chargeAmountCents: 99_999 });
    for (let i = 0; i < 3; i++)
      await makeEnrollment(t.db, clinic.id, live2.id, { billingIntervalMonths: 3, chargeAmountCents: 10_000, netAmountCents: 1_000 });
    await makeEnrollment(t.db, clinic.id, live2.id, { patientId: patient.id, chargeAmountCents: 1_000, netAmountCents: 100 });
    await makeEnrollment(t.db, other.clinic.id, (await makeProgram(t.db, other.clinic.id, { state: 'live' })).id);

    await t.flush();
    t.queries.length = 0;
    const res = await t.request('/api/v1/programs/overview', { key });
    expect(res.status).toBe(200);
    await t.flush();
    expect(t.queries.filter((q) => !q.includes('"request_logs"'))).toHaveLength(2);
    const { data } = await res.json();
    expect(data.stats).toEqual({
      livePrograms: 2,
      draftPrograms: 1,
      pausedPrograms: 1,
      totalPatients: 5, // the shared patient counts once
      estBilledMonthlyCents: 20_000 + 10_000 + 10_000 + 1_000,
      estNetMonthlyCents: 5_000 + 3_000 + 1_000 + 100,
    });
    const per = Object.fromEntries(data.perProgram.map((p: { programId: string }) => [p.programId, p]));
    expect(per[live.id]).toEqual({ programId: live.id, patients: 2, estBilledMonthlyCents: 30_000, estNetMonthlyCents: 8_000 });
    expect(per[live2.id]).toEqual({ programId: live2.id, patients: 4, estBilledMonthlyCents: 11_000, estNetMonthlyCents: 1_100 });
    expect(per[draft.id]).toEqual({ programId: draft.id, patients: 0, estBilledMonthlyCents: 0, estNetMonthlyCents: 0 });
    expect(data.perProgram).toHaveLength(4);
    expect(data.attention).toEqual([]);
  });

  it('raises attention items for unpriced products, discontinued products in use and pharmacy price increases', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const priced = await makeGlobalProduct(t.db, { name: 'Priced' });
    const unpriced = await makeGlobalProduct(t.db, { name: 'Unpriced' });
    const discontinued = await makeGlobalProduct(t.db, { name: 'Old pen', isDiscontinued: true });
    const program = await makeProgram(t.db, clinic.id, { name: 'Main', state: 'live' }, [
      { globalProductId: priced.id, programBaseFeeCents: 1_000 },
      { globalProductId: unpriced.id },
      { globalProductId: discontinued.id, programBaseFeeCents: 1_000 },
    ]);
    await makeEnrollment(t.db, clinic.id, program.id, { globalProductId: discontinued.id, chargeAmountCents: 12_000 });
    await makeEnrollment(t.db, clinic.id, program.id, { globalProductId: priced.id, billingIntervalMonths: 2 });
    await makeEnrollment(t.db, clinic.id, program.id, { globalProductId: priced.id });
    await makePriceChangeAlert(t.db, clinic.id, {
      programId: program.id,
      globalProductId: priced.id,
      direction: 'increase',
      previousPharmacyPriceCents: 10_000,
      newPharmacyPriceCents: 11_000,
      perUnitMarginDeltaCents: -1_000,
    });
    // Not margin-cutting, or already handled: no item.
    await makePriceChangeAlert(t.db, clinic.id, {
      programId: program.id,
      globalProductId: priced.id,
      direction: 'decrease',
      perUnitMarginDeltaCents: 500,
    });
    await makePriceChangeAlert(t.db, clinic.id, {
      programId: program.id,
      globalProductId: priced.id,
      direction: 'increase',
      status: 'acknowledged',
      perUnitMarginDeltaCents: -10,
    });

    const { data } = await (await t.request('/api/v1/programs/overview', { key })).json();
    const byType = Object.fromEntries(data.attention.map((a: { type: string }) => [a.type, a]));
    expect(data.attention).toHaveLength(3);
    expect(byType.unpriced_products).toMatchObject({
      programId: program.id,
      programName: 'Main',
      estValueCents: null,
      action: 'set_product_pricing',
    });
    expect(byType.unpriced_products.detail).toContain('Unpriced');
    expect(byType.discontinued_product_in_use).toMatchObject({
      programId: program.id,
      estValueCents: 12_000,
      action: 'replace_discontinued_product',
    });
    expect(byType.discontinued_product_in_use.headline).toContain('Old pen');
    // 1000 per charge: monthly 1000 + every two months 500.
    expect(byType.pharmacy_price_increase).toMatchObject({ programId: program.id, estValueCents: 1_500, action: 'review_program_fee' });
    expect(data.attention.map((a: { type: string }) => a.type)).toEqual([
      'discontinued_product_in_use',
      'pharmacy_price_increase',
      'unpriced_products',
    ]);
  });

  it('answers zeros for a clinic without programs; a read-only key may read it', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const { data } = await (await t.request('/api/v1/programs/overview', { key: readOnly.raw })).json();
    expect(data).toEqual({
      stats: { livePrograms: 0, draftPrograms: 0, pausedPrograms: 0, totalPatients: 0, estBilledMonthlyCents: 0, estNetMonthlyCents: 0 },
      perProgram: [],
      attention: [],
    });
  });
});
