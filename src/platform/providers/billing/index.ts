import { ConfigError, type AppConfig } from '../../../config/index';
import type { Database } from '../../db/client';
import { DevelopmentBillingProcessor } from './development';
import { StripeBillingProcessor } from './stripe';
import type { BillingProcessor } from './types';

// Per isolate: the Stripe client holds no socket between calls, so it may outlive a request.
let stripe: { secretKey: string; instance: StripeBillingProcessor } | undefined;

/**
 * Processors bound to one database handle, which win over the configured one. Services has no billing
 * field (the payment processor's is `payments`), so this is the seam tests use to run the app on a
 * counting development processor or on the Stripe adapter pointed at a local stand-in.
 */
const bound = new WeakMap<Database, BillingProcessor>();

/** Binds (or, with null, unbinds) the billing processor of every request that uses `db`. Tests only. */
export function bindBillingProcessor(db: Database, processor: BillingProcessor | null): void {
  if (processor) bound.set(db, processor);
  else bound.delete(db);
}

/** Ids the development processor made (acct_dev_..., sub_dev_...): development or sandbox records. */
export const isDevelopmentBillingId = (id: string) => /^[a-z]+_dev_/.test(id);

/**
 * The billing processor for a record: the development processor for a development record (its id is
 * acct_dev_... or sub_dev_...: demo data and sandbox clinics never reach Stripe), else Stripe when
 * STRIPE_SECRET_KEY is set, else the development processor, which production refuses with a
 * ConfigError (as the payment processor does).
 */
export function billingFor(
  services: { config: Pick<AppConfig, 'environment' | 'stripe'>; db: Database },
  options: { recordId?: string | null } = {},
): BillingProcessor {
  const override = bound.get(services.db);
  if (override) return override;
  if (options.recordId && isDevelopmentBillingId(options.recordId)) return new DevelopmentBillingProcessor(services.db);
  const { config } = services;
  if (config.stripe) {
    if (stripe?.secretKey !== config.stripe.secretKey) {
      stripe = { secretKey: config.stripe.secretKey, instance: new StripeBillingProcessor({ secretKey: config.stripe.secretKey }) };
    }
    return stripe.instance;
  }
  if (config.environment === 'production') {
    throw new ConfigError('STRIPE_SECRET_KEY is required in production (the development billing processor only reads the database)');
  }
  return new DevelopmentBillingProcessor(services.db);
}

export { DevelopmentBillingProcessor, developmentBillingId } from './development';
export { StripeBillingProcessor, accountStateFromStripe, planLookupKey, subscriptionStatusFromStripe } from './stripe';
export type { BillingPlan, BillingProcessor, CancelSubscriptionInput, ChangePlanInput, PayoutAccountState, SubscriptionState } from './types';
export { NOT_CONNECTED } from './types';
