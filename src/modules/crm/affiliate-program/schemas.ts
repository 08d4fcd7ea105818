import { z } from '@hono/zod-openapi';
import { AFFILIATE_COMMISSION_MODES, AFFILIATE_PAYOUT_FREQUENCIES, PROGRAM_STATES } from '../../../../drizzle/schema';
import { atLeastOneField } from '../../../platform/values/fields';
import { amount, MAX_AMOUNT } from '../../../platform/values/money';

const hasAtMostTwoDecimals = (value: number) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;

/** A rate as sent: percent (0-100, checked against the mode by the service) or US dollars in flat mode. */
export const rate = (description: string) =>
  z
    .number()
    .finite()
    .min(0)
    .max(MAX_AMOUNT)
    .refine(hasAtMostTwoDecimals, { message: 'must have at most two decimals' })
    .openapi({ description, example: 10 });

export const percentage = (description: string) =>
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

/** The affiliate a payout or a tax document belongs to. */
export const affiliateRef = z.object({ id: z.string().uuid(), firstName: z.string(), lastName: z.string(), email: z.string() });
