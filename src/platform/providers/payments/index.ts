export { DevelopmentPaymentProcessor } from './development';
export { StripePaymentProcessor } from './stripe';
export type {
  CreatedPrice,
  CreatedRefund,
  CreatedTransfer,
  CreatePriceInput,
  MoneyMovements,
  PaymentProcessor,
  ProcessorBalance,
  RefundInput,
  TransferInput,
} from './types';
export { moneyMovements } from './types';
