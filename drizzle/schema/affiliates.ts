// The affiliate program: its configuration on the clinic, affiliates (memberships), the patients
// they referred, commissions earned on those patients' orders, payouts that group commissions per
// period, tax documents and referral tiers. Rates follow the coupons' rule: the API's number x 100
// as an integer (basis points for percentages, cents for flat amounts); money is integer cents.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clinics } from './clinics';
import { createdAt, id, timestamptz, updatedAt } from './columns';
import { orders } from './orders';
import { patients } from './patients';

const clinicId = () =>
  uuid('clinic_id')
    .notNull()
    .references(() => clinics.id, { onDelete: 'cascade' });

export const AFFILIATE_COMMISSION_MODES = ['percentage', 'flat'] as const;
export type AffiliateCommissionMode = (typeof AFFILIATE_COMMISSION_MODES)[number];
export const AFFILIATE_PAYOUT_FREQUENCIES = ['weekly', 'biweekly', 'monthly'] as const;
export type AffiliatePayoutFrequency = (typeof AFFILIATE_PAYOUT_FREQUENCIES)[number];

/** One row per clinic that configured its program (GET answers the defaults when there is none). */
export const affiliatePrograms = pgTable(
  'affiliate_programs',
  {
    clinicId: uuid('clinic_id')
      .primaryKey()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    enabled: boolean('enabled').notNull().default(false),
    commissionMode: text('commission_mode').$type<AffiliateCommissionMode>().notNull().default('percentage'),
    firstOrderRateHundredths: integer('first_order_rate_hundredths').notNull().default(0),
    defaultRateHundredths: integer('default_rate_hundredths').notNull().default(0),
    /** Commissions are earned on a referred patient's orders for this many months; null = forever. */
    commissionDurationMonths: integer('commission_duration_months'),
    cookieWindowDays: integer('cookie_window_days').notNull().default(30),
    minimumPayoutThresholdCents: integer('minimum_payout_threshold_cents').notNull().default(0),
    payoutFrequency: text('payout_frequency').$type<AffiliatePayoutFrequency>().notNull().default('monthly'),
    /** Most affiliates the clinic accepts; null = no limit. */
    maxAffiliates: integer('max_affiliates'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('affiliate_programs_mode_check', sql`${t.commissionMode} in ('percentage', 'flat')`),
    check('affiliate_programs_frequency_check', sql`${t.payoutFrequency} in ('weekly', 'biweekly', 'monthly')`),
    check(
      'affiliate_programs_values_check',
      sql`${t.firstOrderRateHundredths} >= 0 and ${t.defaultRateHundredths} >= 0 and ${t.minimumPayoutThresholdCents} >= 0`,
    ),
  ],
);

export const AFFILIATE_STATUSES = ['active', 'paused', 'removed'] as const;
export type AffiliateStatus = (typeof AFFILIATE_STATUSES)[number];

/** An affiliate's membership in the clinic's program (membershipId in the API). */
export const affiliates = pgTable(
  'affiliates',
  {
    id: id(),
    clinicId: clinicId(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    /** Lower-cased; unique per clinic. */
    email: text('email').notNull(),
    referralCode: text('referral_code').notNull(),
    status: text('status').$type<AffiliateStatus>().notNull().default('active'),
    /** Per-affiliate overrides of the program's rates (x 100); null = the program's (or tier's) rate. */
    firstOrderRateHundredths: integer('first_order_rate_hundredths'),
    commissionRateHundredths: integer('commission_rate_hundredths'),
    payoutContactMethod: text('payout_contact_method'),
    payoutNotes: text('payout_notes'),
    joinedAt: timestamptz('joined_at').notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('affiliates_clinic_id_email_key').on(t.clinicId, t.email),
    uniqueIndex('affiliates_clinic_id_referral_code_key').on(t.clinicId, sql`lower(${t.referralCode})`),
    index('affiliates_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
    check('affiliates_status_check', sql`${t.status} in ('active', 'paused', 'removed')`),
  ],
);

/** A patient an affiliate referred; a patient is referred by at most one affiliate of the clinic. */
export const affiliateReferrals = pgTable(
  'affiliate_referrals',
  {
    id: id(),
    clinicId: clinicId(),
    affiliateId: uuid('affiliate_id')
      .notNull()
      .references(() => affiliates.id, { onDelete: 'cascade' }),
    patientId: uuid('patient_id')
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    referredAt: timestamptz('referred_at').notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('affiliate_referrals_clinic_id_patient_id_key').on(t.clinicId, t.patientId),
    index('affiliate_referrals_clinic_id_affiliate_id_idx').on(t.clinicId, t.affiliateId),
  ],
);

export const AFFILIATE_PAYOUT_STATUSES = ['pending', 'approved', 'paid'] as const;
export type AffiliatePayoutStatus = (typeof AFFILIATE_PAYOUT_STATUSES)[number];

/** Commissions of one affiliate for one period; generate is idempotent per (affiliate, period). */
export const affiliatePayouts = pgTable(
  'affiliate_payouts',
  {
    id: id(),
    clinicId: clinicId(),
    affiliateId: uuid('affiliate_id')
      .notNull()
      .references(() => affiliates.id, { onDelete: 'cascade' }),
    periodStart: timestamptz('period_start').notNull(),
    periodEnd: timestamptz('period_end').notNull(),
    /** Sum of the included commissions, kept in step when commissions are excluded. */
    amountCents: integer('amount_cents').notNull(),
    status: text('status').$type<AffiliatePayoutStatus>().notNull().default('pending'),
    approvedAt: timestamptz('approved_at'),
    paidAt: timestamptz('paid_at'),
    notes: text('notes'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('affiliate_payouts_affiliate_period_key').on(t.affiliateId, t.periodStart),
    index('affiliate_payouts_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
    check('affiliate_payouts_status_check', sql`${t.status} in ('pending', 'approved', 'paid')`),
    check('affiliate_payouts_amount_check', sql`${t.amountCents} >= 0`),
  ],
);

export const AFFILIATE_COMMISSION_STATUSES = ['earned', 'included', 'excluded', 'paid'] as const;
export type AffiliateCommissionStatus = (typeof AFFILIATE_COMMISSION_STATUSES)[number];

/** What one referred order earned its affiliate (one commission per order). */
export const affiliateCommissions = pgTable(
  'affiliate_commissions',
  {
    id: id(),
    clinicId: clinicId(),
    affiliateId: uuid('affiliate_id')
      .notNull()
      .references(() => affiliates.id, { onDelete: 'cascade' }),
    referralId: uuid('referral_id')
      .notNull()
      .references(() => affiliateReferrals.id, { onDelete: 'cascade' }),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    isFirstOrder: boolean('is_first_order').notNull(),
    /** The order amount the rate applied to, the rate used (x 100), and the result, in cents. */
    baseAmountCents: integer('base_amount_cents').notNull(),
    rateHundredths: integer('rate_hundredths').notNull(),
    amountCents: integer('amount_cents').notNull(),
    status: text('status').$type<AffiliateCommissionStatus>().notNull().default('earned'),
    payoutId: uuid('payout_id').references(() => affiliatePayouts.id, { onDelete: 'set null' }),
    earnedAt: timestamptz('earned_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('affiliate_commissions_order_id_key').on(t.orderId),
    index('affiliate_commissions_clinic_id_affiliate_id_earned_at_idx').on(t.clinicId, t.affiliateId, t.earnedAt),
    index('affiliate_commissions_payout_id_idx').on(t.payoutId),
    check('affiliate_commissions_status_check', sql`${t.status} in ('earned', 'included', 'excluded', 'paid')`),
    check('affiliate_commissions_amount_check', sql`${t.amountCents} >= 0 and ${t.baseAmountCents} >= 0`),
  ],
);

export const TAX_DOCUMENT_STATUSES = ['pending', 'verified', 'rejected'] as const;
export type TaxDocumentStatus = (typeof TAX_DOCUMENT_STATUSES)[number];

export const affiliateTaxDocuments = pgTable(
  'affiliate_tax_documents',
  {
    id: id(),
    clinicId: clinicId(),
    affiliateId: uuid('affiliate_id')
      .notNull()
      .references(() => affiliates.id, { onDelete: 'cascade' }),
    /** w9, w8ben, ... */
    documentType: text('document_type').notNull(),
    taxYear: integer('tax_year').notNull(),
    status: text('status').$type<TaxDocumentStatus>().notNull().default('pending'),
    /** Last four digits of the TIN only; the document itself stays with the affiliate's upload. */
    tinLastFour: text('tin_last_four'),
    submittedAt: timestamptz('submitted_at').notNull().defaultNow(),
    reviewedAt: timestamptz('reviewed_at'),
    rejectionReason: text('rejection_reason'),
    createdAt: createdAt(),
  },
  (t) => [
    index('affiliate_tax_documents_clinic_id_submitted_at_idx').on(t.clinicId, t.submittedAt, t.id),
    check('affiliate_tax_documents_status_check', sql`${t.status} in ('pending', 'verified', 'rejected')`),
  ],
);

/** Higher rates for affiliates with at least minActiveReferrals active referrals. */
export const affiliateTiers = pgTable(
  'affiliate_tiers',
  {
    id: id(),
    clinicId: clinicId(),
    minActiveReferrals: integer('min_active_referrals').notNull(),
    percentageHundredths: integer('percentage_hundredths').notNull(),
    label: text('label').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('affiliate_tiers_clinic_id_min_active_referrals_key').on(t.clinicId, t.minActiveReferrals),
    check(
      'affiliate_tiers_values_check',
      sql`${t.minActiveReferrals} >= 0 and ${t.percentageHundredths} >= 0 and ${t.percentageHundredths} <= 10000`,
    ),
  ],
);
