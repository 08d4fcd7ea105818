import type { FeeBreakdownCents } from '../../../../drizzle/schema';
import { num } from '../../../platform/db/sql';
import { centsToAmount } from '../../../platform/values/money';

// An order's fee breakdown (the waterfall, stored in cents) as the API answers it, in dollars.

export const FEE_BREAKDOWN_KEYS = [
  'subtotal',
  'discount',
  'tax',
  'shipping',
  'total',
  'pharmacyCost',
  'doctorFee',
  'processorFee',
  'platformFee',
  'brandAmount',
] as const satisfies readonly (keyof FeeBreakdownCents)[];

export type FeeBreakdown = Record<(typeof FEE_BREAKDOWN_KEYS)[number], number>;

/** The stored fee waterfall (cents) in dollars, key by key; a missing key reads as 0. */
export function feeBreakdownToAmounts(cents: Partial<FeeBreakdownCents> | null | undefined): FeeBreakdown {
  const out = {} as FeeBreakdown;
  for (const key of FEE_BREAKDOWN_KEYS) out[key] = centsToAmount(num(cents?.[key]));
  return out;
}
