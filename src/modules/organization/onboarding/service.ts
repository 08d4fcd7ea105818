import { and, eq, ne } from 'drizzle-orm';
import {
  clinics,
  goLiveRequests,
  type OnboardingStep,
  onboarding,
  organizations,
  plans,
  platformSubscriptions,
} from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { ApiError, conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { type BusinessDetailsBody, ONBOARDING_WORK_STEPS, type OnboardingStatusView, type OnboardingWorkStep } from './schemas';
import { comparableName } from './validation';

type OnboardingRow = typeof onboarding.$inferSelect;
const RESOURCE = 'Onboarding';
const iso = (d: Date | null) => (d ? d.toISOString() : null);

const REQUIREMENTS: Record<OnboardingWorkStep, string> = {
  business_details: 'Save the business details: POST /api/v1/onboarding/save-business-details',
  identity_verification: "The signer verifies their identity with the identity provider (the link is in the signer's invitation)",
  agreement:
    "The signer confirms the signature declaration: POST /api/v1/onboarding/confirm-signature-declaration with typedName equal to the signer's name",
  plan_payment: 'Choose a plan (GET /api/v1/billing/plans) and pay for it',
};

const STEP_DONE_AT: Record<OnboardingWorkStep, (row: OnboardingRow) => Date | null> = {
  business_details: (row) => row.businessDetailsSubmittedAt,
  identity_verification: (row) => row.identityVerifiedAt,
  agreement: (row) => row.signatureDeclaredAt,
  plan_payment: (row) => row.planPaidAt,
};

const stepIndex = (step: OnboardingStep) => (step === 'completed' ? ONBOARDING_WORK_STEPS.length : ONBOARDING_WORK_STEPS.indexOf(step));

/** Whether the one name change may be made now: not used, identity not verified, onboarding not past that step. */
const nameChangeAvailable = (row: OnboardingRow) =>
  !row.nameChangeRequestedAt && !row.identityVerifiedAt && stepIndex(row.currentStep) <= stepIndex('identity_verification');

type OrganizationDetails = Pick<
  typeof organizations.$inferSelect,
  'legalName' | 'ein' | 'businessType' | 'stateOfRegistration' | 'addressLine1' | 'city' | 'state' | 'zipCode' | 'phoneNumber'
>;

function toStatus(row: OnboardingRow, clinicMode: 'live' | 'sandbox', org: OrganizationDetails | null): OnboardingStatusView {
  const current = stepIndex(row.currentStep);
  const steps = ONBOARDING_WORK_STEPS.map((step, index) => ({
    step,
    state: index < current ? ('completed' as const) : index === current ? ('current' as const) : ('pending' as const),
    completedAt: index < current ? iso(STEP_DONE_AT[step](row)) : null,
  }));
  return {
    currentStep: row.currentStep,
    isComplete: row.currentStep === 'completed',
    completedAt: iso(row.completedAt),
    clinicMode,
    steps,
    signer: {
      firstName: row.signerFirstName,
      lastName: row.signerLastName,
      email: row.signerEmail,
      nameChangeUsed: row.nameChangeRequestedAt !== null,
      nameChangeAvailable: nameChangeAvailable(row),
    },
    missing: steps.filter((s) => s.state !== 'completed').map((s) => ({ step: s.step, requirement: REQUIREMENTS[s.step] })),
    businessDetails:
      row.businessDetailsSubmittedAt && org
        ? {
            companyName: org.legalName,
            ein: org.ein,
            businessType: org.businessType,
            stateOfRegistration: org.stateOfRegistration,
            address: org.addressLine1,
            city: org.city,
            state: org.state,
            zipCode: org.zipCode,
            phoneNumber: org.phoneNumber,
          }
        : null,
  };
}

/** GET /onboarding/status: one query (the onboarding row, the clinic's mode, the saved business details). */
export async function getOnboardingStatus(ctx: HandlerContext): Promise<OnboardingStatusView> {
  return readOnboardingStatus(ctx.db, ctx.clinicId);
}

async function readOnboardingStatus(db: Queryable, clinicId: string): Promise<OnboardingStatusView> {
  const [row] = await db
    .select({
      onboarding,
      clinicMode: clinics.mode,
      org: {
        legalName: organizations.legalName,
        ein: organizations.ein,
        businessType: organizations.businessType,
        stateOfRegistration: organizations.stateOfRegistration,
        addressLine1: organizations.addressLine1,
        city: organizations.city,
        state: organizations.state,
        zipCode: organizations.zipCode,
        phoneNumber: organizations.phoneNumber,
      },
    })
    .from(onboarding)
    .innerJoin(clinics, eq(clinics.id, onboarding.clinicId))
    .leftJoin(organizations, eq(organizations.clinicId, onboarding.clinicId))
    .where(eq(onboarding.clinicId, clinicId))
    .limit(1);
  if (!row) throw notFound(RESOURCE);
  return toStatus(row.onboarding, row.clinicMode, row.org);
}

/** The clinic's onboarding row, locked until the transaction ends; 404 without one. */
async function lockOnboarding(tx: Queryable, clinicId: string): Promise<OnboardingRow> {
  const [row] = await tx.select().from(onboarding).where(eq(onboarding.clinicId, clinicId)).limit(1).for('update');
  if (!row) throw notFound(RESOURCE);
  return row;
}

const wrongStep = (row: OnboardingRow, action: string, allowed: OnboardingStep[]) =>
  conflict('WRONG_ONBOARDING_STEP', `${action} is possible only at the ${allowed.join(' or ')} step; onboarding is at ${row.currentStep}`);

/**
 * POST /onboarding/request-name-change: the signer's name, once, before identity verification
 * (409 NAME_CHANGE_ALREADY_USED / IDENTITY_ALREADY_VERIFIED otherwise); the same name is a 400
 * NAME_UNCHANGED, so a no-op does not use up the one change.
 */
export async function requestNameChange(ctx: HandlerContext, body: { firstName: string; lastName: string }) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const row = await lockOnboarding(tx, clinicId);
    if (row.identityVerifiedAt || stepIndex(row.currentStep) > stepIndex('identity_verification')) {
      throw conflict('IDENTITY_ALREADY_VERIFIED', "The signer's identity is already verified; the name can no longer change");
    }
    if (row.nameChangeRequestedAt) {
      throw conflict(
        'NAME_CHANGE_ALREADY_USED',
        `The signer's name was already changed once (${row.nameChangeRequestedAt.toISOString()}); it can change only once`,
      );
    }
    if (row.signerFirstName === body.firstName && row.signerLastName === body.lastName) {
      throw new ApiError(400, 'NAME_UNCHANGED', ERROR_MESSAGES.NAME_UNCHANGED);
    }
    await tx
      .update(onboarding)
      .set({ signerFirstName: body.firstName, signerLastName: body.lastName, nameChangeRequestedAt: now, updatedAt: now })
      .where(eq(onboarding.clinicId, clinicId));
    return readOnboardingStatus(tx, clinicId);
  });
}

