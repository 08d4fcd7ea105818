import { z } from '@hono/zod-openapi';
import { dateTime } from '../../../platform/values/dates';
import { amount, MAX_AMOUNT } from '../../../platform/values/money';
import { safeString, text } from '../../../platform/values/strings';

/** The value sets the specification leaves open (it names percent, first_charge and reject). */
export const COUPON_DISCOUNT_TYPES = ['percent', 'fixed'] as const;
export type CouponDiscountType = (typeof COUPON_DISCOUNT_TYPES)[number];
export const COUPON_SCOPES = ['first_charge', 'all_charges'] as const;
export const OVER_MARGIN_BEHAVIORS = ['reject', 'cap'] as const;

export const COUPON_CODE_PATTERN = /^[A-Za-z0-9_-]+$/;
export const MAX_COUPON_LIMIT = 1_000_000;

const hasAtMostTwoDecimals = (value: number) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;

const limit = (what: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(MAX_COUPON_LIMIT)
    .nullable()
    .openapi({ description: `${what}; null: no limit.`, example: 100 });

/** Every field of the Coupon body, each optional here; create adds the required ones and defaults. */
const couponFields = {
  code: safeString()
    .trim()
    .min(3)
    .max(40)
    .regex(COUPON_CODE_PATTERN, 'must contain only letters, digits, - and _')
    .openapi({ description: '3-40 letters, digits, - and _; unique per clinic ignoring case.', example: 'WELCOME10' }),
  description: text().trim().max(500).nullable().openapi({ example: 'Ten percent off the first month' }),
  discountType: z
    .enum(COUPON_DISCOUNT_TYPES)
    .openapi({ description: 'percent (discountValue 1-100) or fixed (discountValue in US dollars).' }),
  discountValue: z
    .number()
    .finite()
    .positive()
    .max(MAX_AMOUNT)
    .refine(hasAtMostTwoDecimals, { message: 'must have at most two decimals' })
    .openapi({ description: 'percent: 1 to 100 (up to two decimals); fixed: a positive dollar amount (49.99).', example: 10 }),
  startsAt: dateTime().nullable().openapi({ description: 'Not valid before this instant; null: from creation.' }),
  expiresAt: dateTime().nullable().openapi({ description: 'Not valid from this instant on; must be after startsAt; null: never expires.' }),
  isActive: z.boolean().openapi({ description: 'An inactive coupon is never valid.' }),
  scope: z.enum(COUPON_SCOPES).openapi({
    description: 'first_charge: the discount applies to the first charge only; all_charges: to every charge of the subscription.',
  }),
  overMarginBehavior: z.enum(OVER_MARGIN_BEHAVIORS).openapi({
    description: "reject: a discount larger than the clinic's margin refuses the coupon; cap: the discount is cut to the margin.",
  }),
  maxRedemptions: limit('Redemptions allowed in total'),
  perCustomerLimit: limit('Redemptions allowed per customer'),
  minOrderAmount: amount()
    .nullable()
    .openapi({ description: 'Smallest order (US dollars) the coupon applies to; null: any.', example: 50 }),
};

export const createCouponBody = z
  .object({
    ...couponFields,
    description: couponFields.description.default(null),
    startsAt: couponFields.startsAt.default(null),
    expiresAt: couponFields.expiresAt.default(null),
    isActive: couponFields.isActive.default(true),
    scope: couponFields.scope.default('first_charge'),
    overMarginBehavior: couponFields.overMarginBehavior.default('reject'),
    maxRedemptions: couponFields.maxRedemptions.default(null),
    perCustomerLimit: couponFields.perCustomerLimit.default(null),
    minOrderAmount: couponFields.minOrderAmount.default(null),
  })
  .strict()
  .openapi('CreateCouponRequest');
export type CreateCouponBody = z.infer<typeof createCouponBody>;

export const updateCouponBody = z
  .object(couponFields)
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must contain at least one field' })
  .openapi('UpdateCouponRequest', {
    description: 'A partial update: only the fields sent change, and the merged coupon is validated as a whole.',
  });
export type UpdateCouponBody = z.infer<typeof updateCouponBody>;

export const coupon = z
  .object({
    id: z.string().uuid(),
    code: z.string(),
    description: z.string().nullable(),
    discountType: z.enum(COUPON_DISCOUNT_TYPES),
    discountValue: z.number().openapi({ description: 'percent: 1-100; fixed: US dollars.' }),
    startsAt: z.string().datetime().nullable(),
    expiresAt: z.string().datetime().nullable(),
    isActive: z.boolean(),
    scope: z.enum(COUPON_SCOPES),
    overMarginBehavior: z.enum(OVER_MARGIN_BEHAVIORS),
    maxRedemptions: z.number().int().nullable(),
    perCustomerLimit: z.number().int().nullable(),
    minOrderAmount: z.number().nullable().openapi({ description: 'US dollars.' }),
    redemptionCount: z.number().int(),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('Coupon');
export type Coupon = z.infer<typeof coupon>;

export const deletedCoupon = z.object({ id: z.string().uuid(), deleted: z.literal(true) }).openapi('DeletedCoupon');

const moneyTotals = {
  redemptions: z.number().int(),
  uniqueCustomers: z.number().int().openapi({ description: 'Distinct patients (redemptions whose patient was deleted are not counted).' }),
  totalDiscount: z.number().openapi({ description: 'US dollars.' }),
  totalOrderAmount: z.number().openapi({ description: 'US dollars: the orders the coupon was applied to, before the discount.' }),
};

export const couponPerformance = z
  .object({
    couponId: z.string().uuid(),
    code: z.string(),
    ...moneyTotals,
    averageDiscount: z.number().nullable().openapi({ description: 'US dollars per redemption; null without redemptions.' }),
    averageOrderAmount: z.number().nullable().openapi({ description: 'US dollars per redemption; null without redemptions.' }),
    maxRedemptions: z.number().int().nullable(),
    remainingRedemptions: z.number().int().nullable().openapi({ description: 'null when the coupon has no maxRedemptions.' }),
    firstRedeemedAt: z.string().datetime().nullable(),
    lastRedeemedAt: z.string().datetime().nullable(),
    byMonth: z
      .array(z.object({ month: z.string().openapi({ example: '2030-01', description: 'Calendar month in UTC.' }), ...moneyTotals }))
      .openapi({ description: 'Months with at least one redemption, oldest first.' }),
  })
  .openapi('CouponPerformance');
export type CouponPerformance = z.infer<typeof couponPerformance>;

export const COUPON_INVALID_REASONS = ['inactive', 'expired', 'not_started', 'max_redemptions_reached'] as const;
export type CouponInvalidReason = (typeof COUPON_INVALID_REASONS)[number];

export const validateCouponQuery = z.object({
  code: safeString().trim().min(1).max(100).openapi({ description: 'The code to check (ignoring case).', example: 'WELCOME10' }),
});

export const couponValidation = z
  .object({
    valid: z.boolean(),
    reason: z
      .enum(COUPON_INVALID_REASONS)
      .nullable()
      .openapi({ description: 'The first reason the coupon is not valid now (in the order of reasons); null when valid.' }),
    reasons: z.array(z.enum(COUPON_INVALID_REASONS)).openapi({ description: 'Every reason it is not valid now; empty when valid.' }),
    message: z.string(),
    coupon: z.object({
      id: z.string().uuid(),
      code: z.string(),
      discountType: z.enum(COUPON_DISCOUNT_TYPES),
      discountValue: z.number(),
      scope: z.enum(COUPON_SCOPES),
      overMarginBehavior: z.enum(OVER_MARGIN_BEHAVIORS),
      startsAt: z.string().datetime().nullable(),
      expiresAt: z.string().datetime().nullable(),
      isActive: z.boolean(),
      minOrderAmount: z.number().nullable(),
      perCustomerLimit: z.number().int().nullable(),
      maxRedemptions: z.number().int().nullable(),
      redemptionCount: z.number().int(),
      remainingRedemptions: z.number().int().nullable(),
    }),
  })
  .openapi('CouponValidation');
export type CouponValidation = z.infer<typeof couponValidation>;
