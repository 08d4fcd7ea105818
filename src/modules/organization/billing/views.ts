// How a plan and a subscription are answered (the plans list, basic info, plan changes).
import type { plans, platformSubscriptions } from '../../../../drizzle/schema';
import { isoOrNull } from '../../../platform/values/dates';
import { centsToAmount } from '../../../platform/values/money';
import type { PlanRefView, SubscriptionView } from './schemas';

export type PlanRow = typeof plans.$inferSelect;
export type SubscriptionRow = typeof platformSubscriptions.$inferSelect;

export function toPlanRef(row: Pick<PlanRow, 'id' | 'code' | 'name' | 'monthlyPriceCents' | 'entitlements'>): PlanRefView {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    monthlyPrice: centsToAmount(row.monthlyPriceCents),
    monthlyPriceCents: row.monthlyPriceCents,
    entitlements: [...row.entitlements],
  };
}

export function toSubscription(row: SubscriptionRow): SubscriptionView {
  return {
    id: row.id,
    planId: row.planId,
    status: row.status,
    currentPeriodStart: row.currentPeriodStart.toISOString(),
    currentPeriodEnd: row.currentPeriodEnd.toISOString(),
    needsSync: row.needsSync,
    cancelledAt: isoOrNull(row.cancelledAt),
  };
}
