import { z } from '@hono/zod-openapi';
import {
  AFFILIATE_COMMISSION_MODES,
  AFFILIATE_COMMISSION_STATUSES,
  AFFILIATE_PAYOUT_FREQUENCIES,
  AFFILIATE_PAYOUT_STATUSES,
  AFFILIATE_STATUSES,
  PROGRAM_STATES,
  TAX_DOCUMENT_STATUSES,
} from '../../../../drizzle/schema';
import { atLeastOneField } from '../../../platform/http/fields';
import { pathId } from '../../../platform/http/ids';
import { amount, MAX_AMOUNT } from '../../../platform/http/money';
import { pageQuery } from '../../../platform/http/pagination';
import { safeString, text } from '../../../platform/http/strings';

const hasAtMostTwoDecimals = (value: number) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;

/** A rate as sent: percent (0-100, checked against the mode by the service) or US dollars in flat mode. */
const rate = (description: string) =>
  z
    .number()
    .finite()
    .min(0)
    .max(MAX_AMOUNT)
    .refine(hasAtMostTwoDecimals, { message: 'must have at most two decimals' })
    .openapi({ description, example: 10 });

const percentage = (description: string) =>
  z
    .number()
    .finite()
    .min(0)
    .max(100)
    .refine(hasAtMostTwoDecimals, { message: 'must have at most two decimals' })
    .openapi({ description, example: 15 });

// ---------- program config ----------

export const MAX_DURATION_MONTHS = 120;
export const MAX_COOKIE_WINDOW_DAYS = 365;
export const MAX_AFFILIATE_COUNT = 1_000_000;
export const MAX_TIERS = 50;

export const programConfigBody = z
  .object({
    affiliateProgramEnabled: z.boolean().openapi({ description: 'Whether the program runs (generate answers 409 while it does not).' }),
    affiliateCommissionMode: z.enum(AFFILIATE_COMMISSION_MODES).openapi({
      description: 'percentage: rates are percents of the order amount; flat: rates are US dollars per order.',
    }),
    affiliateFirstOrderRate: rate(
      "Rate of a referred patient's first paid order: percent (0-100) in percentage mode, US dollars in flat mode.",
    ),
    affiliateDefaultRate: rate('Rate of every later paid order: percent (0-100) in percentage mode, US dollars in flat mode.'),
    affiliateCommissionDurationMonths: z
      .number()
      .int()
      .min(1)
      .max(MAX_DURATION_MONTHS)
      .nullable()
      .openapi({
        description: `Orders paid within this many months of the referral earn commissions (1-${MAX_DURATION_MONTHS}); null: for as long as the patient buys.`,
        example: 12,
      }),
    affiliateCookieWindowDays: z
      .number()
      .int()
      .min(1)
      .max(MAX_COOKIE_WINDOW_DAYS)
      .openapi({
        description: `Days a referral link is remembered before sign-up (1-${MAX_COOKIE_WINDOW_DAYS}).`,
        example: 30,
      }),
    affiliateMinimumPayoutThreshold: amount().openapi({
      description: 'US dollars: an affiliate whose unpaid commissions of a period add up to less gets no payout; they carry over.',
      example: 50,
    }),
    affiliatePayoutFrequency: z
      .enum(AFFILIATE_PAYOUT_FREQUENCIES)
      .openapi({ description: 'Length of a payout period (UTC): weekly (Monday to Monday), biweekly, monthly (calendar month).' }),
    affiliateMaxCount: z.number().int().min(1).max(MAX_AFFILIATE_COUNT).nullable().openapi({
      description: 'Most affiliates the program accepts; null: no limit.',
      example: 100,
    }),
  })
  .partial()
  .strict()
  .refine(atLeastOneField, { message: 'must contain at least one field' })
  .openapi('AffiliateProgramConfigRequest', {
    description: 'A partial update: the fields sent change, the merged configuration is validated as a whole.',
  });
export type ProgramConfigBody = z.infer<typeof programConfigBody>;

