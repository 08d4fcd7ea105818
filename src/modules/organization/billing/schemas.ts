import { z } from '@hono/zod-openapi';
import {
  CLINIC_MODES,
  ENTITLEMENTS,
  ONBOARDING_STEPS,
  PAYOUT_ACCOUNT_STATUSES,
  PLATFORM_SUBSCRIPTION_STATUSES,
} from '../../../../drizzle/schema';
import { safeString } from '../../../platform/values/strings';

const dateTime = () => z.string().datetime();
const dollars = (description: string) => z.number().openapi({ description: `US dollars. ${description}`.trim() });
const cents = (description: string) =>
  z
    .number()
    .int()
    .openapi({ description: `Integer cents. ${description}`.trim() });

export const payoutAccountStatus = z
  .object({
    status: z.enum(PAYOUT_ACCOUNT_STATUSES).openapi({
      description:
        'not_connected: no account (or the processor no longer knows it); pending: details not yet submitted; restricted: submitted, but charges or payouts are disabled; active: charges and payouts enabled.',
    }),
    chargesEnabled: z.boolean(),
    payoutsEnabled: z.boolean(),
    detailsSubmitted: z.boolean(),
    requirementsDue: z
      .array(z.string())
      .openapi({ description: 'What the processor still needs, in its own terms (e.g. external_account).', example: ['external_account'] }),
    isConnected: z
      .boolean()
      .openapi({ description: 'An account is linked to the clinic and the processor knows it (status is not not_connected).' }),
    checkedAt: dateTime()
      .nullable()
      .openapi({ description: 'When these values were read from the processor; they are reused for 5 minutes. null: never read.' }),
  })
  .openapi('PayoutAccountStatus');
export type PayoutAccountStatusView = z.infer<typeof payoutAccountStatus>;

export const ENTITLEMENT_FEATURES: Record<(typeof ENTITLEMENTS)[number], string> = {
  affiliates: 'Affiliate program',
  crm_connect: 'CRM Connect',
};

export const plan = z
  .object({
    id: z.string().uuid(),
    code: z.string().openapi({ example: 'growth' }),
    name: z.string().openapi({ example: 'Growth' }),
    monthlyPrice: dollars('Price per month.').openapi({ example: 499 }),
    monthlyPriceCents: cents('Price per month.').openapi({ example: 49_900 }),
    entitlements: z.array(z.enum(ENTITLEMENTS)).openapi({
      description:
        'The gated areas the plan opens (affiliates: AFFILIATES_TIER_REQUIRED otherwise; crm_connect: CRM_TIER_REQUIRED otherwise).',
    }),
    features: z.array(z.string()).openapi({ description: 'The entitlements by name.', example: ['Affiliate program', 'CRM Connect'] }),
    limits: z.object({
      maxSelectedProducts: z.number().int().nullable().openapi({ description: 'Tenant products offered at once; null: no limit.' }),
      maxProductPrice: z.number().nullable().openapi({ description: 'US dollars: the highest price of one product; null: no cap.' }),
      maxProductPriceCents: z.number().int().nullable().openapi({ description: 'The same in integer cents.' }),
    }),
    isCurrent: z.boolean().openapi({ description: "Whether this is the clinic's plan now." }),
  })
  .openapi('Plan');
export type PlanView = z.infer<typeof plan>;

export const plansResponse = z
  .object({ success: z.literal(true), message: z.string(), plans: z.array(plan) })
  .openapi('PlansResponse', { description: 'The payload is at top level (plans), not in data, as the specification says.' });

export const currentSubscriptionResponse = z
  .object({
    success: z.literal(true),
    message: z.string(),
    subscription: z
      .null()
      .openapi({ description: 'Always null (see GET /api/v1/billing/basic-info, data.subscription, for the subscription).' }),
  })
  .openapi('CurrentSubscriptionResponse');

export const planRef = z
  .object({
    id: z.string().uuid(),
    code: z.string(),
    name: z.string(),
    monthlyPrice: dollars('Price per month.'),
    monthlyPriceCents: cents('Price per month.'),
    entitlements: z.array(z.enum(ENTITLEMENTS)),
  })
  .openapi('PlanRef');
export type PlanRefView = z.infer<typeof planRef>;

export const subscription = z
  .object({
    id: z.string().uuid(),
    planId: z.string().uuid(),
    status: z.enum(PLATFORM_SUBSCRIPTION_STATUSES),
    currentPeriodStart: dateTime(),
    currentPeriodEnd: dateTime(),
    needsSync: z.boolean().openapi({
      description:
        "The processor's copy differs from this one; previews and changes answer 409 SUBSCRIPTION_SYNC_REQUIRED until platform support re-syncs it.",
    }),
    cancelledAt: dateTime().nullable(),
  })
  .openapi('PlatformSubscription');
export type SubscriptionView = z.infer<typeof subscription>;

export const TUTORIAL_STEPS = ['business_details', 'payout_account', 'first_program', 'go_live'] as const;
export const SANDBOX_STATES = ['sandbox', 'go_live_requested', 'live'] as const;