/**
 * POST /onboarding/confirm-signature-declaration: at the agreement step only (409 WRONG_ONBOARDING_STEP);
 * typedName must be the signer's "first last" (400 SIGNATURE_NAME_MISMATCH); advances to plan_payment.
 */
export async function confirmSignatureDeclaration(ctx: HandlerContext, typedName: string) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const row = await lockOnboarding(tx, clinicId);
    if (row.currentStep !== 'agreement') throw wrongStep(row, 'The signature declaration', ['agreement']);
    if (!row.signerFirstName || !row.signerLastName) {
      throw conflict('SIGNER_MISSING', 'Onboarding has no signer; request go-live (POST /api/v1/sandbox/go-live) with the signer first');
    }
    if (comparableName(typedName) !== comparableName(`${row.signerFirstName} ${row.signerLastName}`)) {
      throw new ApiError(
        400,
        'SIGNATURE_NAME_MISMATCH',
        "typedName must be the signer's full name (first and last name, as shown in GET /api/v1/onboarding/status)",
      );
    }
    await tx
      .update(onboarding)
      .set({ signatureTypedName: typedName.trim(), signatureDeclaredAt: now, currentStep: 'plan_payment', updatedAt: now })
      .where(eq(onboarding.clinicId, clinicId));
    return readOnboardingStatus(tx, clinicId);
  });
}

/**
 * POST /onboarding/save-business-details: at business_details (which it completes) or, to correct
 * them, at identity_verification (the step stays); 409 WRONG_ONBOARDING_STEP once identity is verified.
 * The details go to the clinic's organizations row.
 */
