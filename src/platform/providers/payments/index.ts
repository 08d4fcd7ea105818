import { ConfigError, type AppConfig } from '../../../config/index';
import type { Database } from '../../db/client';
import { DevelopmentPaymentProcessor } from './development';
import { StripePaymentProcessor } from './stripe';
import type { PaymentProcessor } from './types';

// Per isolate: the Stripe client holds no socket between calls, so it may outlive a request.
let stripe: { secretKey: string; instance: StripePaymentProcessor } | undefined;

/**
 * The payment processor of a request: Stripe when STRIPE_SECRET_KEY is set; otherwise the development
 * processor (prices recorded in processor_prices), which production refuses with a ConfigError.
 */
export function paymentsFor(config: Pick<AppConfig, 'environment' | 'stripe'>, db: Database): PaymentProcessor {
  if (config.stripe) {
    if (stripe?.secretKey !== config.stripe.secretKey) {
      stripe = { secretKey: config.stripe.secretKey, instance: new StripePaymentProcessor({ secretKey: config.stripe.secretKey }) };
    }
    return stripe.instance;
  }
  if (config.environment === 'production') {
    throw new ConfigError('STRIPE_SECRET_KEY is required in production (the development payment processor only records prices in the database)');
  }
  return new DevelopmentPaymentProcessor(db);
}

export { DevelopmentPaymentProcessor } from './development';
export { StripePaymentProcessor } from './stripe';
export type { CreatedPrice, CreatePriceInput, CreatedRefund, CreatedTransfer, MoneyMovements, PaymentProcessor, ProcessorBalance, RefundInput, TransferInput } from './types';
export { moneyMovements } from './types';
