// The affiliates of the program: list and update (overrides, payout details).
import { z } from '@hono/zod-openapi';
import { AFFILIATE_STATUSES } from '../../../../../drizzle/schema';
import { atLeastOneField } from '../../../../platform/values/fields';
import { pathId } from '../../../../platform/values/ids';
import { safeString, text } from '../../../../platform/values/strings';
import { rate } from '../schemas';

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
    // Named: inline, generators would call it AffiliateTier, the name of the tier resource's own schema.
    tier: z
      .object({ id: z.string().uuid(), label: z.string(), percentage: z.number() })
      .openapi('AffiliateReachedTier')
      .nullable()
      .openapi({ description: 'The best tier reached by activeReferralCount; null when none.' }),
    earnedTotal: z.number().openapi({ description: 'US dollars: all commissions not excluded.' }),
    unpaidTotal: z.number().openapi({ description: 'US dollars: commissions earned or in a payout not yet paid.' }),
    paidTotal: z.number().openapi({ description: 'US dollars: commissions of paid payouts.' }),
    createdAt: z.string().datetime(),
  })
  .openapi('Affiliate');
export type AffiliateData = z.infer<typeof affiliate>;
