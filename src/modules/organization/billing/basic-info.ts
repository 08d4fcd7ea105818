// GET /billing/basic-info: the clinic's dashboard (status, sandbox window, plan, subscription, payout
// account, onboarding, the getting-started checklist).
import { and, eq, ne, sql } from 'drizzle-orm';
import { clinics, onboarding, organizations, payoutAccounts, plans, platformSubscriptions } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { isoOrNull } from '../../../platform/values/dates';
import { notFound } from '../../../platform/values/errors';
import { type BasicInfoView, TUTORIAL_STEPS } from './schemas';
import { toPlanRef, toSubscription } from './views';

const DAY_MS = 86_400_000;

const TUTORIAL_TITLES: Record<(typeof TUTORIAL_STEPS)[number], string> = {
  business_details: 'Save the business details (POST /api/v1/onboarding/save-business-details)',
  payout_account: 'Connect a payout account with charges and payouts enabled',
  first_program: 'Put a program live',
  go_live: 'Go live (POST /api/v1/sandbox/go-live, then complete onboarding)',
};

/** GET /billing/basic-info: one query over the clinic, its plan, subscription, onboarding, payout account and checklist. */
export async function basicInfo(ctx: HandlerContext): Promise<BasicInfoView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
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
