// The fee waterfall of an order, in one pure function (docs/order-lifecycle.md, "Fee breakdown").
// Every place that says where an order's money goes — createOrder (orders.fee_breakdown), the ledger
// entries of payment.succeeded, the order reads — uses what computeFeeBreakdown produced; nothing
// else decides it. All money is integer cents; nothing here ever holds a float amount.
import type { FeeBreakdownCents } from '../../../../../drizzle/schema';
import type { LedgerMovement } from '../../ledger/entries';

/** The payment processor's card fee: 2.9% of the amount charged plus 30 cents. */
export const PROCESSOR_FEE_RATE_PER_MILLE = 29;
export const PROCESSOR_FEE_FIXED_CENTS = 30;
/** The doctor's fee for reviewing one order, unless the caller names another. */
export const DEFAULT_DOCTOR_FEE_CENTS = 1_500;

/** One line of an order, money in integer cents per unit. */
export interface FeeItem {
  unitPriceCents: number;
  quantity: number;
  /** What the pharmacy charges for one unit (global_products.pharmacy_base_price_cents); 0 for a service line. */
  pharmacyCostCents: number;
  /** The platform's facilitation fee inside unitPriceCents (tenant_products.facilitation_fee_cents); default 0. */
  facilitationFeeCents?: number;
}

export interface FeeInput {
  items: FeeItem[];
  /** Coupon discount; at most the subtotal. Default 0. */
  discountCents?: number;
  /** Sales tax collected with the charge (passed through). Default 0. */
  taxCents?: number;
  /** Shipping charged to the patient (passed through to the pharmacy that ships). Default 0. */
  shippingCents?: number;
  /** The doctor's fee for the order. Default DEFAULT_DOCTOR_FEE_CENTS. */
  doctorFeeCents?: number;
  /** An extra platform fee in basis points of (subtotal - discount), rounded half up. Default 0. */
  platformFeeBasisPoints?: number;
}

/** a * numerator / denominator rounded half up, for non-negative integers, in exact integer arithmetic. */
export function roundHalfUpRatio(a: number, numerator: number, denominator: number): number {
  return Math.floor((a * numerator * 2 + denominator) / (denominator * 2));
}

/** Rule 6: 2.9% of the charged total rounded half up to the cent, plus 30 cents; nothing when nothing is charged. */
export function processorFeeCents(totalCents: number): number {
  if (totalCents <= 0) return 0;
  return roundHalfUpRatio(totalCents, PROCESSOR_FEE_RATE_PER_MILLE, 1000) + PROCESSOR_FEE_FIXED_CENTS;
}

function cents(name: string, value: number | undefined, fallback = 0): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer number of cents, not ${v}`);
  return v;
}

/**
 * The waterfall (rules numbered as in docs/order-lifecycle.md):
 * 1. subtotal = sum of unitPrice x quantity;
 * 2. discount <= subtotal (a RangeError otherwise);
 * 3. total = subtotal - discount + tax + shipping;
 * 4. pharmacyCost = sum of pharmacyCost x quantity;
 * 5. doctorFee as given (default $15.00);
 * 6. processorFee = round_half_up(2.9% x total) + 30 cents (0 when total is 0);
 * 7. platformFee = sum of facilitationFee x quantity + round_half_up(basisPoints x (subtotal - discount) / 10000);
 * 8. brandAmount = total - pharmacyCost - doctorFee - processorFee - platformFee - tax - shipping
 *    (= subtotal - discount - the four fees): the discount comes out of the brand's share. It is
 *    negative when the fees exceed what is left (checkout refuses such orders; this function does not).
 */
export function computeFeeBreakdown(input: FeeInput): FeeBreakdownCents {
  if (input.items.length === 0) throw new RangeError('an order needs at least one item');
  let subtotal = 0;
  let pharmacyCost = 0;
  let facilitation = 0;
  for (const [i, item] of input.items.entries()) {
    const quantity = item.quantity;
    if (!Number.isSafeInteger(quantity) || quantity < 1) throw new RangeError(`items[${i}].quantity must be a positive integer`);
    subtotal += cents(`items[${i}].unitPriceCents`, item.unitPriceCents) * quantity;
    pharmacyCost += cents(`items[${i}].pharmacyCostCents`, item.pharmacyCostCents) * quantity;
    facilitation += cents(`items[${i}].facilitationFeeCents`, item.facilitationFeeCents) * quantity;
  }
  const discount = cents('discountCents', input.discountCents);
  if (discount > subtotal) throw new RangeError(`discountCents (${discount}) exceeds the subtotal (${subtotal})`);
  const tax = cents('taxCents', input.taxCents);
  const shipping = cents('shippingCents', input.shippingCents);
  const doctorFee = cents('doctorFeeCents', input.doctorFeeCents, DEFAULT_DOCTOR_FEE_CENTS);
  const basisPoints = cents('platformFeeBasisPoints', input.platformFeeBasisPoints);
  if (basisPoints > 10_000) throw new RangeError('platformFeeBasisPoints must be at most 10000 (100%)');

  const total = subtotal - discount + tax + shipping;
  const processorFee = processorFeeCents(total);
  const platformFee = facilitation + roundHalfUpRatio(subtotal - discount, basisPoints, 10_000);
  const brandAmount = total - pharmacyCost - doctorFee - processorFee - platformFee - tax - shipping;
  return { subtotal, discount, tax, shipping, total, pharmacyCost, doctorFee, processorFee, platformFee, brandAmount };
}

/**
 * The ledger entries of a succeeded charge (docs/order-lifecycle.md, "Ledger"): +charge of the whole
 * total, then every part that is not the brand's, as debits. Tax is a platform_fee entry (the
 * platform collects and remits it) and shipping a pharmacy_cost entry (the pharmacy ships), each with
 * its own description, because the ledger's types are fixed. Zero parts are skipped. The entries sum
 * to brandAmount.
 */
export function chargeLedgerMovements(orderId: string, b: FeeBreakdownCents, createdAt?: Date): LedgerMovement[] {
  const parts: [LedgerMovement['type'], number, string][] = [
    ['charge', b.total, 'Order charge (total paid by the patient)'],
    ['pharmacy_cost', -b.pharmacyCost, 'Pharmacy cost'],
    ['pharmacy_cost', -b.shipping, 'Shipping, paid to the pharmacy'],
    ['doctor_fee', -b.doctorFee, 'Doctor fee'],
    ['processor_fee', -b.processorFee, 'Payment processor fee (2.9% + $0.30)'],
    ['platform_fee', -b.platformFee, 'Platform fee'],
    ['platform_fee', -b.tax, 'Sales tax, remitted by the platform'],
  ];
  return parts
    .filter(([, amount]) => amount !== 0)
    .map(([type, amountCents, description]) => ({ type, amountCents, orderId, description, ...(createdAt ? { createdAt } : {}) }));
}

/** Both identities of FeeBreakdownCents hold (for tests and assertions). */
export function feeBreakdownAddsUp(b: FeeBreakdownCents): boolean {
  return (
    b.subtotal - b.discount + b.tax + b.shipping === b.total &&
    b.pharmacyCost + b.doctorFee + b.processorFee + b.platformFee + b.tax + b.shipping + b.brandAmount === b.total
  );
}
