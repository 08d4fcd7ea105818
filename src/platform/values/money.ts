import { z } from '@hono/zod-openapi';

/**
 * Money in the API. The database stores integer cents everywhere. Fields named `*Cents` are integer
 * cents; every other money field (price, fee, amount...) is a decimal number of US dollars with at
 * most two decimals (49.99). These helpers are the only place the two meet.
 */
export const MAX_AMOUNT = 1_000_000; // $1,000,000.00: far above any price, far below integer overflow

/** Cents from the database to an API amount (4999 -> 49.99). */
export const centsToAmount = (cents: number): number => Math.round(cents) / 100;

/** Nullable variant for optional columns. */
export const centsToAmountOrNull = (cents: number | null | undefined): number | null =>
  cents === null || cents === undefined ? null : centsToAmount(cents);

/** An API amount to cents; only for values already checked by `amount()`. */
export const amountToCents = (amount: number): number => Math.round(amount * 100);

const hasAtMostTwoDecimals = (value: number) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;

/**
 * An input amount in dollars: finite, 0 to MAX_AMOUNT (or from `min`), at most two decimals, handed to
 * the handler as integer cents. `amount().openapi(...)` documents it as a number. `positive` is checked
 * on the cents: a positive number below half a cent (5e-324) is "two decimals" within the float
 * tolerance and would otherwise reach the handler as 0 cents.
 */
export function amount(options: { min?: number; positive?: boolean } = {}) {
  const min = options.min ?? 0;
  return z
    .number()
    .finite()
    .min(min)
    .max(MAX_AMOUNT)
    .refine((value) => !options.positive || amountToCents(value) > 0, { message: 'must be at least 0.01' })
    .refine(hasAtMostTwoDecimals, { message: 'must have at most two decimals' })
    .transform(amountToCents);
}
