// Money rows inserted directly (not through the order lifecycle), for the payouts, refunds and
// dashboard tests: order values with a waterfall ending at a brand amount, the charge of a paid order
// (payment and ledger entries), ledger entries, disputes and payouts. Orders themselves: order-fixtures.ts.
import { randomUUID } from 'node:crypto';
import {
  disputes,
  type FeeBreakdownCents,
  type LedgerEntryType,
  ledgerEntries,
  type orders,
  payments,
  payouts,
} from '../../drizzle/schema';
import { orderAmountColumns } from '../../src/modules/orders/orders/lifecycle/create';
import type { Database } from '../../src/platform/db/client';

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

/**
 * Values for `makeOrder` (order-fixtures.ts) the money tests start from: a delivered order created and paid
 * at `at`, its waterfall ending at the brand amount, no shipping state. Spread and override (an unpaid
 * order: `status: 'pending_payment', paidAt: null`).
 */
export function deliveredOrder(totalCents: number, brandAmountCents: number, at = new Date()) {
  return {
    ...orderAmountColumns(feeBreakdown(totalCents, brandAmountCents)),
    status: 'delivered' as const,
    shippingState: null,
    createdAt: at,
    updatedAt: at,
    paidAt: at,
  };
}

/**
 * What the payment webhook records for a paid order: a succeeded payment of the total and the charge's
 * ledger entries (charge +total, each fee negative: net = brand amount), at the order's payment time.
 */
export async function recordCharge(db: Database, order: typeof orders.$inferSelect) {
  const at = order.paidAt ?? order.createdAt;
  const fees = order.feeBreakdown;
  const [payment] = await db
    .insert(payments)
    .values({
      clinicId: order.clinicId,
      orderId: order.id,
      status: 'succeeded',
      amountCents: order.totalCents,
      processorPaymentId: `pi_test_${unique()}`,
      succeededAt: at,
      createdAt: at,
    })
    .returning();
  const entry = (type: LedgerEntryType, amountCents: number) => ({
    clinicId: order.clinicId,
    orderId: order.id,
    type,
    amountCents,
    createdAt: at,
  });
  await db
    .insert(ledgerEntries)
    .values([
      entry('charge', order.totalCents),
      entry('pharmacy_cost', -fees.pharmacyCost),
      entry('doctor_fee', -fees.doctorFee),
      entry('processor_fee', -fees.processorFee),
      entry('platform_fee', -fees.platformFee),
    ]);
  return payment!;
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