export const tier = z
  .object({
    id: z.string().uuid(),
    minActiveReferrals: z.number().int(),
    percentage: z
      .number()
      .openapi({ description: 'Percent (0-100) earned by affiliates with at least minActiveReferrals active referrals.' }),
    label: z.string(),
    createdAt: z.string().datetime(),
  })
  .openapi('AffiliateTier');
export type TierData = z.infer<typeof tier>;

export const programConfig = z
  .object({
    affiliateProgramEnabled: z.boolean(),
    affiliateCommissionMode: z.enum(AFFILIATE_COMMISSION_MODES),
    affiliateFirstOrderRate: z.number().openapi({ description: 'Percent, or US dollars in flat mode.' }),
    affiliateDefaultRate: z.number().openapi({ description: 'Percent, or US dollars in flat mode.' }),
    affiliateCommissionDurationMonths: z.number().int().nullable(),
    affiliateCookieWindowDays: z.number().int(),
    affiliateMinimumPayoutThreshold: z.number().openapi({ description: 'US dollars.' }),
    affiliatePayoutFrequency: z.enum(AFFILIATE_PAYOUT_FREQUENCIES),
    affiliateMaxCount: z.number().int().nullable(),
    isConfigured: z.boolean().openapi({ description: 'false: the clinic never saved a configuration and these are the defaults.' }),
    affiliateCount: z.number().int().openapi({ description: 'Affiliates not removed (active and paused).' }),
    tiers: z.array(tier).openapi({ description: 'The referral tiers, by minActiveReferrals ascending.' }),
    updatedAt: z.string().datetime().nullable(),
  })
  .openapi('AffiliateProgramConfig');
export type ProgramConfig = z.infer<typeof programConfig>;

// ---------- margin estimate ----------

export const marginEstimate = z
  .object({
    affiliateCommissionMode: z.enum(AFFILIATE_COMMISSION_MODES),
    affiliateFirstOrderRate: z.number(),
    affiliateDefaultRate: z.number(),
    products: z
      .array(
        z.object({
          programId: z.string().uuid(),
          programName: z.string(),
          programState: z.enum(PROGRAM_STATES),
          globalProductId: z.string().uuid(),
          productName: z.string(),
          isSellable: z.boolean(),
          displayPrice: z.number().openapi({ description: 'US dollars: one pack, from the pricing rules (GET /programs/{id}/products).' }),
          clinicMargin: z.number().openapi({
            description: "US dollars: the clinic's share (brandAmount) of a one-pack order at displayPrice, from the order fee waterfall.",
          }),
          commissionFirstOrder: z
            .number()
            .openapi({ description: 'US dollars: commission on that order as a first order, at the program rate.' }),
          commissionDefault: z
            .number()
            .openapi({ description: 'US dollars: commission on that order as a later order, at the program rate.' }),
          marginAfterFirstOrderCommission: z
            .number()
            .openapi({ description: 'US dollars: clinicMargin - commissionFirstOrder (may be negative).' }),
          marginAfterDefaultCommission: z
            .number()
            .openapi({ description: 'US dollars: clinicMargin - commissionDefault (may be negative).' }),
        }),
      )
      .openapi({ description: 'Priced products of programs not retired, by program (oldest first) and display order.' }),
  })
  .openapi('AffiliateMarginEstimate');
export type MarginEstimate = z.infer<typeof marginEstimate>;

// ---------- affiliates ----------

export const membershipIdParam = z.object({ membershipId: pathId('membershipId') });

export const updateAffiliateBody = z
  .object({
    firstOrderRate: rate('Override of the first-order rate (percent 0-100, or US dollars in flat mode); null clears it.').nullable(),
    commissionRate: rate('Override of the rate of later orders (percent 0-100, or US dollars in flat mode); null clears it.').nullable(),
    payoutContactMethod: safeString()
      .trim()
      .min(1)
      .max(200)
      .nullable()
      .openapi({ description: 'How the affiliate is paid (free text); null clears it.', example: 'PayPal' }),
    payoutNotes: text()
      .trim()
      .max(2000)
      .nullable()
      .openapi({ description: 'Notes for paying the affiliate; null clears them.', example: 'Pays on the 5th' }),
  })
  .partial()
  .strict()
  .refine(atLeastOneField, { message: 'must contain at least one field' })
  .openapi('UpdateAffiliateRequest');
