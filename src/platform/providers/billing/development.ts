import { and, eq } from 'drizzle-orm';
import { payoutAccounts, platformSubscriptions } from '../../../../drizzle/schema';
import type { Database, Queryable } from '../../db/client';
import { processorRefused } from '../payments/types';
import {
  type BillingContext,
  type BillingProcessor,
  type CancelSubscriptionInput,
  type ChangePlanInput,
  NOT_CONNECTED,
  type PayoutAccountState,
  type SubscriptionState,
} from './types';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** An id shaped like Stripe's, marked as development: sub_dev_... / acct_dev_... + 24 base62 characters. */
export function developmentBillingId(prefix: 'sub' | 'acct'): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let id = '';
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return `${prefix}_dev_${id}`;
}

/**
 * The billing side of the payment processor for development, tests and sandbox clinics. Nothing leaves
 * the database: the processor's record of a connected account is the clinic's payout_accounts row and
 * its record of a subscription is the platform_subscriptions row (ids acct_dev_... and sub_dev_...).
 * It answers like Stripe: an unknown account is not_connected, an unknown or cancelled subscription
 * cannot be changed (502 PAYMENT_PROCESSOR_ERROR, as Stripe's resource_missing would be), and a period
 * is kept across a plan change (Stripe keeps the billing cycle anchor).
 */
/** Ids the development processor made (acct_dev_..., sub_dev_...): development or sandbox records. */
export const isDevelopmentBillingId = (id: string) => /^[a-z]+_dev_/.test(id);

export class DevelopmentBillingProcessor implements BillingProcessor {
  readonly name = 'development';

  constructor(private readonly db?: Database) {}

  private database(context: BillingContext): Queryable {
    const db = context.db ?? this.db;
    if (!db) throw new Error('DevelopmentBillingProcessor needs a database (constructor or context.db)');
    return db;
  }

  async retrieveAccount(
    input: { clinicId: string; processorAccountId: string },
    context: BillingContext = {},
  ): Promise<PayoutAccountState> {
    const [row] = await this.database(context)
      .select({
        status: payoutAccounts.status,
        chargesEnabled: payoutAccounts.chargesEnabled,
        payoutsEnabled: payoutAccounts.payoutsEnabled,
        detailsSubmitted: payoutAccounts.detailsSubmitted,
        requirementsDue: payoutAccounts.requirementsDue,
      })
      .from(payoutAccounts)
      .where(and(eq(payoutAccounts.clinicId, input.clinicId), eq(payoutAccounts.processorAccountId, input.processorAccountId)))
      .limit(1);
    if (!row) return { ...NOT_CONNECTED, requirementsDue: [] };
    return { ...row, requirementsDue: [...row.requirementsDue] };
  }

  private async subscription(db: Queryable, clinicId: string, processorSubscriptionId: string) {
    const [row] = await db
      .select()
      .from(platformSubscriptions)
      .where(and(eq(platformSubscriptions.clinicId, clinicId), eq(platformSubscriptions.processorSubscriptionId, processorSubscriptionId)))
      .limit(1);
    return row;
  }

  async changePlan(input: ChangePlanInput, context: BillingContext = {}): Promise<SubscriptionState> {
    const row = await this.subscription(this.database(context), input.clinicId, input.processorSubscriptionId);
    if (!row) throw processorRefused(`development: no such subscription ${input.processorSubscriptionId}`, 'development');
    if (row.status === 'cancelled' || row.status === 'expired') {
      throw processorRefused(
        `development: the subscription ${input.processorSubscriptionId} is ${row.status} and cannot be changed`,
        'development',
      );
    }
    if (!Number.isInteger(input.plan.monthlyPriceCents) || input.plan.monthlyPriceCents < 0) {
      throw processorRefused(`development: plan ${input.plan.code} has no valid monthly price`, 'development');
    }
    return {
      processorSubscriptionId: input.processorSubscriptionId,
      status: row.status,
      currentPeriodStart: row.currentPeriodStart,
      currentPeriodEnd: row.currentPeriodEnd,
    };
  }

  async cancelSubscription(input: CancelSubscriptionInput, context: BillingContext = {}): Promise<SubscriptionState> {
    const row = await this.subscription(this.database(context), input.clinicId, input.processorSubscriptionId);
    if (!row) throw processorRefused(`development: no such subscription ${input.processorSubscriptionId}`, 'development');
    return {
      processorSubscriptionId: input.processorSubscriptionId,
      status: 'cancelled',
      currentPeriodStart: row.currentPeriodStart,
      currentPeriodEnd: row.currentPeriodEnd,
    };
  }
}
