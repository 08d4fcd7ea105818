// Plan changes (docs/billing.md): POST /billing/preview-upgrade, POST /billing/change, and POST
// /billing/cancel, the change to no plan. The processor is called first, inside the transaction.
import { and, eq, inArray, ne } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { clinics, type Entitlement, plans, platformSubscriptions } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Database, Queryable } from '../../../platform/db/client';
import { forClinic } from '../../../platform/db/scoped';
import { describeError, logLine } from '../../../platform/log';
import type { SubscriptionState } from '../../../platform/providers/billing';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { ApiError, conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { centsToAmount } from '../../../platform/values/money';
import { prorate } from './proration';
import type { ProrationPreviewView } from './schemas';
import { type PlanRow, type SubscriptionRow, toPlanRef, toSubscription } from './views';

const currentPlanAlias = alias(plans, 'current_plan');

/** The billing processor that holds a record (development ids sub_dev_ never reach Stripe; docs/billing.md). */
const processorOf = (ctx: HandlerContext, processorRecordId: string | null) => ctx.billing({ recordId: processorRecordId });

interface ChangeContext {
  newPlan: PlanRow;
  subscription: SubscriptionRow;
  currentPlan: PlanRow;
}

/**
 * The checks shared by preview and change, in this order: unknown or malformed plan 404; invite-only
 * plan 400 PLAN_INVITE_ONLY; no current subscription 404; the same plan 400 ALREADY_ON_PLAN; a
 * subscription that is expired, flagged needsSync or whose period is over 409 SUBSCRIPTION_SYNC_REQUIRED.
 */
function checkChange(
  newPlan: PlanRow | null | undefined,
  subscription: SubscriptionRow | null | undefined,
  currentPlan: PlanRow | null | undefined,
  now: Date,
): ChangeContext {
  if (!newPlan) throw notFound('Plan');
  if (newPlan.isInviteOnly) throw new ApiError(400, 'PLAN_INVITE_ONLY', ERROR_MESSAGES.PLAN_INVITE_ONLY.change(newPlan.code));
  if (!subscription || !currentPlan) throw notFound('Subscription');
  if (subscription.planId === newPlan.id)
    throw new ApiError(400, 'ALREADY_ON_PLAN', `The subscription is already on the plan ${newPlan.code}`);
  if (subscription.status === 'expired' || subscription.needsSync || subscription.currentPeriodEnd.getTime() <= now.getTime()) {
    throw conflict('SUBSCRIPTION_SYNC_REQUIRED', ERROR_MESSAGES.SUBSCRIPTION_SYNC_REQUIRED.outOfDate);
  }
  return { newPlan, subscription, currentPlan };
}

function previewOf({ newPlan, subscription, currentPlan }: ChangeContext, now: Date): ProrationPreviewView {
  const at = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const p = prorate({
    periodStart: subscription.currentPeriodStart,
    periodEnd: subscription.currentPeriodEnd,
    at,
    currentPriceCents: currentPlan.monthlyPriceCents,
    newPriceCents: newPlan.monthlyPriceCents,
  });
  const before = new Set<Entitlement>(currentPlan.entitlements);
  const after = new Set<Entitlement>(newPlan.entitlements);
  return {
    subscriptionId: subscription.id,
    currentPlan: toPlanRef(currentPlan),
    newPlan: toPlanRef(newPlan),
    direction:
      newPlan.monthlyPriceCents > currentPlan.monthlyPriceCents
        ? 'upgrade'
        : newPlan.monthlyPriceCents < currentPlan.monthlyPriceCents
          ? 'downgrade'
          : 'same_price',
    prorationDate: at.toISOString(),
    currentPeriodStart: subscription.currentPeriodStart.toISOString(),
    currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
    periodSeconds: p.periodSeconds,
    remainingSeconds: p.remainingSeconds,
    unusedTimeCredit: centsToAmount(p.unusedTimeCreditCents),
    unusedTimeCreditCents: p.unusedTimeCreditCents,
    remainingTimeCharge: centsToAmount(p.remainingTimeChargeCents),
    remainingTimeChargeCents: p.remainingTimeChargeCents,
    amountDue: centsToAmount(p.amountDueCents),
    amountDueCents: p.amountDueCents,
    creditToBalance: centsToAmount(p.creditToBalanceCents),
    creditToBalanceCents: p.creditToBalanceCents,
    nextPeriodAmount: centsToAmount(newPlan.monthlyPriceCents),
    nextPeriodAmountCents: newPlan.monthlyPriceCents,
    entitlementsGained: [...after].filter((e) => !before.has(e)),
    entitlementsLost: [...before].filter((e) => !after.has(e)),
  };
}

/** POST /billing/preview-upgrade: one query (the new plan, the current subscription and its plan); writes nothing. */
export async function previewPlanChange(ctx: HandlerContext, newPlanId: string): Promise<ProrationPreviewView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(newPlanId)) throw notFound('Plan');
  const [row] = await db
    .select({ newPlan: plans, subscription: platformSubscriptions, currentPlan: currentPlanAlias })
    .from(plans)
    .leftJoin(platformSubscriptions, and(eq(platformSubscriptions.clinicId, clinicId), ne(platformSubscriptions.status, 'cancelled')))
    .leftJoin(currentPlanAlias, eq(currentPlanAlias.id, platformSubscriptions.planId))
    .where(eq(plans.id, newPlanId))
    .limit(1);
  return previewOf(checkChange(row?.newPlan, row?.subscription, row?.currentPlan, now), now);
}

