// The program's referral tiers (the tier itself is part of the program configuration: ../schemas).
import { z } from '@hono/zod-openapi';
import { pathId } from '../../../../platform/values/ids';
import { safeString } from '../../../../platform/values/strings';
import { MAX_AFFILIATE_COUNT, percentage } from '../schemas';

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
