import { and, asc, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import {
  clinics,
  type Entitlement,
  onboarding,
  organizations,
  payoutAccounts,
  plans,
  platformSubscriptions,
} from '../../../../drizzle/schema';
import type { Database, Queryable } from '../../../platform/db/client';
import { forClinic } from '../../../platform/db/scoped';
import { isoOrNull } from '../../../platform/http/dates';
import { ERROR_MESSAGES } from '../../../platform/http/error-messages';
import { ApiError, conflict, notFound } from '../../../platform/http/errors';
import { isUuid } from '../../../platform/http/ids';
import { centsToAmount, centsToAmountOrNull } from '../../../platform/http/money';
import { describeError, logLine } from '../../../platform/log';
import { type BillingProcessor, isDevelopmentBillingId, type SubscriptionState } from '../../../platform/providers/billing';
import { ProviderError } from '../../../platform/providers/errors';
import { prorate } from './proration';
import {
  type BasicInfoView,
  ENTITLEMENT_FEATURES,
  type PayoutAccountStatusView,
  type PlanRefView,
  type PlanView,
  type ProrationPreviewView,
  type SubscriptionView,
  TUTORIAL_STEPS,
} from './schemas';

/** Payout-account values are reused this long before the processor is asked again. */
export const PAYOUT_STATUS_TTL_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

/** The billing processor that holds a record (development ids acct_dev_/sub_dev_ never reach Stripe). */
export type ProcessorFor = (processorRecordId: string | null) => BillingProcessor;

type PlanRow = typeof plans.$inferSelect;
type SubscriptionRow = typeof platformSubscriptions.$inferSelect;
type PayoutAccountRow = typeof payoutAccounts.$inferSelect;

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

// --- payout account -------------------------------------------------------------------------------

function toPayoutStatus(
  row: Pick<PayoutAccountRow, 'status' | 'chargesEnabled' | 'payoutsEnabled' | 'detailsSubmitted' | 'requirementsDue' | 'statusCheckedAt'>,
): PayoutAccountStatusView {
  return {
    status: row.status,
    chargesEnabled: row.chargesEnabled,
    payoutsEnabled: row.payoutsEnabled,
    detailsSubmitted: row.detailsSubmitted,
    requirementsDue: [...row.requirementsDue],
    isConnected: row.status !== 'not_connected',
    checkedAt: isoOrNull(row.statusCheckedAt),
  };
}

const NO_ACCOUNT: PayoutAccountStatusView = {
  status: 'not_connected',
  chargesEnabled: false,
  payoutsEnabled: false,
  detailsSubmitted: false,
  requirementsDue: [],
  isConnected: false,
  checkedAt: null,
};

/**
 * GET /stripe/connect/status. The row is the cache: values read from the processor less than 5 minutes
 * ago (statusCheckedAt) are answered as they are (one query); older ones are refreshed from the
 * processor and written back with the new statusCheckedAt. When the processor cannot answer, the
 * cached values are answered (checkedAt says how old they are) and the failure is logged.
 */
export async function payoutAccountStatus(
  db: Database,
  processorFor: ProcessorFor,
  clinicId: string,
  now: Date,
): Promise<PayoutAccountStatusView> {
  const [row] = await db.select().from(payoutAccounts).where(eq(payoutAccounts.clinicId, clinicId)).limit(1);
  if (!row) return { ...NO_ACCOUNT, requirementsDue: [] };
  if (row.statusCheckedAt && now.getTime() - row.statusCheckedAt.getTime() < PAYOUT_STATUS_TTL_MS) return toPayoutStatus(row);
  let state: Awaited<ReturnType<BillingProcessor['retrieveAccount']>>;
  try {
    state = await processorFor(row.processorAccountId).retrieveAccount({ clinicId, processorAccountId: row.processorAccountId });
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    logLine('warn', 'payout account status not refreshed; answering the cached values', { clinicId, error: describeError(error) });
    return toPayoutStatus(row);
  }
  const [updated] = await db
    .update(payoutAccounts)
    .set({ ...state, statusCheckedAt: now, updatedAt: now })
    .where(eq(payoutAccounts.clinicId, clinicId))
    .returning();
  return toPayoutStatus(updated ?? { ...row, ...state, statusCheckedAt: now });
}

// --- plans ------------------------------------------------------------------------------------------

/** Every plan a clinic may choose (invite-only ones hidden), cheapest first, with the clinic's marked. */
export async function listPlans(db: Database, clinicId: string): Promise<PlanView[]> {
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

// --- basic info -------------------------------------------------------------------------------------

const TUTORIAL_TITLES: Record<(typeof TUTORIAL_STEPS)[number], string> = {
  business_details: 'Save the business details (POST /api/v1/onboarding/save-business-details)',
  payout_account: 'Connect a payout account with charges and payouts enabled',
  first_program: 'Put a program live',
  go_live: 'Go live (POST /api/v1/sandbox/go-live, then complete onboarding)',
};

/** GET /billing/basic-info: one query over the clinic, its plan, subscription, onboarding, payout account and checklist. */
export async function basicInfo(db: Database, clinicId: string, now: Date): Promise<BasicInfoView> {
  const [row] = await db
    .select({
      clinic: {
        id: clinics.id,
        name: clinics.name,
        mode: clinics.mode,
        isActive: clinics.isActive,
        sandboxExpiresAt: clinics.sandboxExpiresAt,
        goLiveRequestedAt: clinics.goLiveRequestedAt,
      },
      plan: {
        id: plans.id,
        code: plans.code,
        name: plans.name,
        monthlyPriceCents: plans.monthlyPriceCents,
        entitlements: plans.entitlements,
      },
      subscription: platformSubscriptions,
      onboarding: {
        currentStep: onboarding.currentStep,
        completedAt: onboarding.completedAt,
        businessDetailsSubmittedAt: onboarding.businessDetailsSubmittedAt,
      },
      payout: { status: payoutAccounts.status, statusCheckedAt: payoutAccounts.statusCheckedAt },
      organizationEin: organizations.ein,
      hasLiveProgram: sql<boolean>`exists (select 1 from "programs" p where p."clinic_id" = ${clinics.id} and p."state" = 'live')`,
      pendingGoLive: sql<boolean>`exists (select 1 from "go_live_requests" g where g."clinic_id" = ${clinics.id} and g."status" = 'requested')`,
    })
    .from(clinics)
    .leftJoin(plans, eq(plans.id, clinics.planId))
    .leftJoin(platformSubscriptions, and(eq(platformSubscriptions.clinicId, clinics.id), ne(platformSubscriptions.status, 'cancelled')))
    .leftJoin(onboarding, eq(onboarding.clinicId, clinics.id))
    .leftJoin(payoutAccounts, eq(payoutAccounts.clinicId, clinics.id))
    .leftJoin(organizations, eq(organizations.clinicId, clinics.id))
    .where(eq(clinics.id, clinicId))
    .limit(1);
  if (!row) throw notFound('Clinic');
  const { clinic } = row;
  const status = clinic.mode === 'live' ? 'live' : row.pendingGoLive || clinic.goLiveRequestedAt ? 'go_live_requested' : 'sandbox';
  const payoutStatus = row.payout?.status ?? 'not_connected';
  const done: Record<(typeof TUTORIAL_STEPS)[number], boolean> = {
    business_details: Boolean(row.onboarding?.businessDetailsSubmittedAt || row.organizationEin),
    payout_account: payoutStatus === 'active',
    first_program: Boolean(row.hasLiveProgram),
    go_live: clinic.mode === 'live',
  };
  const steps = TUTORIAL_STEPS.map((key) => ({ key, title: TUTORIAL_TITLES[key], done: done[key] }));
  const completedCount = steps.filter((s) => s.done).length;
  const expiresAt = clinic.sandboxExpiresAt;
  return {
    status,
    clinic: { id: clinic.id, name: clinic.name, mode: clinic.mode, isActive: clinic.isActive },
    sandbox: expiresAt
      ? {
          expiresAt: expiresAt.toISOString(),
          isOpen: expiresAt.getTime() > now.getTime(),
          daysRemaining: Math.max(0, Math.ceil((expiresAt.getTime() - now.getTime()) / DAY_MS)),
          goLiveRequestedAt: isoOrNull(clinic.goLiveRequestedAt),
        }
      : null,
    plan: row.plan ? toPlanRef(row.plan) : null,
    subscription: row.subscription ? toSubscription(row.subscription) : null,
    payoutAccount: {
      status: payoutStatus,
      isConnected: payoutStatus !== 'not_connected',
      checkedAt: isoOrNull(row.payout?.statusCheckedAt ?? null),
    },
    onboarding: row.onboarding
      ? {
          currentStep: row.onboarding.currentStep,
          isComplete: row.onboarding.currentStep === 'completed',
          completedAt: isoOrNull(row.onboarding.completedAt),
        }
      : null,
    tutorial: { steps, completedCount, totalCount: steps.length, isComplete: completedCount === steps.length },
  };
}

// --- plan changes -----------------------------------------------------------------------------------

const currentPlanAlias = alias(plans, 'current_plan');

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
export async function previewPlanChange(db: Database, clinicId: string, newPlanId: string, now: Date): Promise<ProrationPreviewView> {
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
export async function changePlan(db: Database, processorFor: ProcessorFor, clinicId: string, newPlanId: string, now: Date) {
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
    const state = await processorFor(subscription.processorSubscriptionId).changePlan(
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
export async function cancelSubscription(db: Database, processorFor: ProcessorFor, clinicId: string, now: Date) {
  return withProcessorFirst(db, clinicId, 'cancellation', async (tx, applied) => {
    const subscription = await lockCurrentSubscription(tx, clinicId);
    if (!subscription) throw notFound('Subscription');
    if (subscription.processorSubscriptionId) {
      await processorFor(subscription.processorSubscriptionId).cancelSubscription(
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

// --- sweep ------------------------------------------------------------------------------------------

/** A period end this long ago without a renewal recorded marks a processor-backed subscription stale. */
export const LAPSE_GRACE_MS = 3 * DAY_MS;
const SWEEP_BATCH = 500;

/** One calendar month later in UTC, the day clamped to the month's length (Jan 31 -> Feb 28/29). */
export function addMonthUtc(date: Date): Date {
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  const lastDay = new Date(Date.UTC(y, m + 2, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      y,
      m + 1,
      Math.min(date.getUTCDate(), lastDay),
      date.getUTCHours(),
      date.getUTCMinutes(),
      date.getUTCSeconds(),
      date.getUTCMilliseconds(),
    ),
  );
}

/**
 * The subscriptions sweep (docs/billing.md, "Sweep"): a development subscription (sub_dev_) whose period
 * ended is renewed period by period, as the processor would; a processor subscription whose period ended
 * more than 3 days ago without a renewal being recorded is marked expired and needsSync, so previews
 * and changes answer 409 until it is re-synced. Returns how many rows changed.
 */
export async function sweepPlatformSubscriptions(db: Database, now: Date): Promise<number> {
  const due = await db
    .select()
    .from(platformSubscriptions)
    .where(and(inArray(platformSubscriptions.status, ['active', 'past_due']), lt(platformSubscriptions.currentPeriodEnd, now)))
    .orderBy(asc(platformSubscriptions.currentPeriodEnd))
    .limit(SWEEP_BATCH);
  let changed = 0;
  for (const row of due) {
    if (row.processorSubscriptionId && isDevelopmentBillingId(row.processorSubscriptionId)) {
      let start = row.currentPeriodStart;
      let end = row.currentPeriodEnd;
      while (end.getTime() <= now.getTime()) {
        start = end;
        end = addMonthUtc(end);
      }
      await db
        .update(platformSubscriptions)
        .set({ currentPeriodStart: start, currentPeriodEnd: end, updatedAt: now })
        .where(eq(platformSubscriptions.id, row.id));
      changed++;
    } else if (row.currentPeriodEnd.getTime() < now.getTime() - LAPSE_GRACE_MS) {
      await db
        .update(platformSubscriptions)
        .set({ status: 'expired', needsSync: true, updatedAt: now })
        .where(eq(platformSubscriptions.id, row.id));
      changed++;
    }
  }
  return changed;
}