export type UpdateAffiliateBody = z.infer<typeof updateAffiliateBody>;

export const affiliate = z
  .object({
    id: z.string().uuid().openapi({ description: 'The membership id (membershipId in paths).' }),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string().openapi({ description: "The affiliate's own email (a partner of the clinic, not a patient)." }),
    referralCode: z.string(),
    status: z.enum(AFFILIATE_STATUSES),
    firstOrderRate: z
      .number()
      .nullable()
      .openapi({ description: 'Override (percent, or US dollars in flat mode); null: the tier or program rate applies.' }),
    commissionRate: z
      .number()
      .nullable()
      .openapi({ description: 'Override (percent, or US dollars in flat mode); null: the tier or program rate applies.' }),
    payoutContactMethod: z.string().nullable(),
    payoutNotes: z.string().nullable(),
    joinedAt: z.string().datetime(),
    referralCount: z.number().int().openapi({ description: 'Patients referred.' }),
    activeReferralCount: z.number().int().openapi({ description: 'Referred patients with an active enrollment (what tiers count).' }),
    tier: z
      .object({ id: z.string().uuid(), label: z.string(), percentage: z.number() })
      .nullable()
      .openapi({ description: 'The best tier reached by activeReferralCount; null when none.' }),
    earnedTotal: z.number().openapi({ description: 'US dollars: all commissions not excluded.' }),
    unpaidTotal: z.number().openapi({ description: 'US dollars: commissions earned or in a payout not yet paid.' }),
    paidTotal: z.number().openapi({ description: 'US dollars: commissions of paid payouts.' }),
    createdAt: z.string().datetime(),
  })
  .openapi('Affiliate');
export type AffiliateData = z.infer<typeof affiliate>;

// ---------- payouts and commissions ----------

export const payoutIdParam = z.object({ id: pathId('id') });
export const excludePayoutIdParam = z.object({ payoutId: pathId('payoutId') });

export const listPayoutsQuery = pageQuery.extend({
  status: z.enum(AFFILIATE_PAYOUT_STATUSES).optional().openapi({ description: 'Only payouts in this status.' }),
});

export const markPaidBody = z
  .object({
    notes: text()
      .trim()
      .max(2000)
      .optional()
      .openapi({ description: 'How and when it was paid (kept on the payout).', example: 'PayPal transfer 4F2K' }),
  })
  .strict()
  .openapi('MarkAffiliatePayoutPaidRequest');

export const MAX_EXCLUDED_IDS = 500;
export const excludeCommissionsBody = z
  .object({
    commissionIds: z
      .array(z.string().uuid())
      .min(1)
      .max(MAX_EXCLUDED_IDS)
      .openapi({ description: `1-${MAX_EXCLUDED_IDS} ids of commissions of this payout.` }),
  })
  .strict()
  .openapi('ExcludeAffiliateCommissionsRequest');

const affiliateRef = z.object({ id: z.string().uuid(), firstName: z.string(), lastName: z.string(), email: z.string() });

