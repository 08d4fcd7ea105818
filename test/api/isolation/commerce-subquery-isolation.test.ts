// Clinic filters inside subqueries and joins of the commerce core. The foreign keys of clinic-owned
// child rows name only the parent id, so the database alone does not stop a row of one clinic from
// pointing at another clinic's program or coupon. Each test writes such a row for a stranger clinic
// and checks that the owner's answers ignore it: every query on clinic-owned rows filters by clinic,
// subqueries and joins included.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { couponRedemptions, programProducts, programTitrationProtocols } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeCoupon, makePriceChangeAlert, makeTenant } from '../../helpers/factories';
import { makeGlobalProduct, makeProgram, makeTitrationProtocol } from '../../helpers/program-fixtures';

const t = useTestApp();

/** A clinic with one program, and a stranger clinic. */
async function world() {
  const owner = await makeTenant(t.db);
  const stranger = await makeTenant(t.db);
  const own = await makeGlobalProduct(t.db);
  const program = await makeProgram(t.db, owner.clinic.id, { name: 'Own', state: 'live' }, [
    { globalProductId: own.id, programBaseFeeCents: 1_000 },
  ]);
  return { owner, stranger, own, program };
}

/** A stranger's program_products row that names the owner's program. */
async function strayProgramProduct(strangerClinicId: string, programId: string, globalProductId: string, fee = 77_700) {
  await t.db
    .insert(programProducts)
    .values({ clinicId: strangerClinicId, programId, globalProductId, clinicFeeOverrideCents: fee, displayOrder: 9 });
}

describe('subqueries and joins filter by clinic', () => {
  it("GET /programs/{id}/global-products never shows another clinic's product row or its fee", async () => {
    const { owner, stranger, program } = await world();
    const other = await makeGlobalProduct(t.db);
    await strayProgramProduct(stranger.clinic.id, program.id, other.id);
    const res = await t.request(`/api/v1/programs/${program.id}/global-products`, { key: owner.key });
    expect(res.status).toBe(200);
    const pooled = (await res.json()).data.find((p: { id: string }) => p.id === other.id);
    expect(pooled).toMatchObject({ inProgram: false, feeSource: 'none', effectiveProgramFee: null, displayPrice: null });
  });

  it("PUT /programs/{id}/products does not count another clinic's row as the program's (a discontinued product stays refused)", async () => {
    const { owner, stranger, own, program } = await world();
    const discontinued = await makeGlobalProduct(t.db, { isDiscontinued: true });
    await strayProgramProduct(stranger.clinic.id, program.id, discontinued.id);
    const res = await t.request(`/api/v1/programs/${program.id}/products`, {
      key: owner.key,
      method: 'PUT',
      body: { products: [{ productId: own.id }, { productId: discontinued.id }] },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain(discontinued.id);
    const [stray] = await t.db
      .select()
      .from(programProducts)
      .where(and(eq(programProducts.programId, program.id), eq(programProducts.clinicId, stranger.clinic.id)));
    expect(stray).toMatchObject({ displayOrder: 9, clinicFeeOverrideCents: 77_700 });
  });

  it("GET /programs/overview raises no price alert through another clinic's product row", async () => {
    const { owner, stranger, program } = await world();
    const other = await makeGlobalProduct(t.db);
    await strayProgramProduct(stranger.clinic.id, program.id, other.id);
    await makePriceChangeAlert(t.db, owner.clinic.id, {
      globalProductId: other.id,
      previousPharmacyPriceCents: 10_000,
      newPharmacyPriceCents: 12_000,
      perUnitMarginDeltaCents: -2_000,
    });
    const res = await t.request('/api/v1/programs/overview', { key: owner.key });
    expect(res.status).toBe(200);
    const increases = (await res.json()).data.attention.filter((a: { type: string }) => a.type === 'pharmacy_price_increase');
    expect(increases).toEqual([]);
  });

  it("POST /programs/{id}/titration-protocols places a new attachment after the program's own, ignoring another clinic's rows", async () => {
    const { owner, stranger, program } = await world();
    const protocol = await makeTitrationProtocol(t.db);
    await t.db
      .insert(programTitrationProtocols)
      .values({ clinicId: stranger.clinic.id, programId: program.id, titrationProtocolId: protocol.id, position: 41 });
    const res = await t.request(`/api/v1/programs/${program.id}/titration-protocols`, {
      key: owner.key,
      body: { titrationProtocolId: protocol.id },
    });
    expect(res.status).toBe(201);
    expect((await res.json()).data.position).toBe(0);
  });

  it("a coupon's redemptionCount counts only the clinic's own redemptions", async () => {
    const { owner, stranger } = await world();
    const coupon = await makeCoupon(t.db, owner.clinic.id, { maxRedemptions: 1 });
    await t.db
      .insert(couponRedemptions)
      .values({ clinicId: stranger.clinic.id, couponId: coupon.id, orderAmountCents: 10_000, discountCents: 1_000 });
    const read = await (await t.request(`/api/v1/coupons/${coupon.id}`, { key: owner.key })).json();
    expect(read.data.redemptionCount).toBe(0);
    const listed = await (await t.request('/api/v1/coupons', { key: owner.key })).json();
    expect(listed.data[0].redemptionCount).toBe(0);
    const validated = await (await t.request(`/api/v1/billing/validate-coupon?code=${coupon.code}`, { key: owner.key })).json();
    expect(validated.data).toMatchObject({ valid: true, reasons: [] });
    const updated = await (
      await t.request(`/api/v1/coupons/${coupon.id}`, { key: owner.key, method: 'PUT', body: { description: 'x' } })
    ).json();
    expect(updated.data.redemptionCount).toBe(0);
  });
});
