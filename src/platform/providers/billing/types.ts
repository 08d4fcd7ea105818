// The payment processor's subscription and payout-account side, as far as billing and the payout-account
// status use it (docs/billing.md). Implementations: DevelopmentBillingProcessor (its state is the
// database rows themselves) and StripeBillingProcessor (the official `stripe` package).
import type { PayoutAccountStatus, PlatformSubscriptionStatus } from '../../../../drizzle/schema';
import type { Queryable } from '../../db/client';

/** A connected payout account as the processor reports it. */
export interface PayoutAccountState {
  /**
   * not_connected: the processor no longer knows the account (removed, or the platform's access revoked);
   * pending: details not yet submitted; restricted: submitted but charges or payouts are disabled;
   * active: charges and payouts enabled.
   */
  status: PayoutAccountStatus;
  chargesEnabled: boolean;
  payoutsEnabled: boolean;
  detailsSubmitted: boolean;
  /** What the processor still needs (Stripe's requirements.currently_due and past_due), e.g. external_account. */
  requirementsDue: string[];
}

/** A platform subscription as the processor reports it after a change. */
export interface SubscriptionState {
  processorSubscriptionId: string;
  status: PlatformSubscriptionStatus;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
}

/** One row of the plans table, as the processor needs it. */
export interface BillingPlan {
  id: string;
  code: string;
  name: string;
  monthlyPriceCents: number;
}

export interface ChangePlanInput {
  clinicId: string;
  processorSubscriptionId: string;
  plan: BillingPlan;
  /** The instant the proration is computed for (the request's clock). */
  prorationDate: Date;
  /** The same key for the same logical change (a retry replays the first answer). */
  idempotencyKey: string;
}

export interface CancelSubscriptionInput {
  clinicId: string;
  processorSubscriptionId: string;
  idempotencyKey: string;
}

/** `context.db`: the caller's transaction, so the development processor reads what the caller locked. */
export interface BillingContext {
  db?: Queryable;
}

export interface BillingProcessor {
  /** stripe | development: for logs and docs. */
  readonly name: string;
  /** The connected account's current state (GET /stripe/connect/status refreshes its cache with it). */
  retrieveAccount(input: { clinicId: string; processorAccountId: string }, context?: BillingContext): Promise<PayoutAccountState>;
  /** Moves the subscription to `plan`, prorating from `prorationDate` to the end of the current period. */
  changePlan(input: ChangePlanInput, context?: BillingContext): Promise<SubscriptionState>;
  /** Cancels the subscription now. Cancelling an already cancelled subscription answers its cancelled state. */
  cancelSubscription(input: CancelSubscriptionInput, context?: BillingContext): Promise<SubscriptionState>;
}

/** The state of an account the processor does not know (any more). */
export const NOT_CONNECTED: PayoutAccountState = Object.freeze({
  status: 'not_connected',
  chargesEnabled: false,
  payoutsEnabled: false,
  detailsSubmitted: false,
  requirementsDue: [],
}) as PayoutAccountState;