export const payout = z
  .object({
    id: z.string().uuid(),
    affiliate: affiliateRef,
    periodStart: z.string().datetime(),
    periodEnd: z.string().datetime().openapi({ description: 'Exclusive.' }),
    amount: z.number().openapi({ description: 'US dollars: the sum of the included commissions.' }),
    status: z.enum(AFFILIATE_PAYOUT_STATUSES),
    commissionCount: z.number().int().openapi({ description: 'Commissions included (or paid).' }),
    excludedCommissionCount: z.number().int(),
    approvedAt: z.string().datetime().nullable(),
    paidAt: z.string().datetime().nullable(),
    notes: z.string().nullable(),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('AffiliatePayout');
export type PayoutData = z.infer<typeof payout>;

export const commission = z
  .object({
    id: z.string().uuid(),
    affiliateId: z.string().uuid(),
    payoutId: z.string().uuid().nullable(),
    referralId: z.string().uuid(),
    orderId: z.string().uuid(),
    orderNumber: z.string(),
    patient: z
      .object({ id: z.string().uuid(), firstName: z.string(), lastName: z.string() })
      .openapi({ description: 'The referred patient (never their email or contact details).' }),
    isFirstOrder: z.boolean(),
    baseAmount: z.number().openapi({ description: 'US dollars: the order amount the rate applied to (subtotal - discount).' }),
    rate: z
      .number()
      .openapi({ description: 'The rate used: percent in percentage mode, US dollars in flat mode (as configured when computed).' }),
    amount: z.number().openapi({ description: 'US dollars.' }),
    status: z.enum(AFFILIATE_COMMISSION_STATUSES),
    earnedAt: z.string().datetime().openapi({ description: 'When the order was paid.' }),
    createdAt: z.string().datetime(),
  })
  .openapi('AffiliateCommission');
export type CommissionData = z.infer<typeof commission>;

export const generateResult = z
  .object({
    payoutFrequency: z.enum(AFFILIATE_PAYOUT_FREQUENCIES),
    periodStart: z.string().datetime(),
    periodEnd: z.string().datetime().openapi({ description: 'Exclusive: the last complete period before now.' }),
    commissionsCreated: z.number().int().openapi({ description: 'New commissions computed from referred orders by this call.' }),
    commissionsAmount: z.number().openapi({ description: 'US dollars: their sum.' }),
    payoutsCreated: z.number().int(),
    payouts: z.array(payout).openapi({ description: 'The payouts this call created (empty when the period was already generated).' }),
    carriedOver: z
      .array(z.object({ affiliate: affiliateRef, amount: z.number(), commissionCount: z.number().int() }))
      .openapi({ description: 'Affiliates below the minimum payout threshold: their commissions wait for a later period.' }),
  })
  .openapi('AffiliatePayoutGeneration');
export type GenerateResult = z.infer<typeof generateResult>;

// ---------- tax documents ----------

export const docIdParam = z.object({ docId: pathId('docId') });
export const listTaxDocumentsQuery = pageQuery.extend({
  status: z.enum(TAX_DOCUMENT_STATUSES).optional().openapi({ description: 'Only documents in this status.' }),
});

export const rejectTaxDocumentBody = z
  .object({
    reason: text()
      .trim()
      .min(1)
      .max(1000)
      .openapi({ description: 'Why the document was rejected (required).', example: 'The TIN does not match the name.' }),
  })
  .strict()
  .openapi('RejectAffiliateTaxDocumentRequest');

export const taxDocument = z
  .object({
    id: z.string().uuid(),
    affiliate: affiliateRef,
    documentType: z.string().openapi({ example: 'w9' }),
    taxYear: z.number().int(),
    status: z.enum(TAX_DOCUMENT_STATUSES),
    tinLastFour: z.string().nullable().openapi({ description: 'Last four digits of the TIN only.' }),
    submittedAt: z.string().datetime(),
    reviewedAt: z.string().datetime().nullable(),
    rejectionReason: z.string().nullable(),
  })
  .openapi('AffiliateTaxDocument');
export type TaxDocumentData = z.infer<typeof taxDocument>;

// ---------- tiers ----------

export const tierIdParam = z.object({ tierId: pathId('tierId') });

export const createTierBody = z
  .object({
    minActiveReferrals: z
      .number()
      .int()
      .min(1)
      .max(MAX_AFFILIATE_COUNT)
      .openapi({ description: 'Active referrals needed; unique per clinic.', example: 10 }),
    percentage: percentage('Percent (0-100) the tier earns on every referred order.'),
    label: safeString().trim().min(1).max(100).openapi({ example: 'Gold' }),
  })
  .strict()
  .openapi('CreateAffiliateTierRequest');

export const deletedTier = z.object({ id: z.string().uuid(), deleted: z.literal(true) }).openapi('DeletedAffiliateTier');
