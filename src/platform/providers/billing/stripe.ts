import type Stripe from 'stripe';
import type { PlatformSubscriptionStatus } from '../../../../drizzle/schema';
import { mapStripeError } from '../payments/stripe';
import { processorRefused } from '../payments/types';
import { type StripeClientOptions, stripeClientFor } from '../stripe-client';
import {
  type BillingProcessor,
  type CancelSubscriptionInput,
  type ChangePlanInput,
  NOT_CONNECTED,
  type PayoutAccountState,
  type SubscriptionState,
} from './types';

/** STRIPE_SECRET_KEY (a restricted key needs read on Connect accounts and Prices, write on Subscriptions). */
export type StripeBillingOptions = StripeClientOptions;

/** The Stripe price of a plan is the active recurring price with this lookup key (docs/billing.md). */
export const planLookupKey = (code: string) => `plan_${code}`;

/** Stripe's subscription statuses as the platform_subscriptions status set. */
export function subscriptionStatusFromStripe(status: string): PlatformSubscriptionStatus {
  switch (status) {
    case 'active':
    case 'trialing':
      return 'active';
    case 'canceled':
      return 'cancelled';
    case 'incomplete_expired':
      return 'expired';
    default:
      // past_due, unpaid, incomplete, paused: money is owed or collection is on hold.
      return 'past_due';
  }
}

/** A Connect account as the payout_accounts status set (docs/billing.md, "Payout account"). */
export function accountStateFromStripe(
  account: Pick<Stripe.Account, 'charges_enabled' | 'payouts_enabled' | 'details_submitted' | 'requirements'>,
): PayoutAccountState {
  const chargesEnabled = account.charges_enabled === true;
  const payoutsEnabled = account.payouts_enabled === true;
  const detailsSubmitted = account.details_submitted === true;
  const due = [...(account.requirements?.past_due ?? []), ...(account.requirements?.currently_due ?? [])];
  const requirementsDue = [...new Set(due.filter((r): r is string => typeof r === 'string'))];
  const status = !detailsSubmitted ? 'pending' : chargesEnabled && payoutsEnabled ? 'active' : 'restricted';
  return { status, chargesEnabled, payoutsEnabled, detailsSubmitted, requirementsDue };
}

const fromUnix = (seconds: unknown): Date | null =>
  typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000) : null;

/**
 * The subscription's period: on its first item since Stripe API 2025-03-31 (the version this client
 * pins is later), on the subscription itself before.
 */
function periodOf(subscription: Stripe.Subscription): { start: Date; end: Date } | null {
  const item = subscription.items?.data?.[0] as { current_period_start?: number; current_period_end?: number } | undefined;
  const legacy = subscription as unknown as { current_period_start?: number; current_period_end?: number };
  const start = fromUnix(item?.current_period_start) ?? fromUnix(legacy.current_period_start);
  const end = fromUnix(item?.current_period_end) ?? fromUnix(legacy.current_period_end);
  return start && end ? { start, end } : null;
}

function stateOf(subscription: Stripe.Subscription): SubscriptionState {
  if (typeof subscription?.id !== 'string' || !subscription.id) throw processorRefused('the answer carried no subscription id');
  const period = periodOf(subscription);
  if (!period) throw processorRefused(`the subscription ${subscription.id} carried no current period`);
  return {
    processorSubscriptionId: subscription.id,
    status: subscriptionStatusFromStripe(String(subscription.status)),
    currentPeriodStart: period.start,
    currentPeriodEnd: period.end,
  };
}

/** Stripe's answer for an account the platform cannot see (deleted, or access revoked). */
function isMissingAccount(error: unknown): boolean {
  const e = error as { statusCode?: number; code?: string; type?: string };
  return (e?.statusCode === 404 && e.code === 'resource_missing') || e?.code === 'account_invalid';
}

/**
 * The production billing processor: Stripe through its official client on the fetch HTTP client (so it
 * runs in workerd as in Node), loaded on first use. Payout accounts are Stripe Connect accounts
 * (GET /v1/accounts/{id}); platform subscriptions are Stripe Billing subscriptions whose single item's
 * price is the plan's price, found by its lookup key plan_<code>.
 */
export class StripeBillingProcessor implements BillingProcessor {
  readonly name = 'stripe';
  constructor(private readonly options: StripeBillingOptions) {}

  private stripe(): Promise<Stripe> {
    return stripeClientFor(this.options);
  }

  /** GET /v1/accounts/{id}; an account Stripe no longer shows the platform is not_connected. */
  async retrieveAccount(input: { clinicId: string; processorAccountId: string }): Promise<PayoutAccountState> {
    const stripe = await this.stripe();
    try {
      const account = await stripe.accounts.retrieve(input.processorAccountId);
      if (typeof account?.id !== 'string') throw processorRefused('the answer carried no account');
      return accountStateFromStripe(account);
    } catch (error) {
      if (isMissingAccount(error)) return { ...NOT_CONNECTED, requirementsDue: [] };
      throw mapStripeError(error);
    }
  }

  /**
   * GET /v1/subscriptions/{id} (its item), GET /v1/prices?lookup_keys[]=plan_<code> (the plan's price,
   * which must cost the plan's monthlyPriceCents), then POST /v1/subscriptions/{id} with the item's new
   * price, proration_behavior=always_invoice (the prorated difference is invoiced now, as the preview
   * shows it) and proration_date = the request's clock.
   */
  async changePlan(input: ChangePlanInput): Promise<SubscriptionState> {
    const stripe = await this.stripe();
    try {
      const current = await stripe.subscriptions.retrieve(input.processorSubscriptionId);
      if (current.status === 'canceled' || current.status === 'incomplete_expired') {
        throw processorRefused(`the subscription ${current.id} is ${current.status}`);
      }
      const item = current.items?.data?.[0];
      if (!item?.id) throw processorRefused(`the subscription ${current.id} has no item`);
      const prices = await stripe.prices.list({ lookup_keys: [planLookupKey(input.plan.code)], active: true, limit: 1 });
      const price = prices.data[0];
      if (!price?.id) throw processorRefused(`no active price has the lookup key ${planLookupKey(input.plan.code)}`);
      if (price.unit_amount !== input.plan.monthlyPriceCents) {
        throw processorRefused(
          `the price ${price.id} of plan ${input.plan.code} is ${price.unit_amount} cents, the plan says ${input.plan.monthlyPriceCents}`,
        );
      }
      const updated = await stripe.subscriptions.update(
        current.id,
        {
          items: [{ id: item.id, price: price.id }],
          proration_behavior: 'always_invoice',
          proration_date: Math.floor(input.prorationDate.getTime() / 1000),
          metadata: { clinic_id: input.clinicId, plan_code: input.plan.code },
        },
        { idempotencyKey: input.idempotencyKey },
      );
      return stateOf(updated);
    } catch (error) {
      throw mapStripeError(error);
    }
  }

  /** DELETE /v1/subscriptions/{id} (cancels now, no refund); an already cancelled one is answered as is. */
  async cancelSubscription(input: CancelSubscriptionInput): Promise<SubscriptionState> {
    const stripe = await this.stripe();
    try {
      const current = await stripe.subscriptions.retrieve(input.processorSubscriptionId);
      if (current.status === 'canceled') return stateOf(current);
      return stateOf(await stripe.subscriptions.cancel(current.id, {}, { idempotencyKey: input.idempotencyKey }));
    } catch (error) {
      throw mapStripeError(error);
    }
  }
}
