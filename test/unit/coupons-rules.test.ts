// The coupon rules that span fields, rule by rule.
import { describe, expect, it } from 'vitest';
import {
  assertCouponTerms,
  couponInvalidReasons,
  couponTermProblems,
  fromHundredths,
  toHundredths,
} from '../../src/modules/catalog/coupons/rules';
import { ApiError } from '../../src/platform/values/errors';

const at = (iso: string) => new Date(iso);
const terms = (over: Partial<Parameters<typeof couponTermProblems>[0]> = {}) => ({
  discountType: 'percent' as const,
  discountValueHundredths: 1_000,
  startsAt: null,
  expiresAt: null,
  ...over,
});

describe('discount value as stored', () => {
  it('is the value times 100, exactly, for two-decimal values', () => {
    expect(toHundredths(10)).toBe(1_000);
    expect(toHundredths(12.5)).toBe(1_250);
    expect(toHundredths(0.29)).toBe(29);
    expect(toHundredths(24.99)).toBe(2_499);
    expect(toHundredths(1.005 + 0.005)).toBe(101);
    expect(fromHundredths(2_499)).toBe(24.99);
  });
});

describe('couponTermProblems', () => {
  it('percent: 1 to 100 inclusive', () => {
    expect(couponTermProblems(terms({ discountValueHundredths: 100 }))).toEqual([]);
    expect(couponTermProblems(terms({ discountValueHundredths: 10_000 }))).toEqual([]);
    expect(couponTermProblems(terms({ discountValueHundredths: 99 }))).toEqual([
      { field: 'body.discountValue', message: 'a percent discount must be between 1 and 100' },
    ]);
    expect(couponTermProblems(terms({ discountValueHundredths: 10_001 }))).toHaveLength(1);
  });

  it('fixed: any positive amount, above 100 too', () => {
    expect(couponTermProblems(terms({ discountType: 'fixed', discountValueHundredths: 1 }))).toEqual([]);
    expect(couponTermProblems(terms({ discountType: 'fixed', discountValueHundredths: 50_000 }))).toEqual([]);
    expect(couponTermProblems(terms({ discountType: 'fixed', discountValueHundredths: 0 }))).toEqual([
      { field: 'body.discountValue', message: 'a fixed discount must be a positive amount' },
    ]);
  });

  it('expiresAt strictly after startsAt; either alone is fine', () => {
    expect(couponTermProblems(terms({ startsAt: at('2030-01-01T00:00:00Z'), expiresAt: at('2030-01-01T00:00:01Z') }))).toEqual([]);
    expect(couponTermProblems(terms({ startsAt: at('2030-01-01T00:00:00Z') }))).toEqual([]);
    expect(couponTermProblems(terms({ expiresAt: at('2000-01-01T00:00:00Z') }))).toEqual([]);
    expect(couponTermProblems(terms({ startsAt: at('2030-01-01T00:00:00Z'), expiresAt: at('2030-01-01T00:00:00Z') }))).toEqual([
      { field: 'body.expiresAt', message: 'must be after startsAt' },
    ]);
  });

  it('reports every problem; assertCouponTerms throws them as a 400 with errors[]', () => {
    const bad = terms({ discountValueHundredths: 20_000, startsAt: at('2030-02-01T00:00:00Z'), expiresAt: at('2030-01-01T00:00:00Z') });
    expect(couponTermProblems(bad).map((p) => p.field)).toEqual(['body.discountValue', 'body.expiresAt']);
    try {
      assertCouponTerms(bad);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).code).toBe('VALIDATION_ERROR');
      expect((error as ApiError).extra?.errors).toHaveLength(2);
    }
    expect(() => assertCouponTerms(terms())).not.toThrow();
  });
});

describe('couponInvalidReasons', () => {
  const now = at('2030-06-01T12:00:00Z');
  const state = (over: Partial<Parameters<typeof couponInvalidReasons>[0]> = {}) => ({
    isActive: true,
    startsAt: null,
    expiresAt: null,
    maxRedemptions: null,
    ...over,
  });

  it('a plain active coupon is valid', () => {
    expect(couponInvalidReasons(state(), 1_000, now)).toEqual([]);
  });
  it('inactive', () => {
    expect(couponInvalidReasons(state({ isActive: false }), 0, now)).toEqual(['inactive']);
  });
  it('expired: from expiresAt on', () => {
    expect(couponInvalidReasons(state({ expiresAt: now }), 0, now)).toEqual(['expired']);
    expect(couponInvalidReasons(state({ expiresAt: new Date(now.getTime() + 1) }), 0, now)).toEqual([]);
  });
  it('not_started: before startsAt', () => {
    expect(couponInvalidReasons(state({ startsAt: new Date(now.getTime() + 1) }), 0, now)).toEqual(['not_started']);
    expect(couponInvalidReasons(state({ startsAt: now }), 0, now)).toEqual([]);
  });
  it('max_redemptions_reached: at or over the maximum', () => {
    expect(couponInvalidReasons(state({ maxRedemptions: 3 }), 2, now)).toEqual([]);
    expect(couponInvalidReasons(state({ maxRedemptions: 3 }), 3, now)).toEqual(['max_redemptions_reached']);
    expect(couponInvalidReasons(state({ maxRedemptions: 3 }), 4, now)).toEqual(['max_redemptions_reached']);
  });
  it('all reasons, in the fixed order', () => {
    const everything = state({
      isActive: false,
      expiresAt: at('2030-01-01T00:00:00Z'),
      startsAt: at('2031-01-01T00:00:00Z'),
      maxRedemptions: 1,
    });
    expect(couponInvalidReasons(everything, 1, now)).toEqual(['inactive', 'expired', 'not_started', 'max_redemptions_reached']);
  });
});
