import type { Queryable } from '../db/client';
import { ApiError } from '../http/errors';

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
}

/** Seconds a caller should wait after PAYMENT_PROCESSOR_UNAVAILABLE. */
export const PROCESSOR_RETRY_AFTER_SECONDS = 5;

/** The processor could not be reached or is overloaded (network, timeout, its 5xx or 429): try again. */
export function processorUnavailable(detail: string): ApiError {
  return new ApiError(
    503,
    'PAYMENT_PROCESSOR_UNAVAILABLE',
    `The payment processor is unavailable (${detail}); retry in ${PROCESSOR_RETRY_AFTER_SECONDS} seconds`,
    { retryAfterSeconds: PROCESSOR_RETRY_AFTER_SECONDS },
    { 'Retry-After': String(PROCESSOR_RETRY_AFTER_SECONDS) },
  );
}

/** The processor refused the request (bad credentials, permissions, a request it finds invalid). */
export function processorRefused(detail: string): ApiError {
  return new ApiError(502, 'PAYMENT_PROCESSOR_ERROR', `The payment processor refused the request (${detail})`);
}