export async function saveBusinessDetails(ctx: HandlerContext, body: BusinessDetailsBody) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const row = await lockOnboarding(tx, clinicId);
    if (row.currentStep !== 'business_details' && row.currentStep !== 'identity_verification') {
      throw wrongStep(row, 'Saving the business details', ['business_details', 'identity_verification']);
    }
    const details = {
      legalName: body.companyName,
      ein: body.ein,
      businessType: body.businessType,
      stateOfRegistration: body.stateOfRegistration,
      addressLine1: body.address,
      city: body.city,
      state: body.state,
      zipCode: body.zipCode,
      phoneNumber: body.phoneNumber,
      updatedAt: now,
    };
    await tx
      .insert(organizations)
      .values({ clinicId, ...details })
      .onConflictDoUpdate({ target: organizations.clinicId, set: details });
    await tx
      .update(onboarding)
      .set({
        businessDetailsSubmittedAt: now,
        currentStep: row.currentStep === 'business_details' ? 'identity_verification' : row.currentStep,
        updatedAt: now,
      })
      .where(eq(onboarding.clinicId, clinicId));
    return readOnboardingStatus(tx, clinicId);
  });
}

/**
 * The identity provider verified the signer (its webhook in production; the development simulator
 * here): at identity_verification only (409 WRONG_ONBOARDING_STEP); advances to agreement.
 */
export async function recordIdentityVerified(tx: Queryable, clinicId: string, now: Date) {
  const row = await lockOnboarding(tx, clinicId);
  if (row.currentStep !== 'identity_verification') throw wrongStep(row, 'Identity verification', ['identity_verification']);
  await tx
    .update(onboarding)
    .set({ identityVerifiedAt: now, currentStep: 'agreement', updatedAt: now })
    .where(eq(onboarding.clinicId, clinicId));
  return readOnboardingStatus(tx, clinicId);
}

export interface PlanPayment {
  planId: string;
  /** The processor's subscription the payment started (sub_... at Stripe, sub_dev_... in development). */
  processorSubscriptionId: string;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
}

/**
 * The plan was paid (the processor's event in production; the development simulator here): at
 * plan_payment only (409 WRONG_ONBOARDING_STEP); the plan must exist (404) and not be invite-only
 * (400 PLAN_INVITE_ONLY). As every step is then done, onboarding completes in the same transaction
 * (completeOnboarding). Call it inside a transaction.
 */
export async function recordPlanPaid(tx: Queryable, clinicId: string, payment: PlanPayment, now: Date) {
  const row = await lockOnboarding(tx, clinicId);
  if (row.currentStep !== 'plan_payment') throw wrongStep(row, 'Plan payment', ['plan_payment']);
  const [plan] = isUuid(payment.planId) ? await tx.select().from(plans).where(eq(plans.id, payment.planId)).limit(1) : [];
  if (!plan) throw notFound('Plan');
  if (plan.isInviteOnly) throw new ApiError(400, 'PLAN_INVITE_ONLY', ERROR_MESSAGES.PLAN_INVITE_ONLY.onboarding(plan.code));
  await tx.update(onboarding).set({ planPaidAt: now, updatedAt: now }).where(eq(onboarding.clinicId, clinicId));
  await completeOnboarding(tx, clinicId, { ...payment, planId: plan.id }, now);
  return readOnboardingStatus(tx, clinicId);
}

/**
 * Every step done (business details, identity, agreement, plan paid): onboarding completed, the clinic
 * live on the paid plan (clinics.mode live, plan_id), its pending go-live request completed and its
 * platform subscription recorded (the current one updated if it already has one) — one transaction,
 * the caller's.
 */
export async function completeOnboarding(tx: Queryable, clinicId: string, payment: PlanPayment, now: Date) {
  await tx.update(onboarding).set({ currentStep: 'completed', completedAt: now, updatedAt: now }).where(eq(onboarding.clinicId, clinicId));
  await tx.update(clinics).set({ mode: 'live', planId: payment.planId, updatedAt: now }).where(eq(clinics.id, clinicId));
  await tx
    .update(goLiveRequests)
    .set({ status: 'completed', completedAt: now })
    .where(and(eq(goLiveRequests.clinicId, clinicId), eq(goLiveRequests.status, 'requested')));
  const subscription = {
    planId: payment.planId,
    status: 'active' as const,
    currentPeriodStart: payment.currentPeriodStart,
    currentPeriodEnd: payment.currentPeriodEnd,
    processorSubscriptionId: payment.processorSubscriptionId,
    needsSync: false,
    updatedAt: now,
  };
  const [updated] = await tx
    .update(platformSubscriptions)
    .set(subscription)
    .where(and(eq(platformSubscriptions.clinicId, clinicId), ne(platformSubscriptions.status, 'cancelled')))
    .returning({ id: platformSubscriptions.id });
  if (!updated) await tx.insert(platformSubscriptions).values({ clinicId, ...subscription });
}
