import { and, desc, eq } from 'drizzle-orm';
import { orders, type PayoutStatus, type PayoutType, patients, payouts } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { lockClinic } from '../../../platform/db/clinic-lock';
import { forClinic } from '../../../platform/db/scoped';
import { type PageQuery, pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { moneyMovements } from '../../../platform/providers/payments';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { ApiError, conflict } from '../../../platform/values/errors';
import { centsToAmount, centsToAmountOrNull } from '../../../platform/values/money';
import { appendLedgerEntries } from '../ledger/entries';
import { availableCents } from '../ledger/sums';
import type { PayoutRowData } from './schemas';

const payoutColumns = {
  id: payouts.id,
  type: payouts.type,
  orderId: payouts.orderId,
  amountCents: payouts.amountCents,
  status: payouts.status,
  processorTransferId: payouts.processorTransferId,
  createdAt: payouts.createdAt,
  orderNumber: orders.orderNumber,
  orderTotalCents: orders.totalCents,
  firstName: patients.firstName,
  lastName: patients.lastName,
  email: patients.email,
};

type PayoutJoined = {
  id: string;
  type: PayoutType;
  orderId: string | null;
  amountCents: number;
  status: PayoutStatus;
  processorTransferId: string | null;
  createdAt: Date;
  orderNumber: string | null;
  orderTotalCents: number | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
};

export function toPayoutRow(row: PayoutJoined): PayoutRowData {
  return {
    id: row.id,
    type: row.type,
    orderId: row.orderId,
    orderNumber: row.orderNumber,
    amount: centsToAmount(row.amountCents),
    totalAmount: centsToAmountOrNull(row.orderTotalCents),
    date: row.createdAt.toISOString(),
    status: row.status,
    processorTransferId: row.processorTransferId,
    customer: row.email === null ? null : { name: `${row.firstName ?? ''} ${row.lastName ?? ''}`.trim(), email: row.email },
  };
}

/** Newest first, one query (payout, its order and the order's patient joined; the total alongside). */
export async function listPayouts(ctx: HandlerContext, query: PageQuery) {
  const { db, clinicId } = ctx;
  const scoped = forClinic(db, clinicId);
  const rows = await db
    .select({ ...payoutColumns, total: totalCount() })
    .from(payouts)
    .leftJoin(orders, and(eq(orders.id, payouts.orderId), eq(orders.clinicId, payouts.clinicId)))
    .leftJoin(patients, and(eq(patients.id, orders.patientId), eq(patients.clinicId, payouts.clinicId)))
    .where(scoped.where(payouts))
    .orderBy(desc(payouts.createdAt), desc(payouts.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => scoped.count(payouts));
  return { data: page.rows.map(toPayoutRow), pagination: page.pagination };
}

export const insufficientBalance = (neededCents: number, availableCentsValue: number) =>
  new ApiError(
    400,
    'INSUFFICIENT_BALANCE',
    `The clinic's withdrawable balance (${centsToAmount(Math.max(availableCentsValue, 0)).toFixed(2)}) does not cover ${centsToAmount(neededCents).toFixed(2)}`,
  );

/**
 * Withdraws `amountCents` of the withdrawable balance to the clinic's payout account, in one
 * transaction: the clinic row is locked first (so concurrent withdrawals run one after the other and
 * cannot overdraw), the balance is summed from the ledger, the processor transfers the money, and the
 * payouts row and its negative 'payout' ledger entry are written. A processor failure stores nothing.
 */
export async function withdraw(ctx: HandlerContext, amountCents: number) {
  const { db, clinicId } = ctx;
  const payments = moneyMovements(ctx.payments);
  const now = ctx.now();
  if (!payments.payoutsConnected(clinicId)) {
    throw conflict('PAYOUT_ACCOUNT_NOT_CONNECTED', ERROR_MESSAGES.PAYOUT_ACCOUNT_NOT_CONNECTED);
  }
  return db.transaction(async (tx) => {
    await lockClinic(tx, clinicId);
    const available = await availableCents(tx, clinicId);
    if (amountCents > available) throw insufficientBalance(amountCents, available);
    const payoutId = crypto.randomUUID();
    const { processorTransferId } = await payments.transfer(
      { clinicId, amountCents, idempotencyKey: `withdrawal:${payoutId}` },
      { db: tx },
    );
    const payout = await forClinic(tx, clinicId).insert(payouts, {
      id: payoutId,
      type: 'withdrawal',
      orderId: null,
      amountCents,
      status: 'paid',
      processorTransferId,
      paidAt: now,
      createdAt: now,
    });
    await appendLedgerEntries(tx, clinicId, [
      { type: 'payout', amountCents: -amountCents, payoutId, description: 'Withdrawal to the payout account', createdAt: now },
    ]);
    return {
      payout: toPayoutRow({ ...payout, orderNumber: null, orderTotalCents: null, firstName: null, lastName: null, email: null }),
      withdrawable: centsToAmount(available - amountCents),
    };
  });
}
