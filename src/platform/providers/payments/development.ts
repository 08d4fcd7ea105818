import { processorPrices } from '../../../../drizzle/schema';
import type { Database, Queryable } from '../../db/client';
import type {
  CreatedPrice,
  CreatedRefund,
  CreatedTransfer,
  CreatePriceInput,
  PaymentProcessor,
  ProcessorBalance,
  RefundInput,
  TransferInput,
} from './types';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** An id shaped like Stripe's (<prefix>_ + 24 base62 characters), marked as development: <prefix>_dev_... */
export function developmentId(prefix: 'price' | 're' | 'tr'): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let id = '';
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return `${prefix}_dev_${id}`;
}

/** price_dev_ + 24 base62 characters. */
export const developmentPriceId = () => developmentId('price');

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

  /**
   * A refund in development: nothing leaves the platform, so it is only an id (re_dev_...); the caller
   * stores it on its refunds row, which is the record.
   */
  async refund(input: RefundInput): Promise<CreatedRefund> {
    if (!Number.isInteger(input.amountCents) || input.amountCents <= 0) throw new Error('refund amounts are positive integer cents');
    return { processorRefundId: developmentId('re') };
  }

  /** A transfer in development: an id (tr_dev_...), recorded by the caller on its payouts row. */
  async transfer(input: TransferInput): Promise<CreatedTransfer> {
    if (!Number.isInteger(input.amountCents) || input.amountCents <= 0) throw new Error('transfer amounts are positive integer cents');
    return { processorTransferId: developmentId('tr') };
  }

  /** Development clinics need no payout account. */
  payoutsConnected(): boolean {
    return true;
  }

  /** Derived from the ledger: available = withdrawable, pending = reserve held. */
  async balance(input: { clinicId: string; ledger: ProcessorBalance }): Promise<ProcessorBalance> {
    return { ...input.ledger };
  }
}
