export { DevelopmentBillingProcessor, developmentBillingId, isDevelopmentBillingId } from './development';
export { accountStateFromStripe, planLookupKey, StripeBillingProcessor, subscriptionStatusFromStripe } from './stripe';
export type {
  BillingPlan,
  BillingProcessor,
  CancelSubscriptionInput,
  ChangePlanInput,
  PayoutAccountState,
  SubscriptionState,
} from './types';
export { NOT_CONNECTED } from './types';
