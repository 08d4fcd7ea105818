import { centsToAmount } from '../../../platform/http/money';
import type { FeeBreakdownCents } from '../../../../drizzle/schema';

// Pieces the order, customer and titration reads share (their SQL uses rowsOf and isoTimestamp from
// src/platform/db/sql.ts: timestamps are formatted in SQL because nested rows come back as json).

/** Count from SQL (bigint arrives as a string) to a number. */
export const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

export const FEE_BREAKDOWN_KEYS = [
  'subtotal', 'discount', 'tax', 'shipping', 'total', 'pharmacyCost', 'doctorFee', 'processorFee', 'platformFee', 'brandAmount',
] as const satisfies readonly (keyof FeeBreakdownCents)[];

export type FeeBreakdown = Record<(typeof FEE_BREAKDOWN_KEYS)[number], number>;

/** The stored fee waterfall (cents) in dollars, key by key; a missing key reads as 0. */
export function feeBreakdownToAmounts(cents: Partial<FeeBreakdownCents> | null | undefined): FeeBreakdown {
  const out = {} as FeeBreakdown;
  for (const key of FEE_BREAKDOWN_KEYS) out[key] = centsToAmount(num(cents?.[key]));
  return out;
}
