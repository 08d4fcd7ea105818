// The program's referral tiers: add and delete (they are listed with the program configuration).
import { and, eq } from 'drizzle-orm';
import { affiliateTiers } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import { isUniqueViolation } from '../../../../platform/db/errors';
import { conflict, notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { toHundredths } from '../rules';
import { MAX_TIERS, type TierData } from '../schemas';
import { toTier } from '../service';

const UNIQUE_MIN_INDEX = 'affiliate_tiers_clinic_id_min_active_referrals_key';

/**
 * A tier (201). Another tier of the clinic with the same minActiveReferrals: 409 CONFLICT (the unique
 * index decides, so concurrent creations cannot both win). At most MAX_TIERS per clinic (409 CONFLICT).
 */
export async function createTier(
  ctx: HandlerContext,
  body: { minActiveReferrals: number; percentage: number; label: string },
): Promise<TierData> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  try {
    return await db.transaction(async (tx) => {
      const count = await tx.$count(affiliateTiers, eq(affiliateTiers.clinicId, clinicId));
      if (count >= MAX_TIERS) throw conflict('CONFLICT', `A program has at most ${MAX_TIERS} tiers`);
      const [row] = await tx
        .insert(affiliateTiers)
        .values({
          clinicId,
          minActiveReferrals: body.minActiveReferrals,
          percentageHundredths: toHundredths(body.percentage),
          label: body.label,
          createdAt: now,
        })
        .returning();
      return toTier({ ...row!, createdAt: row!.createdAt.toISOString() });
    });
  } catch (error) {
    if (isUniqueViolation(error, UNIQUE_MIN_INDEX)) {
      throw conflict('CONFLICT', `A tier for ${body.minActiveReferrals} active referrals already exists`);
    }
    throw error;
  }
}

/** Deletes a tier; affiliates on it fall back to a lower tier or the program's rates from the next generate. */
export async function deleteTier({ db, clinicId }: HandlerContext, id: string) {
  if (!isUuid(id)) throw notFound('Affiliate tier');
  const [deleted] = await db
    .delete(affiliateTiers)
    .where(and(eq(affiliateTiers.clinicId, clinicId), eq(affiliateTiers.id, id)))
    .returning({ id: affiliateTiers.id });
  if (!deleted) throw notFound('Affiliate tier');
  return { id: deleted.id, deleted: true as const };
}
