import type Stripe from 'stripe';
import { ApiError } from '../http/errors';
import { describeError, logLine } from '../log';
import { processorRefused, processorUnavailable, type CreatedPrice, type CreatePriceInput, type PaymentProcessor } from './types';

export interface StripeProcessorOptions {
  /** STRIPE_SECRET_KEY: sk_live_... or sk_test_... (a restricted key needs write access to Prices). */
  secretKey: string;
  /** Where the API is; Stripe's own (https://api.stripe.com) unless a test points it at a stand-in. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
  /** Retries of network failures, 409s and 5xx (the client sends the same Idempotency-Key). Default 1. */
  maxNetworkRetries?: number;
  /** Whole-request timeout in milliseconds. Default 10 000. */
  timeoutMs?: number;
}

/** Stripe error types (error.type of the client's errors) that mean "try again later". */
const TRANSIENT_TYPES = new Set(['StripeConnectionError', 'StripeAPIError', 'StripeRateLimitError']);

/** A Stripe client error as the API's error: transient -> 503 PAYMENT_PROCESSOR_UNAVAILABLE, else 502 PAYMENT_PROCESSOR_ERROR. */
export function mapStripeError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const stripeError = error as { type?: string; statusCode?: number; code?: string; requestId?: string; message?: string };
  const type = typeof stripeError?.type === 'string' ? stripeError.type : '';
  const status = typeof stripeError?.statusCode === 'number' ? stripeError.statusCode : undefined;
  const detail = [type || 'unknown error', status ? `HTTP ${status}` : '', stripeError?.code ?? '', stripeError?.requestId ? `request ${stripeError.requestId}` : '']
    .filter(Boolean)
    .join(', ');
  logLine('warn', 'payment processor call failed', { processor: 'stripe', type, status, code: stripeError?.code, requestId: stripeError?.requestId, error: describeError(error) });
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
  private client: Promise<Stripe> | undefined;

  constructor(private readonly options: StripeProcessorOptions) {}

  private stripe(): Promise<Stripe> {
    this.client ??= import('stripe').then(({ default: StripeClient }) => {
      const { secretKey, host, port, protocol } = this.options;
      return new StripeClient(secretKey, {
        httpClient: StripeClient.createFetchHttpClient(),
        maxNetworkRetries: this.options.maxNetworkRetries ?? 1,
        timeout: this.options.timeoutMs ?? 10_000,
        telemetry: false,
        appInfo: { name: 'brand-admin-api' },
        ...(host ? { host } : {}),
        ...(port ? { port } : {}),
        ...(protocol ? { protocol } : {}),
      });
    });
    return this.client;
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
}
