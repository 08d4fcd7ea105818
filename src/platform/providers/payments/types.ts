import type { Queryable } from '../../db/client';
import { ProviderError } from '../errors';

/** What to price: one amount in one currency for one thing a clinic sells. */
export interface CreatePriceInput {
  clinicId: string;
  /** What the price is for, e.g. tenant_product:<uuid>; stored with the price (metadata at Stripe). */
  reference: string;
  /** Integer cents, > 0. */
  unitAmountCents: number;
  /** ISO 4217, lower case ("usd"). */
  currency: string;
  /** The name the processor shows for the product the price belongs to. */
  productName: string;
  /**
   * The same key for the same logical request: a retried call returns the price the first one made
   * instead of creating a second (Stripe's Idempotency-Key header).
   */
  idempotencyKey: string;
}

export interface CreatedPrice {
  /** The processor's id of the new price (price_... at Stripe, price_dev_... in development). */
  processorPriceId: string;
}

/**
 * The payment processor, as far as this API uses it. Implementations: DevelopmentPaymentProcessor
 * (records prices in processor_prices) and StripePaymentProcessor (the official `stripe` client).
 */
export interface PaymentProcessor {
  /** stripe | development: for logs and docs. */
  readonly name: string;
  /**
   * Creates a price. `context.db` is the transaction the caller records the price in: the development
   * processor writes its row there, so a failed update leaves no orphan price. Remote processors ignore it.
   */
  createPrice(input: CreatePriceInput, context?: { db?: Queryable }): Promise<CreatedPrice>;
  /**
   * Gives a charge back to the patient (full amount in this API). Declared optional only so price-only
   * test doubles stay valid; both real processors implement it (use `moneyMovements()` to call it).
   */
  refund?(input: RefundInput, context?: { db?: Queryable }): Promise<CreatedRefund>;
  /** Sends money from the platform to the clinic's payout account (withdrawals). Optional as refund. */
  transfer?(input: TransferInput, context?: { db?: Queryable }): Promise<CreatedTransfer>;
  /** Whether transfers to this clinic can be made now (a connected payout account exists). No I/O. */
  payoutsConnected?(clinicId: string): boolean;
  /**
   * The clinic's balance at the processor, in cents. `ledger` is what the ledger says (available =
   * withdrawable, pending = reserve held): the development processor answers it as is, and so does the
   * Stripe adapter until per-clinic connected accounts exist (the payouts-account issue).
   */
  balance?(input: { clinicId: string; ledger: ProcessorBalance }): Promise<ProcessorBalance>;
}

export interface RefundInput {
  clinicId: string;
  /** The processor's id of the charge to refund (pi_... or ch_... at Stripe). May be null in development data. */
  processorPaymentId: string | null;
  /** Integer cents, > 0. */
  amountCents: number;
  /** The brand's free-text reason (stored with the refund; metadata at Stripe). */
  reason: string;
  /** The same key for the same refund: a retried call returns the first refund (refund:<order id>). */
  idempotencyKey: string;
}

export interface CreatedRefund {
  /** re_... at Stripe, re_dev_... in development. */
  processorRefundId: string;
}

export interface TransferInput {
  clinicId: string;
  /** Integer cents, > 0. */
  amountCents: number;
  /** withdrawal:<payout id>. */
  idempotencyKey: string;
}

export interface CreatedTransfer {
  /** tr_... at Stripe, tr_dev_... in development. */
  processorTransferId: string;
}

export interface ProcessorBalance {
  availableCents: number;
  pendingCents: number;
}

/** A processor's money-moving calls, required (all real processors have them). */
export type MoneyMovements = Required<Pick<PaymentProcessor, 'refund' | 'transfer' | 'payoutsConnected' | 'balance'>> & { name: string };

/** The processor's refund/transfer calls, or a refusal (502 PAYMENT_PROCESSOR_ERROR) for a processor without them (a price-only test double). */
export function moneyMovements(processor: PaymentProcessor): MoneyMovements {
  const { refund, transfer, payoutsConnected, balance } = processor;
  if (!refund || !transfer || !payoutsConnected || !balance) {
    throw processorRefused(`the ${processor.name} processor cannot move money`, processor.name);
  }
  return {
    name: processor.name,
    refund: refund.bind(processor),
    transfer: transfer.bind(processor),
    payoutsConnected: payoutsConnected.bind(processor),
    balance: balance.bind(processor),
  };
}

/** The processor could not be reached or is overloaded (network, timeout, its 5xx or 429): try again. */
export const processorUnavailable = (detail: string, provider = 'stripe') => new ProviderError('payments', provider, 'unavailable', detail);

/** The processor refused the request (bad credentials, permissions, a request it finds invalid). */
export const processorRefused = (detail: string, provider = 'stripe') => new ProviderError('payments', provider, 'refused', detail);
