export { DevelopmentBillingProcessor, developmentBillingId, isDevelopmentBillingId } from './development';
export { StripeBillingProcessor, accountStateFromStripe, planLookupKey, subscriptionStatusFromStripe } from './stripe';
export type { BillingPlan, BillingProcessor, CancelSubscriptionInput, ChangePlanInput, PayoutAccountState, SubscriptionState } from './types';
export { NOT_CONNECTED } from './types';
