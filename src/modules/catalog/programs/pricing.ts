// The pricing rules of a program's products, in one pure function (docs/programs.md, "Pricing").
// Every place that says what a product costs, whether it is priced or whether it can be sold — the
// pricing read, the Program's sellable/unpriced counts, the global-products pool, the overview's
// attention items — calls priceProduct; nothing else decides it.

export const FEE_SOURCES = ['clinic_override', 'program_base', 'tenant_placeholder', 'none'] as const;
export type FeeSource = (typeof FEE_SOURCES)[number];

/** What the rules read, all money in integer cents; null = not set. */
export interface PricingInput {
  /** program_products.clinic_fee_override_cents (PUT /programs/{id} productPricing). */
  clinicFeeOverrideCents: number | null;
  /** program_products.program_base_fee_cents (from the template, or set on the program). */
  programBaseFeeCents: number | null;
  /** tenant_products.placeholder_fee_cents of the clinic for the global product. */
  tenantPlaceholderFeeCents: number | null;
  /** The pharmacy's cost of one pack: global_products.pharmacy_base_price_cents. */
  pharmacyCostCents: number | null;
  /** tenant_products.facilitation_fee_cents of the clinic for the global product (null: no tenant product). */
  facilitationFeeCents: number | null;
  /** Whether a pharmacy fills the product (at least one pharmacy_coverages row). */
  hasPharmacyCoverage: boolean;
  /** program_products.is_active (true for a product not yet in the program). */
  isActive: boolean;
  /** global_products.is_discontinued. */
  isDiscontinued: boolean;
}

export interface PricingResult {
  feeSource: FeeSource;
  /** The resolved fee (the program fee the clinic earns on one pack), or null when none resolves. */
  effectiveFeeCents: number | null;
  /** The facilitation fee counted into displayPrice (0 without a tenant product). */
  facilitationFeeCents: number;
  /** What the patient pays for one pack: pharmacy cost + facilitation fee + resolved fee; null unless hasResolvedPrice. */
  displayPriceCents: number | null;
  /** A fee and a pharmacy cost both resolve. Not an activation gate. */
  hasResolvedPrice: boolean;
  /** A pharmacy cost resolves and a pharmacy fills the product. */
  isCostBacked: boolean;
  /** hasResolvedPrice, cost-backed, active in the program and not discontinued. */
  isSellable: boolean;
}

/** nonMedicalServiceFee is billed on its own line: it is never part of displayPrice. */
export const NON_MEDICAL_SERVICE_FEE_INCLUDED_IN_DISPLAY_PRICE = false;

/** Rule 1: clinic override, then program base fee, then tenant placeholder. A fee of 0 is a fee. */
export function resolveFee(input: Pick<PricingInput, 'clinicFeeOverrideCents' | 'programBaseFeeCents' | 'tenantPlaceholderFeeCents'>): {
  feeSource: FeeSource;
  effectiveFeeCents: number | null;
} {
  if (input.clinicFeeOverrideCents !== null) return { feeSource: 'clinic_override', effectiveFeeCents: input.clinicFeeOverrideCents };
  if (input.programBaseFeeCents !== null) return { feeSource: 'program_base', effectiveFeeCents: input.programBaseFeeCents };
  if (input.tenantPlaceholderFeeCents !== null)
    return { feeSource: 'tenant_placeholder', effectiveFeeCents: input.tenantPlaceholderFeeCents };
  return { feeSource: 'none', effectiveFeeCents: null };
}

/**
 * The price of one pack of one product of a program. displayPrice is never multiplied by the pack's
 * months (rule 3) and never includes the program's nonMedicalServiceFee (rule 2).
 */
export function priceProduct(input: PricingInput): PricingResult {
  const { feeSource, effectiveFeeCents } = resolveFee(input);
  const facilitationFeeCents = input.facilitationFeeCents ?? 0;
  const hasResolvedPrice = effectiveFeeCents !== null && input.pharmacyCostCents !== null;
  const isCostBacked = input.pharmacyCostCents !== null && input.hasPharmacyCoverage;
  return {
    feeSource,
    effectiveFeeCents,
    facilitationFeeCents,
    displayPriceCents: hasResolvedPrice ? input.pharmacyCostCents! + facilitationFeeCents + effectiveFeeCents! : null,
    hasResolvedPrice,
    isCostBacked,
    isSellable: hasResolvedPrice && isCostBacked && input.isActive && !input.isDiscontinued,
  };
}

/** A program's counts, from the same function: sellable products and products without a resolved price. */
export function countProducts(inputs: PricingInput[]): { sellableProductCount: number; unpricedProductCount: number } {
  let sellableProductCount = 0;
  let unpricedProductCount = 0;
  for (const input of inputs) {
    const price = priceProduct(input);
    if (price.isSellable) sellableProductCount++;
    if (!price.hasResolvedPrice) unpricedProductCount++;
  }
  return { sellableProductCount, unpricedProductCount };
}
