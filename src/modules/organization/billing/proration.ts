// Proration of a plan change over the current period, in integer cents (docs/billing.md, "Proration").

export interface ProrationInput {
  periodStart: Date;
  periodEnd: Date;
  /** The instant of the change (the request's clock). */
  at: Date;
  currentPriceCents: number;
  newPriceCents: number;
}

export interface Proration {
  periodSeconds: number;
  remainingSeconds: number;
  /** Unused time of the current plan, credited back. */
  unusedTimeCreditCents: number;
  /** The remaining time on the new plan, charged now. */
  remainingTimeChargeCents: number;
  /** charge - credit; negative for a downgrade. */
  netCents: number;
  /** What is invoiced now: max(net, 0). */
  amountDueCents: number;
  /** What goes to the clinic's credit balance (taken off the next invoices): max(-net, 0). */
  creditToBalanceCents: number;
}

/** round(numerator / denominator), halves away from zero, on non-negative integers without floating point. */
export function divideRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/**
 * Seconds are whole (the instant is truncated to the second, as the processor prorates). Each line is
 * price x remaining / period, rounded half up to a whole cent on its own; the amounts are then
 * subtracted, so credit + amount due - charge is exactly 0 (no cent is lost to rounding twice).
 */
export function prorate(input: ProrationInput): Proration {
  for (const cents of [input.currentPriceCents, input.newPriceCents]) {
    if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError('prices are non-negative integer cents');
  }
  const periodSeconds = Math.max(0, Math.floor((input.periodEnd.getTime() - input.periodStart.getTime()) / 1000));
  const remainingSeconds = Math.min(periodSeconds, Math.max(0, Math.floor((input.periodEnd.getTime() - input.at.getTime()) / 1000)));
  const share = (cents: number) =>
    periodSeconds === 0 ? 0 : Number(divideRoundHalfUp(BigInt(cents) * BigInt(remainingSeconds), BigInt(periodSeconds)));
  const unusedTimeCreditCents = share(input.currentPriceCents);
  const remainingTimeChargeCents = share(input.newPriceCents);
  const netCents = remainingTimeChargeCents - unusedTimeCreditCents;
  return {
    periodSeconds,
    remainingSeconds,
    unusedTimeCreditCents,
    remainingTimeChargeCents,
    netCents,
    amountDueCents: Math.max(netCents, 0),
    creditToBalanceCents: Math.max(-netCents, 0),
  };
}
