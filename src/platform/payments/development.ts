import { processorPrices } from '../../../drizzle/schema';
import type { Database, Queryable } from '../db/client';
import type { CreatedPrice, CreatePriceInput, PaymentProcessor } from './types';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** An id shaped like Stripe's (price_ + 24 base62 characters), marked as development: price_dev_... */
export function developmentPriceId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let id = '';
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return `price_dev_${id}`;
}

/**
 * The payment processor for development, tests and sandbox clinics: a price is a row in
 * processor_prices (written in the caller's transaction when one is given), and its id looks like a
 * real one. Nothing leaves the database.
 */
export class DevelopmentPaymentProcessor implements PaymentProcessor {
  readonly name = 'development';

  constructor(private readonly db?: Database) {}

  async createPrice(input: CreatePriceInput, context: { db?: Queryable } = {}): Promise<CreatedPrice> {
    const db = context.db ?? this.db;
    if (!db) throw new Error('DevelopmentPaymentProcessor needs a database (constructor or context.db)');
    const [row] = await db
      .insert(processorPrices)
      .values({
        clinicId: input.clinicId,
        processorPriceId: developmentPriceId(),
        reference: input.reference,
        unitAmountCents: input.unitAmountCents,
        currency: input.currency,
      })
      .returning({ processorPriceId: processorPrices.processorPriceId });
    return { processorPriceId: row!.processorPriceId };
  }
}
