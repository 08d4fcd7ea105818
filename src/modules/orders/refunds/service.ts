import { and, desc, eq, inArray } from 'drizzle-orm';
import { orderEvents, orders, payments, refunds } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Database, Transaction } from '../../../platform/db/client';
import { lockClinic } from '../../../platform/db/clinic-lock';
import { isUniqueViolation } from '../../../platform/db/errors';
import { type MoneyMovements, moneyMovements } from '../../../platform/providers/payments';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { ApiError, conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { centsToAmount } from '../../../platform/values/money';
import { appendLedgerEntries } from '../ledger/entries';
import { availableCents } from '../ledger/sums';
import { insufficientBalance } from '../payouts/service';
import type { RefundData } from './schemas';

/** Refunds are possible until 30 days (30 × 24 h) after the order was created, that instant included. */
export const REFUND_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
const REFUNDS_ORDER_KEY = 'refunds_order_id_key';

const alreadyRefunded = () => conflict('ALREADY_REFUNDED', ERROR_MESSAGES.ALREADY_REFUNDED);

export interface RefundInput {
  orderId: string;
  reason: string;
  refundRequestId?: string | null;
}

/**
 * Issues the full refund of one of the clinic's orders inside `tx` (the caller's transaction). Rules,
 * in this order: the order is the clinic's (404 otherwise, the same for unknown and malformed ids);
 * not refunded yet (409 ALREADY_REFUNDED); paid, i.e. it has a succeeded payment (409 ORDER_NOT_PAID);
 * within 30 days of its creation (400 REFUND_WINDOW_CLOSED); the clinic's available balance covers the
 * brand amount it received (400 INSUFFICIENT_BALANCE). The clinic row and then the order row are
 * locked first, so concurrent refunds and withdrawals cannot spend the same money or refund twice.
 * Then: the processor refunds the order's total; the refunds row, the order (refunded, refundedAt),
 * the payment (refunded), a negative 'refund' ledger entry of the brand amount, and an
 * 'order.refunded' event are written. Any failure (a processor error included) stores nothing.
 */
export async function issueRefund(
  tx: Transaction,
  processor: MoneyMovements,
  clinicId: string,
  input: RefundInput,
  now: Date,
): Promise<RefundData> {
  if (!isUuid(input.orderId)) throw notFound('Order');
  await lockClinic(tx, clinicId);
  const [order] = await tx
    .select({
      id: orders.id,
      orderNumber: orders.orderNumber,
      status: orders.status,
      totalCents: orders.totalCents,
      brandAmountCents: orders.brandAmountCents,
      createdAt: orders.createdAt,
    })
    .from(orders)
    .where(and(eq(orders.clinicId, clinicId), eq(orders.id, input.orderId)))
    .for('update');
  if (!order) throw notFound('Order');
  if (order.status === 'refunded') throw alreadyRefunded();
  const [existing] = await tx
    .select({ id: refunds.id })
    .from(refunds)
    .where(and(eq(refunds.clinicId, clinicId), eq(refunds.orderId, order.id)))
    .limit(1);
  if (existing) throw alreadyRefunded();

  const [payment] = await tx
    .select({ id: payments.id, status: payments.status, processorPaymentId: payments.processorPaymentId })
    .from(payments)
    .where(and(eq(payments.clinicId, clinicId), eq(payments.orderId, order.id), inArray(payments.status, ['succeeded', 'refunded'])))
    .orderBy(desc(payments.succeededAt), desc(payments.createdAt))
    .limit(1);
  if (payment?.status === 'refunded') throw alreadyRefunded();
  if (!payment) throw conflict('ORDER_NOT_PAID', ERROR_MESSAGES.ORDER_NOT_PAID);

  if (now.getTime() - order.createdAt.getTime() > REFUND_WINDOW_MS) {
    const until = new Date(order.createdAt.getTime() + REFUND_WINDOW_MS).toISOString();
    throw new ApiError(
      400,
      'REFUND_WINDOW_CLOSED',
      `Orders can be refunded within 30 days of the order; this one could be refunded until ${until}`,
    );
  }
  const clinicDebitCents = Math.max(order.brandAmountCents, 0);
  const available = await availableCents(tx, clinicId);
  if (clinicDebitCents > available) throw insufficientBalance(clinicDebitCents, available);

  const { processorRefundId } = await processor.refund(
    {
      clinicId,
      processorPaymentId: payment.processorPaymentId,
      amountCents: order.totalCents,
      reason: input.reason,
      idempotencyKey: `refund:${order.id}`,
    },
    { db: tx },
  );
  const [refund] = await tx
    .insert(refunds)
    .values({
      clinicId,
      orderId: order.id,
      amountCents: order.totalCents,
      status: 'succeeded',
      processorRefundId,
      reason: input.reason,
      refundRequestId: input.refundRequestId ?? null,
      createdAt: now,
    })
    .returning();
  await tx
    .update(orders)
    .set({ status: 'refunded', refundedAt: now, updatedAt: now })
    .where(and(eq(orders.clinicId, clinicId), eq(orders.id, order.id)));
  await tx
    .update(payments)
    .set({ status: 'refunded' })
    .where(and(eq(payments.clinicId, clinicId), eq(payments.id, payment.id)));
  if (clinicDebitCents > 0) {
    await appendLedgerEntries(tx, clinicId, [
      {
        type: 'refund',
        amountCents: -clinicDebitCents,
        orderId: order.id,
        refundId: refund!.id,
        description: `Refund of order ${order.orderNumber}`,
        createdAt: now,
      },
    ]);
  }
  await tx.insert(orderEvents).values({
    clinicId,
    orderId: order.id,
    eventType: 'order.refunded',
    actorType: 'brand',
    metadata: { refundId: refund!.id, amountCents: order.totalCents, refundRequestId: input.refundRequestId ?? null },
    createdAt: now,
  });
  return {
    id: refund!.id,
    orderId: order.id,
    orderNumber: order.orderNumber,
    amount: centsToAmount(order.totalCents),
    clinicDebit: centsToAmount(clinicDebitCents),
    status: refund!.status,
    processorRefundId: refund!.processorRefundId,
    reason: refund!.reason,
    refundRequestId: refund!.refundRequestId,
    createdAt: refund!.createdAt.toISOString(),
  };
}

/** Runs `work` in a transaction; a second refund of the same order racing past the checks (23505 on refunds.order_id) is 409 ALREADY_REFUNDED. */
export async function inRefundTransaction<T>(db: Database, work: (tx: Transaction) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(work);
  } catch (error) {
    if (isUniqueViolation(error, REFUNDS_ORDER_KEY)) throw alreadyRefunded();
    throw error;
  }
}

/** POST /refunds: one transaction around issueRefund. */
export function refundOrder(ctx: HandlerContext, input: RefundInput) {
  const processor = moneyMovements(ctx.payments);
  const now = ctx.now();
  return inRefundTransaction(ctx.db, (tx) => issueRefund(tx, processor, ctx.clinicId, input, now));
}
