// GET /billing/plans: the platform plans a clinic may choose.
import { asc, eq, sql } from 'drizzle-orm';
import { plans } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { centsToAmountOrNull } from '../../../platform/values/money';
import { ENTITLEMENT_FEATURES, type PlanView } from './schemas';
import { toPlanRef } from './views';

/** Every plan a clinic may choose (invite-only ones hidden), cheapest first, with the clinic's marked. */
export async function listPlans(ctx: HandlerContext): Promise<PlanView[]> {
  const { db, clinicId } = ctx;
  const rows = await db
    .select({
      plan: plans,
      isCurrent: sql<boolean>`coalesce(${plans.id} = (select c."plan_id" from "clinics" c where c."id" = ${clinicId}), false)`,
    })
    .from(plans)
    .where(eq(plans.isInviteOnly, false))
    .orderBy(asc(plans.monthlyPriceCents), asc(plans.code));
  return rows.map(({ plan, isCurrent }) => ({
    ...toPlanRef(plan),
    features: plan.entitlements.map((e) => ENTITLEMENT_FEATURES[e]),
    limits: {
      maxSelectedProducts: plan.maxSelectedProducts,
      maxProductPrice: centsToAmountOrNull(plan.maxProductPriceCents),
      maxProductPriceCents: plan.maxProductPriceCents,
    },
    isCurrent: Boolean(isCurrent),
  }));
}
