// Affiliate payouts and their commissions.
import { z } from '@hono/zod-openapi';
import { AFFILIATE_COMMISSION_STATUSES, AFFILIATE_PAYOUT_FREQUENCIES, AFFILIATE_PAYOUT_STATUSES } from '../../../../../drizzle/schema';
import { pageQuery } from '../../../../platform/http/pagination';
import { pathId } from '../../../../platform/values/ids';
import { text } from '../../../../platform/values/strings';
import { affiliateRef } from '../schemas';

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
