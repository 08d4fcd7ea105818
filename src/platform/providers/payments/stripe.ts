import type Stripe from 'stripe';
import { describeError, logLine } from '../../log';
import { ProviderError } from '../errors';
import { type StripeClientOptions, stripeClientFor } from '../stripe-client';
import {
  type CreatedPrice,
  type CreatedRefund,
  type CreatedTransfer,
  type CreatePriceInput,
  type PaymentProcessor,
  type ProcessorBalance,
  processorRefused,
  processorUnavailable,
  type RefundInput,
  type TransferInput,
} from './types';

export interface StripeProcessorOptions extends StripeClientOptions {
  /**
   * The connected account (acct_...) withdrawals are transferred to. Per-clinic connected accounts
   * belong to the payouts-account issue (GET /stripe/connect/status); until then one destination can
   * be configured (tests use it), and without one withdrawals answer 409 PAYOUT_ACCOUNT_NOT_CONNECTED.
   */
  transferDestination?: string;
}

/** Stripe metadata values are at most 500 characters. */
const metadataValue = (value: string) => value.slice(0, 500);

/** Stripe error types (error.type of the client's errors) that mean "try again later". */
const TRANSIENT_TYPES = new Set(['StripeConnectionError', 'StripeAPIError', 'StripeRateLimitError']);

/** A Stripe client error as a provider failure: transient -> unavailable (503 PAYMENT_PROCESSOR_UNAVAILABLE), else refused (502). */
export function mapStripeError(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  const stripeError = error as { type?: string; statusCode?: number; code?: string; requestId?: string; message?: string };
  const type = typeof stripeError?.type === 'string' ? stripeError.type : '';
  const status = typeof stripeError?.statusCode === 'number' ? stripeError.statusCode : undefined;
  const detail = [
    type || 'unknown error',
    status ? `HTTP ${status}` : '',
    stripeError?.code ?? '',
    stripeError?.requestId ? `request ${stripeError.requestId}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  logLine('warn', 'payment processor call failed', {
    processor: 'stripe',
    type,
    status,
    code: stripeError?.code,
    requestId: stripeError?.requestId,
    error: describeError(error),
  });
  if (TRANSIENT_TYPES.has(type) || (status !== undefined && status >= 500)) return processorUnavailable(detail);
  return processorRefused(detail);
}

/**
 * The production payment processor: Stripe through its official client, on the fetch HTTP client
 * (Stripe.createFetchHttpClient()) so it runs in workerd as in Node. The client module is loaded on
 * the first call, so a Worker without STRIPE_SECRET_KEY never loads it. One instance per isolate is
 * fine: it holds no socket between calls. Prices are created on the platform account; connected
 * accounts (Stripe Connect, per-clinic payouts) belong to the payouts area.
 */
export class StripePaymentProcessor implements PaymentProcessor {
  readonly name = 'stripe';
  constructor(private readonly options: StripeProcessorOptions) {}

  private stripe(): Promise<Stripe> {
    return stripeClientFor(this.options);
  }

  async createPrice(input: CreatePriceInput): Promise<CreatedPrice> {
    const stripe = await this.stripe();
    const metadata = { clinic_id: input.clinicId, reference: input.reference };
    try {
      const price = await stripe.prices.create(
        {
          unit_amount: input.unitAmountCents,
          currency: input.currency,
          product_data: { name: input.productName, metadata },
          metadata,
        },
        { idempotencyKey: input.idempotencyKey },
      );
      if (typeof price?.id !== 'string' || !price.id) throw processorRefused('the answer carried no price id');
      return { processorPriceId: price.id };
    } catch (error) {
      throw mapStripeError(error);
    }
  }

  /**
   * POST /v1/refunds: refunds `amountCents` of the payment (payment_intent for pi_..., charge for ch_...),
   * reason requested_by_customer, the brand's reason and the clinic in metadata.
   */
  async refund(input: RefundInput): Promise<CreatedRefund> {
    const paymentId = input.processorPaymentId;
    if (!paymentId) throw processorRefused('the payment has no processor payment id');
    const stripe = await this.stripe();
    try {
      const refund = await stripe.refunds.create(
        {
          ...(paymentId.startsWith('ch_') ? { charge: paymentId } : { payment_intent: paymentId }),
          amount: input.amountCents,
          reason: 'requested_by_customer',
          metadata: { clinic_id: input.clinicId, reason: metadataValue(input.reason) },
        },
        { idempotencyKey: input.idempotencyKey },
      );
      if (typeof refund?.id !== 'string' || !refund.id) throw processorRefused('the answer carried no refund id');
      if (refund.status === 'failed' || refund.status === 'canceled') throw processorRefused(`the refund ${refund.id} is ${refund.status}`);
      return { processorRefundId: refund.id };
    } catch (error) {
      throw mapStripeError(error);
    }
  }

  /** POST /v1/transfers: `amountCents` in usd to the configured connected account. */
  async transfer(input: TransferInput): Promise<CreatedTransfer> {
    const destination = this.options.transferDestination;
    if (!destination) throw processorRefused('no connected payout account is configured');
    const stripe = await this.stripe();
    try {
      const transfer = await stripe.transfers.create(
        { amount: input.amountCents, currency: 'usd', destination, metadata: { clinic_id: input.clinicId } },
        { idempotencyKey: input.idempotencyKey },
      );
      if (typeof transfer?.id !== 'string' || !transfer.id) throw processorRefused('the answer carried no transfer id');
      return { processorTransferId: transfer.id };
    } catch (error) {
      throw mapStripeError(error);
    }
  }

  payoutsConnected(): boolean {
    return Boolean(this.options.transferDestination);
  }

  /**
   * Until per-clinic connected accounts exist, Stripe's own balance is the platform's (never shown to a
   * clinic), so the ledger's figures are answered, as in development.
   */
  async balance(input: { clinicId: string; ledger: ProcessorBalance }): Promise<ProcessorBalance> {
    return { ...input.ledger };
  }
}