export const basicInfo = z
  .object({
    status: z.enum(SANDBOX_STATES).openapi({
      description:
        'The clinic in the sandbox state machine: sandbox, go_live_requested (POST /sandbox/go-live was accepted, onboarding runs), live.',
    }),
    clinic: z.object({
      id: z.string().uuid(),
      name: z.string(),
      mode: z.enum(CLINIC_MODES),
      isActive: z.boolean(),
    }),
    sandbox: z
      .object({
        expiresAt: dateTime(),
        isOpen: z.boolean(),
        daysRemaining: z.number().int().openapi({ description: 'Whole days left, rounded up; 0 once over.' }),
        goLiveRequestedAt: dateTime().nullable(),
      })
      .nullable()
      .openapi({ description: 'The 30-day sandbox window; null for a clinic that never was a sandbox.' }),
    plan: planRef.nullable(),
    subscription: subscription
      .nullable()
      .openapi({ description: 'The current (not cancelled) platform subscription; null when there is none (sandbox clinics).' }),
    payoutAccount: z
      .object({
        status: z.enum(PAYOUT_ACCOUNT_STATUSES),
        isConnected: z.boolean(),
        checkedAt: dateTime().nullable(),
      })
      .openapi({ description: 'As last cached; GET /api/v1/stripe/connect/status refreshes it.' }),
    onboarding: z
      .object({
        currentStep: z.enum(ONBOARDING_STEPS),
        isComplete: z.boolean(),
        completedAt: dateTime().nullable(),
      })
      .nullable()
      .openapi({ description: 'null: the clinic has no onboarding (GET /api/v1/onboarding/status answers 404).' }),
    tutorial: z
      .object({
        steps: z.array(z.object({ key: z.enum(TUTORIAL_STEPS), title: z.string(), done: z.boolean() })),
        completedCount: z.number().int(),
        totalCount: z.number().int(),
        isComplete: z.boolean(),
      })
      .openapi({ description: 'The getting-started checklist, derived from the clinic data (nothing is stored).' }),
  })
  .openapi('BillingBasicInfo');
export type BasicInfoView = z.infer<typeof basicInfo>;

export const planChangeBody = z
  .object({
    newPlanId: safeString().trim().min(1).max(100).openapi({
      description: 'The plan to move to (an id from GET /api/v1/billing/plans). An unknown or malformed id answers 404.',
      example: '00000000-0000-4000-8000-000000000101',
    }),
  })
  .strict()
  .openapi('PlanChangeRequest');

export const prorationPreview = z
  .object({
    subscriptionId: z.string().uuid(),
    currentPlan: planRef,
    newPlan: planRef,
    direction: z.enum(['upgrade', 'downgrade', 'same_price']).openapi({ description: 'By monthly price.' }),
    prorationDate: dateTime().openapi({ description: 'The instant the preview was computed for (truncated to the second).' }),
    currentPeriodStart: dateTime(),
    currentPeriodEnd: dateTime(),
    periodSeconds: z.number().int(),
    remainingSeconds: z.number().int(),
    unusedTimeCredit: dollars('Credit for the unused time of the current plan.'),
    unusedTimeCreditCents: cents('Credit for the unused time of the current plan: price x remaining / period, rounded half up.'),
    remainingTimeCharge: dollars('Charge for the rest of the period on the new plan.'),
    remainingTimeChargeCents: cents('Charge for the rest of the period on the new plan: price x remaining / period, rounded half up.'),
    amountDue: dollars('Invoiced now: charge - credit, at least 0.'),
    amountDueCents: cents('Invoiced now: charge - credit, at least 0.'),
    creditToBalance: dollars('What a downgrade leaves as credit for the next invoices: credit - charge, at least 0.'),
    creditToBalanceCents: cents('credit - charge, at least 0.'),
    nextPeriodAmount: dollars('The new plan price from the next period on.'),
    nextPeriodAmountCents: cents('The new plan price from the next period on.'),
    entitlementsGained: z.array(z.enum(ENTITLEMENTS)),
    entitlementsLost: z.array(z.enum(ENTITLEMENTS)),
  })
  .openapi('ProrationPreview');
export type ProrationPreviewView = z.infer<typeof prorationPreview>;

export const planChangeResult = z
  .object({
    previousPlan: planRef,
    plan: planRef,
    entitlements: z
      .array(z.enum(ENTITLEMENTS))
      .openapi({ description: "The clinic's entitlements from now on (its keys' plan gates follow at once)." }),
    subscription,
    proration: prorationPreview,
  })
  .openapi('PlanChangeResult');

export const cancellationResult = z
  .object({
    subscription,
    clinic: z.object({
      id: z.string().uuid(),
      isActive: z.literal(false),
      deactivatedReason: z.literal('cancelled'),
      deactivatedAt: dateTime(),
    }),
  })
  .openapi('SubscriptionCancellation');
