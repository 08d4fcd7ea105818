// Coupons and their redemptions, and pharmacy price-change alerts. Money is integer cents.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { globalProducts } from './catalog';
import { clinics } from './clinics';
import { createdAt, id, timestamptz, updatedAt } from './columns';
import { patients } from './patients';
import { programs } from './programs';

export const coupons = pgTable(
  'coupons',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    /** As the brand wrote it; unique per clinic ignoring case (among coupons not deleted). */
    code: text('code').notNull(),
    description: text('description'),
    discountType: text('discount_type').notNull(),
    /**
     * discountValue x 100 as an integer: basis points for a percent coupon (25% = 2500), cents for a
     * fixed amount ($10.00 = 1000). No floats in the database.
     */
    discountValueHundredths: integer('discount_value_hundredths').notNull(),
    startsAt: timestamptz('starts_at'),
    expiresAt: timestamptz('expires_at'),
    isActive: boolean('is_active').notNull().default(true),
    scope: text('scope').notNull().default('first_charge'),
    overMarginBehavior: text('over_margin_behavior').notNull().default('reject'),
    maxRedemptions: integer('max_redemptions'),
    perCustomerLimit: integer('per_customer_limit'),
    minOrderAmountCents: integer('min_order_amount_cents'),
    deletedAt: timestamptz('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('coupons_clinic_id_code_key').on(t.clinicId, sql`lower(${t.code})`).where(sql`${t.deletedAt} is null`),
    index('coupons_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    check('coupons_value_check', sql`${t.discountValueHundredths} > 0`),
  ],
);

export const couponRedemptions = pgTable(
  'coupon_redemptions',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    couponId: uuid('coupon_id')
      .notNull()
      .references(() => coupons.id, { onDelete: 'cascade' }),
    patientId: uuid('patient_id').references(() => patients.id, { onDelete: 'set null' }),
    /** The order it was applied to (orders arrive with the orders area; no foreign key yet). */
    orderId: uuid('order_id'),
    orderAmountCents: integer('order_amount_cents').notNull(),
    discountCents: integer('discount_cents').notNull(),
    redeemedAt: timestamptz('redeemed_at').notNull().defaultNow(),
  },
  (t) => [
    index('coupon_redemptions_clinic_id_coupon_id_idx').on(t.clinicId, t.couponId, t.redeemedAt),
    index('coupon_redemptions_coupon_id_patient_id_idx').on(t.couponId, t.patientId),
  ],
);

export const priceChangeAlerts = pgTable(
  'price_change_alerts',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    /** A clinic's own product, when the alert is about one. */
    productId: uuid('product_id'),
    programId: uuid('program_id').references(() => programs.id, { onDelete: 'cascade' }),
    globalProductId: uuid('global_product_id').references(() => globalProducts.id, { onDelete: 'cascade' }),
    direction: text('direction').notNull(),
    previousPharmacyPriceCents: integer('previous_pharmacy_price_cents'),
    newPharmacyPriceCents: integer('new_pharmacy_price_cents'),
    currentProgramFeeCents: integer('current_program_fee_cents'),
    suggestedProgramFeeCents: integer('suggested_program_fee_cents'),
    perUnitMarginDeltaCents: integer('per_unit_margin_delta_cents'),
    status: text('status').notNull().default('open'),
    acknowledgedAt: timestamptz('acknowledged_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('price_change_alerts_clinic_id_status_created_at_idx').on(t.clinicId, t.status, t.createdAt),
    check('price_change_alerts_direction_check', sql`${t.direction} in ('increase', 'decrease')`),
    check('price_change_alerts_status_check', sql`${t.status} in ('open', 'acknowledged')`),
  ],
);
