// The coupon rules that need more than one field, as pure functions (unit-tested rule by rule).
import { invalidFields } from '../../../platform/values/errors';
import type { CouponDiscountType, CouponInvalidReason } from './schemas';

/** discountValue x 100 as stored (discount_value_hundredths): basis points or cents. */
export const toHundredths = (value: number): number => Math.round(value * 100);
export const fromHundredths = (hundredths: number): number => hundredths / 100;

export const MIN_PERCENT_HUNDREDTHS = 100; // 1%
export const MAX_PERCENT_HUNDREDTHS = 10_000; // 100%

export interface CouponTerms {
  discountType: CouponDiscountType;
  discountValueHundredths: number;
  startsAt: Date | null;
  expiresAt: Date | null;
}

export interface FieldProblem {
  field: string;
  message: string;
}

/** What is wrong with a coupon's terms taken together (the single fields are checked by the schema). */
export function couponTermProblems(terms: CouponTerms): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (terms.discountType === 'percent') {
    if (terms.discountValueHundredths < MIN_PERCENT_HUNDREDTHS || terms.discountValueHundredths > MAX_PERCENT_HUNDREDTHS) {
      problems.push({ field: 'body.discountValue', message: 'a percent discount must be between 1 and 100' });
    }
  } else if (terms.discountValueHundredths <= 0) {
    problems.push({ field: 'body.discountValue', message: 'a fixed discount must be a positive amount' });
  }
  if (terms.startsAt && terms.expiresAt && terms.expiresAt.getTime() <= terms.startsAt.getTime()) {
    problems.push({ field: 'body.expiresAt', message: 'must be after startsAt' });
  }
  return problems;
}

/** Throws the 400 VALIDATION_ERROR (shaped like a schema failure) when the terms do not hold together. */
export function assertCouponTerms(terms: CouponTerms): void {
  const errors = couponTermProblems(terms);
  if (errors.length) {
    throw invalidFields(errors);
  }
}

export interface CouponState {
  isActive: boolean;
  startsAt: Date | null;
  expiresAt: Date | null;
  maxRedemptions: number | null;
}

/**
 * Why a coupon cannot be redeemed at `now`, in a fixed order: inactive, expired, not_started,
 * max_redemptions_reached. Empty: valid. A coupon is valid from startsAt (inclusive) until expiresAt
 * (exclusive).
 */
export function couponInvalidReasons(coupon: CouponState, redemptionCount: number, now: Date): CouponInvalidReason[] {
  const reasons: CouponInvalidReason[] = [];
  const at = now.getTime();
  if (!coupon.isActive) reasons.push('inactive');
  if (coupon.expiresAt && at >= coupon.expiresAt.getTime()) reasons.push('expired');
  if (coupon.startsAt && at < coupon.startsAt.getTime()) reasons.push('not_started');
  if (coupon.maxRedemptions !== null && redemptionCount >= coupon.maxRedemptions) reasons.push('max_redemptions_reached');
  return reasons;
}

export const REASON_MESSAGES: Record<CouponInvalidReason, string> = {
  inactive: 'The coupon is inactive',
  expired: 'The coupon has expired',
  not_started: 'The coupon is not valid yet',
  max_redemptions_reached: 'The coupon has reached its maximum number of redemptions',
};
