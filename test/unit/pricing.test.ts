// The pricing rules (spec "Pricing rules"; docs/programs.md), one by one.
import { describe, expect, it } from 'vitest';
import {
  countProducts,
  NON_MEDICAL_SERVICE_FEE_INCLUDED_IN_DISPLAY_PRICE,
  type PricingInput,
  priceProduct,
  resolveFee,
} from '../../src/modules/catalog/programs/pricing';

const base: PricingInput = {
  clinicFeeOverrideCents: null,
  programBaseFeeCents: null,
  tenantPlaceholderFeeCents: null,
  pharmacyCostCents: 12_900,
  facilitationFeeCents: 1_000,
  hasPharmacyCoverage: true,
  isActive: true,
  isDiscontinued: false,
};
const input = (values: Partial<PricingInput>): PricingInput => ({ ...base, ...values });

describe('rule 1: the fee resolves clinic override -> program base fee -> tenant placeholder', () => {
  it('takes the clinic override over everything', () => {
    expect(resolveFee(input({ clinicFeeOverrideCents: 5_000, programBaseFeeCents: 7_000, tenantPlaceholderFeeCents: 9_000 }))).toEqual({
      feeSource: 'clinic_override',
      effectiveFeeCents: 5_000,
    });
  });

  it('takes the program base fee without an override', () => {
    expect(resolveFee(input({ programBaseFeeCents: 7_000, tenantPlaceholderFeeCents: 9_000 }))).toEqual({
      feeSource: 'program_base',
      effectiveFeeCents: 7_000,
    });
  });

  it('falls back to the tenant placeholder', () => {
    expect(resolveFee(input({ tenantPlaceholderFeeCents: 9_000 }))).toEqual({ feeSource: 'tenant_placeholder', effectiveFeeCents: 9_000 });
  });

  it('says none when nothing is set', () => {
    expect(resolveFee(base)).toEqual({ feeSource: 'none', effectiveFeeCents: null });
  });

  it('treats a fee of 0 as a fee (an override of 0 wins; a base fee of 0 beats the placeholder)', () => {
    expect(resolveFee(input({ clinicFeeOverrideCents: 0, programBaseFeeCents: 7_000 }))).toEqual({
      feeSource: 'clinic_override',
      effectiveFeeCents: 0,
    });
    expect(resolveFee(input({ programBaseFeeCents: 0, tenantPlaceholderFeeCents: 9_000 }))).toEqual({
      feeSource: 'program_base',
      effectiveFeeCents: 0,
    });
  });
});

describe('rule 2: displayPrice is what the patient pays and never includes nonMedicalServiceFee', () => {
  it('is pharmacy cost + facilitation fee + resolved fee', () => {
    expect(priceProduct(input({ programBaseFeeCents: 7_000 })).displayPriceCents).toBe(12_900 + 1_000 + 7_000);
  });

  it('reflects the resolution: the override, not the base fee, is in the price', () => {
    expect(priceProduct(input({ clinicFeeOverrideCents: 5_000, programBaseFeeCents: 7_000 })).displayPriceCents).toBe(
      12_900 + 1_000 + 5_000,
    );
  });

  it('counts a missing tenant product as a facilitation fee of 0', () => {
    const price = priceProduct(input({ programBaseFeeCents: 7_000, facilitationFeeCents: null }));
    expect(price.facilitationFeeCents).toBe(0);
    expect(price.displayPriceCents).toBe(12_900 + 7_000);
  });

  it('says so: nonMedicalServiceFeeIncludedInDisplayPrice is false (the function has no input for it at all)', () => {
    expect(NON_MEDICAL_SERVICE_FEE_INCLUDED_IN_DISPLAY_PRICE).toBe(false);
    expect(Object.keys(base)).not.toContain('nonMedicalServiceFeeCents');
  });
});

describe('rule 3: displayPrice prices one pack, never times months', () => {
  it('is the same for a 3-month pack as its inputs say (no multiplication)', () => {
    // A 3-month pack's pharmacy cost is already the cost of the pack.
    expect(priceProduct(input({ pharmacyCostCents: 34_500, programBaseFeeCents: 19_900 })).displayPriceCents).toBe(34_500 + 1_000 + 19_900);
  });
});

describe('rule 4: hasResolvedPrice = a fee and a pharmacy cost resolve; not an activation gate', () => {
  it('is true with both', () => {
    expect(priceProduct(input({ tenantPlaceholderFeeCents: 1 })).hasResolvedPrice).toBe(true);
  });

  it('is false without a fee; displayPrice is then null', () => {
    const price = priceProduct(base);
    expect(price.hasResolvedPrice).toBe(false);
    expect(price.displayPriceCents).toBeNull();
  });

  it('is false without a pharmacy cost', () => {
    expect(priceProduct(input({ programBaseFeeCents: 7_000, pharmacyCostCents: null })).hasResolvedPrice).toBe(false);
  });

  it('does not depend on activation or discontinuation', () => {
    expect(priceProduct(input({ programBaseFeeCents: 7_000, isActive: false, isDiscontinued: true })).hasResolvedPrice).toBe(true);
  });
});

describe('isCostBacked and isSellable', () => {
  it('isCostBacked needs a pharmacy cost and a pharmacy filling the product', () => {
    expect(priceProduct(base).isCostBacked).toBe(true);
    expect(priceProduct(input({ hasPharmacyCoverage: false })).isCostBacked).toBe(false);
    expect(priceProduct(input({ pharmacyCostCents: null })).isCostBacked).toBe(false);
  });

  it('isSellable: resolved price, cost-backed, active, not discontinued', () => {
    const priced = { programBaseFeeCents: 7_000 };
    expect(priceProduct(input(priced)).isSellable).toBe(true);
    expect(priceProduct(base).isSellable).toBe(false);
    expect(priceProduct(input({ ...priced, hasPharmacyCoverage: false })).isSellable).toBe(false);
    expect(priceProduct(input({ ...priced, isActive: false })).isSellable).toBe(false);
    expect(priceProduct(input({ ...priced, isDiscontinued: true })).isSellable).toBe(false);
  });
});

describe('program counts derive from the same function', () => {
  it('counts sellable and unpriced products', () => {
    const products = [
      input({ clinicFeeOverrideCents: 1 }), // sellable
      input({ programBaseFeeCents: 1, isDiscontinued: true }), // priced, not sellable
      input({ tenantPlaceholderFeeCents: 1, isActive: false }), // priced, not sellable
      base, // unpriced
      input({ programBaseFeeCents: 1, pharmacyCostCents: null }), // unpriced (no cost)
    ];
    expect(countProducts(products)).toEqual({ sellableProductCount: 1, unpricedProductCount: 2 });
    for (const product of products) {
      const price = priceProduct(product);
      expect(price.isSellable && !price.hasResolvedPrice).toBe(false);
    }
  });

  it('is zero for a program without products', () => {
    expect(countProducts([])).toEqual({ sellableProductCount: 0, unpricedProductCount: 0 });
  });
});
