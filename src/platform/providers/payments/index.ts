export { DevelopmentPaymentProcessor } from './development';
export { StripePaymentProcessor } from './stripe';
export type { CreatedPrice, CreatePriceInput, CreatedRefund, CreatedTransfer, MoneyMovements, PaymentProcessor, ProcessorBalance, RefundInput, TransferInput } from './types';
export { moneyMovements } from './types';
