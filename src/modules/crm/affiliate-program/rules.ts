// The affiliate program's arithmetic as pure functions (docs/affiliates.md): payout periods, the rate
// an order earns (override, then tier, then program), the commission of one order, and how rates map
// between the API (percent or dollars) and the database (x 100: basis points or cents).
import type { AffiliateCommissionMode, AffiliatePayoutFrequency } from '../../../../drizzle/schema';
import { roundHalfUpRatio } from '../../orders';

const DAY_MS = 86_400_000;
/** Biweekly periods are 14-day blocks counted from Monday 1970-01-05T00:00:00Z. */
export const BIWEEKLY_ANCHOR_MS = 4 * DAY_MS;

/** A rate as the API writes it (percent, or US dollars in flat mode) to the stored integer x 100. */
export const toHundredths = (value: number): number => Math.round(value * 100);
export const fromHundredths = (hundredths: number): number => hundredths / 100;

/** 100% in basis points: the highest percentage rate (program, override or tier). */
export const MAX_PERCENT_HUNDREDTHS = 10_000;

export interface Period {
  start: Date;
  end: Date;
}

/** Midnight UTC of `date`'s day. */
const utcMidnight = (date: Date) => Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());

/**
 * The period of this frequency that contains `now` ([start, end), UTC): monthly = the calendar month,
 * weekly = Monday 00:00 to the next Monday, biweekly = the 14-day block from BIWEEKLY_ANCHOR_MS.
 */
export function currentPeriod(frequency: AffiliatePayoutFrequency, now: Date): Period {
  if (frequency === 'monthly') {
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    return { start: new Date(start), end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)) };
  }
  if (frequency === 'weekly') {
    const start = utcMidnight(now) - ((now.getUTCDay() + 6) % 7) * DAY_MS;
    return { start: new Date(start), end: new Date(start + 7 * DAY_MS) };
  }
  const block = 14 * DAY_MS;
  const start = BIWEEKLY_ANCHOR_MS + Math.floor((now.getTime() - BIWEEKLY_ANCHOR_MS) / block) * block;
  return { start: new Date(start), end: new Date(start + block) };
}

/** The last complete period before the one containing `now`: what generate pays out. */
export function lastCompletePeriod(frequency: AffiliatePayoutFrequency, now: Date): Period {
  const current = currentPeriod(frequency, now);
  return currentPeriod(frequency, new Date(current.start.getTime() - 1));
}

export interface Tier {
  minActiveReferrals: number;
  percentageHundredths: number;
}

/** The tier with the highest minActiveReferrals the affiliate reaches, or null. */
export function bestTier<T extends Tier>(tiers: readonly T[], activeReferrals: number): T | null {
  let best: T | null = null;
  for (const tier of tiers) {
    if (tier.minActiveReferrals <= activeReferrals && (!best || tier.minActiveReferrals > best.minActiveReferrals)) best = tier;
  }
  return best;
}

export type RateSource = 'affiliate_override' | 'tier' | 'program';

export interface RateInput {
  mode: AffiliateCommissionMode;
  /** The program's rates (x 100). */
  programFirstOrderHundredths: number;
  programDefaultHundredths: number;
  /** The affiliate's overrides (x 100); null = not set. */
  overrideFirstOrderHundredths: number | null;
  overrideDefaultHundredths: number | null;
  /** The percentage of the best tier the affiliate reaches (basis points); null = none. Ignored in flat mode. */
  tierHundredths: number | null;
}

/**
 * The rate an order earns. A first order: the affiliate's first-order override, else the tier's
 * percentage, else the program's first-order rate. A later order: the affiliate's commission-rate
 * override, else the tier's percentage, else the program's default rate. Tiers are percentages and
 * apply only in percentage mode.
 */
export function resolveRate(input: RateInput, isFirstOrder: boolean): { rateHundredths: number; source: RateSource } {
  const override = isFirstOrder ? input.overrideFirstOrderHundredths : input.overrideDefaultHundredths;
  if (override !== null) return { rateHundredths: override, source: 'affiliate_override' };
  if (input.mode === 'percentage' && input.tierHundredths !== null) return { rateHundredths: input.tierHundredths, source: 'tier' };
  return { rateHundredths: isFirstOrder ? input.programFirstOrderHundredths : input.programDefaultHundredths, source: 'program' };
}

/**
 * What an order earns, in cents. Percentage mode: base x rate / 10,000 rounded half up (integer
 * arithmetic). Flat mode: the rate in cents, never more than the base. Never negative.
 */
export function commissionCents(mode: AffiliateCommissionMode, baseCents: number, rateHundredths: number): number {
  const base = Math.max(0, baseCents);
  const rate = Math.max(0, rateHundredths);
  if (mode === 'flat') return Math.min(rate, base);
  return roundHalfUpRatio(base, rate, 10_000);
}
