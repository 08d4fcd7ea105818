// Orders, payments and ledger entries inserted directly (not through the order lifecycle), for the
// payouts and refunds tests. Every order gets a consistent fee waterfall; a paid order gets a
// succeeded payment and its ledger entries (charge +total, each fee negative: net = brand amount).
import { randomUUID } from 'node:crypto';
import {
  disputes,
  type FeeBreakdownCents,
  type LedgerEntryType,
  ledgerEntries,
  type OrderStatus,
  orders,
  payments,
  payouts,
  refundRequests,
} from '../../drizzle/schema';
import type { Database } from '../../src/platform/db/client';
import { makePatient } from './program-fixtures';

export { makePatient };

const unique = () => randomUUID().slice(0, 8);

/** A waterfall whose parts add up: total = pharmacy + doctor + processor + platform + brand (no tax or shipping). */
export function feeBreakdown(totalCents: number, brandAmountCents: number): FeeBreakdownCents {
  let doctorFee = 1_500;
  let processorFee = Math.round(totalCents * 0.03);
  let platformFee = 500;
  let pharmacyCost = totalCents - brandAmountCents - doctorFee - processorFee - platformFee;
  if (pharmacyCost < 0) {
    [doctorFee, processorFee, platformFee] = [0, 0, 0];
    pharmacyCost = totalCents - brandAmountCents;
  }
  return {
    subtotal: totalCents,
    discount: 0,
    tax: 0,
    shipping: 0,
    total: totalCents,
    pharmacyCost,
    doctorFee,
    processorFee,
    platformFee,
    brandAmount: brandAmountCents,
  };
}

export interface OrderOptions {
  totalCents?: number;
  brandAmountCents?: number;
  createdAt?: Date;
  status?: OrderStatus;
  /** A succeeded payment and the ledger entries of the payment (default true). */
  paid?: boolean;
  processorPaymentId?: string | null;
  patientId?: string;
}

export async function makeOrder(db: Database, clinicId: string, options: OrderOptions = {}) {
  const totalCents = options.totalCents ?? 10_000;
  const brandAmountCents = options.brandAmountCents ?? 6_000;
  const createdAt = options.createdAt ?? new Date();
  const paid = options.paid ?? true;
  const patientId = options.patientId ?? (await makePatient(db, clinicId)).id;
  const fees = feeBreakdown(totalCents, brandAmountCents);
  const [order] = await db
    .insert(orders)
    .values({
      clinicId,
      orderNumber: `TST-${unique()}`,
      patientId,
      status: options.status ?? (paid ? 'delivered' : 'pending_payment'),
      subtotalCents: totalCents,
      totalCents,
      brandAmountCents,
      feeBreakdown: fees,
      paidAt: paid ? createdAt : null,
      createdAt,
      updatedAt: createdAt,
    })
    .returning();
  let payment: typeof payments.$inferSelect | undefined;
  if (paid) {
    [payment] = await db
      .insert(payments)
      .values({
        clinicId,
        orderId: order!.id,
        status: 'succeeded',
        amountCents: totalCents,
        processorPaymentId: options.processorPaymentId === undefined ? `pi_test_${unique()}` : options.processorPaymentId,
        succeededAt: createdAt,
        createdAt,
      })
      .returning();
    await db.insert(ledgerEntries).values([
      { clinicId, orderId: order!.id, type: 'charge', amountCents: totalCents, createdAt },
      { clinicId, orderId: order!.id, type: 'pharmacy_cost', amountCents: -fees.pharmacyCost, createdAt },
      { clinicId, orderId: order!.id, type: 'doctor_fee', amountCents: -fees.doctorFee, createdAt },
      { clinicId, orderId: order!.id, type: 'processor_fee', amountCents: -fees.processorFee, createdAt },
      { clinicId, orderId: order!.id, type: 'platform_fee', amountCents: -fees.platformFee, createdAt },
    ]);
  }
  return { order: order!, payment, patientId };
}

/** One ledger entry (signed cents from the clinic's point of view). */
export async function addLedgerEntry(
  db: Database,
  clinicId: string,
  type: LedgerEntryType,
  amountCents: number,
  values: Partial<typeof ledgerEntries.$inferInsert> = {},
) {
  const [row] = await db
    .insert(ledgerEntries)
    .values({ ...values, clinicId, type, amountCents })
    .returning();
  return row!;
}

export async function makeRefundRequest(
  db: Database,
  clinicId: string,
  orderId: string,
  values: Partial<typeof refundRequests.$inferInsert> = {},
) {
  const [row] = await db
    .insert(refundRequests)
    .values({ reason: 'Changed my mind', ...values, clinicId, orderId })
    .returning();
  return row!;
}

export async function makeDispute(db: Database, clinicId: string, orderId: string, values: Partial<typeof disputes.$inferInsert> = {}) {
  const [row] = await db
    .insert(disputes)
    .values({ amountCents: 5_000, ...values, clinicId, orderId })
    .returning();
  return row!;
}

export async function makePayout(db: Database, clinicId: string, values: Partial<typeof payouts.$inferInsert> = {}) {
  const [row] = await db
    .insert(payouts)
    .values({ type: 'order_transfer', amountCents: 6_000, status: 'paid', ...values, clinicId })
    .returning();
  return row!;
}