/** The clinic's current subscription, locked until the transaction ends. */
async function lockCurrentSubscription(tx: Queryable, clinicId: string): Promise<SubscriptionRow | undefined> {
  const [row] = await tx
    .select()
    .from(platformSubscriptions)
    .where(forClinic(tx, clinicId).where(platformSubscriptions, ne(platformSubscriptions.status, 'cancelled')))
    .limit(1)
    .for('update');
  return row;
}

/**
 * Runs `work` in a transaction whose processor call comes first; if the processor applied the change
 * but the database then failed, the subscription is flagged needsSync (best effort, outside the failed
 * transaction) so the mismatch is visible and no further change is made on a wrong copy.
 */
async function withProcessorFirst<T>(
  db: Database,
  clinicId: string,
  what: string,
  work: (tx: Queryable, applied: (subscriptionId: string) => void) => Promise<T>,
): Promise<T> {
  let appliedTo: string | null = null;
  try {
    return await db.transaction((tx) => work(tx, (id) => (appliedTo = id)));
  } catch (error) {
    if (appliedTo) {
      logLine('error', `${what} applied at the payment processor but not recorded; subscription flagged needsSync`, {
        clinicId,
        subscriptionId: appliedTo,
        error: describeError(error),
      });
      await db
        .update(platformSubscriptions)
        .set({ needsSync: true })
        .where(and(eq(platformSubscriptions.id, appliedTo), eq(platformSubscriptions.clinicId, clinicId)))
        .catch((flagError: unknown) =>
          logLine('error', 'could not flag the subscription needsSync', {
            clinicId,
            subscriptionId: appliedTo,
            error: describeError(flagError),
          }),
        );
    }
    throw error;
  }
}

const subscriptionUpdate = (state: SubscriptionState, now: Date) => ({
  status: state.status,
  currentPeriodStart: state.currentPeriodStart,
  currentPeriodEnd: state.currentPeriodEnd,
  updatedAt: now,
});

/**
 * POST /billing/change: in one transaction, the subscription is locked, checked as for the preview,
 * changed at the processor (first), then its plan, status and period and the clinic's plan (which the
 * key lookup reads the entitlements from) are written. A processor failure writes nothing.
 */
export async function changePlan(ctx: HandlerContext, newPlanId: string) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(newPlanId)) throw notFound('Plan');
  return withProcessorFirst(db, clinicId, 'plan change', async (tx, applied) => {
    const locked = await lockCurrentSubscription(tx, clinicId);
    const ids = locked ? [newPlanId, locked.planId] : [newPlanId];
    const found = await tx.select().from(plans).where(inArray(plans.id, ids));
    const context = checkChange(
      found.find((p) => p.id === newPlanId),
      locked,
      found.find((p) => p.id === locked?.planId),
      now,
    );
    const { subscription, newPlan, currentPlan } = context;
    const proration = previewOf(context, now);
    if (!subscription.processorSubscriptionId)
      throw conflict('SUBSCRIPTION_SYNC_REQUIRED', ERROR_MESSAGES.SUBSCRIPTION_SYNC_REQUIRED.noProcessorRecord);
    const state = await processorOf(ctx, subscription.processorSubscriptionId).changePlan(
      {
        clinicId,
        processorSubscriptionId: subscription.processorSubscriptionId,
        plan: { id: newPlan.id, code: newPlan.code, name: newPlan.name, monthlyPriceCents: newPlan.monthlyPriceCents },
        prorationDate: new Date(proration.prorationDate),
        idempotencyKey: `plan-change:${subscription.id}:${newPlan.id}:${subscription.updatedAt.getTime()}`,
      },
      { db: tx },
    );
    applied(subscription.id);
    const [updated] = await tx
      .update(platformSubscriptions)
      .set({ planId: newPlan.id, ...subscriptionUpdate(state, now) })
      .where(and(eq(platformSubscriptions.id, subscription.id), eq(platformSubscriptions.clinicId, clinicId)))
      .returning();
    await tx.update(clinics).set({ planId: newPlan.id, updatedAt: now }).where(eq(clinics.id, clinicId));
    return {
      previousPlan: toPlanRef(currentPlan),
      plan: toPlanRef(newPlan),
      entitlements: [...newPlan.entitlements],
      subscription: toSubscription(updated!),
      proration,
    };
  });
}

/**
 * POST /billing/cancel: in one transaction, the current subscription is locked, cancelled at the
 * processor (first), marked cancelled, and the clinic deactivated (isActive false, deactivatedReason
 * cancelled): from the next request on, every key of the clinic answers 401.
 */
export async function cancelSubscription(ctx: HandlerContext) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return withProcessorFirst(db, clinicId, 'cancellation', async (tx, applied) => {
    const subscription = await lockCurrentSubscription(tx, clinicId);
    if (!subscription) throw notFound('Subscription');
    if (subscription.processorSubscriptionId) {
      await processorOf(ctx, subscription.processorSubscriptionId).cancelSubscription(
        { clinicId, processorSubscriptionId: subscription.processorSubscriptionId, idempotencyKey: `cancel:${subscription.id}` },
        { db: tx },
      );
      applied(subscription.id);
    }
    const [updated] = await tx
      .update(platformSubscriptions)
      .set({ status: 'cancelled', cancelledAt: now, needsSync: false, updatedAt: now })
      .where(and(eq(platformSubscriptions.id, subscription.id), eq(platformSubscriptions.clinicId, clinicId)))
      .returning();
    await tx
      .update(clinics)
      .set({ isActive: false, deactivatedReason: 'cancelled', deactivatedAt: now, updatedAt: now })
      .where(eq(clinics.id, clinicId));
    return {
      subscription: toSubscription(updated!),
      clinic: { id: clinicId, isActive: false as const, deactivatedReason: 'cancelled' as const, deactivatedAt: now.toISOString() },
    };
  });
}
