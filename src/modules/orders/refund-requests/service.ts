import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type OrderStatus, refundRequests } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { lockClinic } from '../../../platform/db/clinic-lock';
import { isoTimestamp, rowsOf } from '../../../platform/db/sql';
import { pageOffset, paginate } from '../../../platform/http/pagination';
import { moneyMovements } from '../../../platform/providers/payments';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { centsToAmount } from '../../../platform/values/money';
import type { RefundData } from '../refunds/schemas';
import { inRefundTransaction, issueRefund, REFUND_WINDOW_MS } from '../refunds/service';
import { REFUND_REQUEST_STATUSES, type RefundRequestData, type RefundRequestQuery } from './schemas';

const iso = (column: string) => isoTimestamp(sql.raw(column));

interface RequestRow {
  id: string;
  orderId: string;
  orderNumber: string;
  orderStatus: OrderStatus;
  totalCents: number;
  orderCreatedAt: string;
  refundableUntil: string;
  status: string;
  reason: string | null;
  reviewNotes: string | null;
  decidedAt: string | null;
  createdAt: string;
  patientId: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  refundId: string | null;
  total: number;
}

/** The request, its order, the patient and the refund it issued; `where` is applied to refund_requests rr. */
const requestSelect = (clinicId: string, where: SQL) => sql`
  select rr.id, rr.order_id as "orderId", o.order_number as "orderNumber", o.status as "orderStatus", o.total_cents as "totalCents",
    ${iso('o.created_at')} as "orderCreatedAt",
    ${iso(`o.created_at + interval '${REFUND_WINDOW_MS / 1000} seconds'`)} as "refundableUntil",
    rr.status, rr.reason, rr.review_notes as "reviewNotes", ${iso('rr.decided_at')} as "decidedAt", ${iso('rr.created_at')} as "createdAt",
    p.id as "patientId", p.first_name as "firstName", p.last_name as "lastName", p.email,
    rf.id as "refundId",
    count(*) over()::int as total
  from refund_requests rr
  join orders o on o.id = rr.order_id and o.clinic_id = rr.clinic_id
  left join patients p on p.id = rr.patient_id and p.clinic_id = rr.clinic_id
  left join refunds rf on rf.refund_request_id = rr.id and rf.clinic_id = rr.clinic_id
  where rr.clinic_id = ${clinicId} and ${where}`;

function toRequest(row: Omit<RequestRow, 'total'>): RefundRequestData {
  const status = (REFUND_REQUEST_STATUSES as readonly string[]).includes(row.status)
    ? (row.status as RefundRequestData['status'])
    : 'pending';
  return {
    id: row.id,
    orderId: row.orderId,
    orderNumber: row.orderNumber,
    orderStatus: row.orderStatus,
    amount: centsToAmount(Number(row.totalCents)),
    orderCreatedAt: row.orderCreatedAt,
    refundableUntil: row.refundableUntil,
    status,
    reason: row.reason,
    reviewNotes: row.reviewNotes,
    decidedAt: row.decidedAt,
    createdAt: row.createdAt,
    patient:
      row.patientId && row.email !== null
        ? { id: row.patientId, firstName: row.firstName ?? '', lastName: row.lastName ?? '', email: row.email }
        : null,
    refundId: row.refundId,
  };
}

/** Paged, one statement. With a status filter: newest first. Without: pending ones first, then decided ones, newest first within each. */
export async function listRefundRequests(ctx: HandlerContext, query: RefundRequestQuery) {
  const { db, clinicId } = ctx;
  const where = query.status ? sql`rr.status = ${query.status}` : sql`true`;
  const rows = await rowsOf<RequestRow>(
    db,
    sql`${requestSelect(clinicId, where)}
    order by (rr.status = 'pending') desc, rr.created_at desc, rr.id desc
    limit ${query.limit} offset ${pageOffset(query)}`,
  );
  const page = await paginate(query, rows, () =>
    db.$count(
      refundRequests,
      and(eq(refundRequests.clinicId, clinicId), query.status ? eq(refundRequests.status, query.status) : undefined),
    ),
  );
  return { data: page.rows.map(toRequest), pagination: page.pagination };
}

async function readRequest(db: Queryable, clinicId: string, id: string): Promise<RefundRequestData> {
  const [row] = await rowsOf<RequestRow>(db, requestSelect(clinicId, sql`rr.id = ${id}`));
  if (!row) throw notFound('Refund request');
  return toRequest(row);
}

/**
 * Approves (issuing the refund under every rule of POST /refunds, in the same transaction) or denies
 * a pending request, recording reviewNotes and decidedAt. The clinic row, then the request row, are
 * locked first; a request that is not pending any more answers 409 REFUND_REQUEST_ALREADY_DECIDED.
 * When the refund is refused (window closed, balance, already refunded...), the request stays pending.
 */
export async function decideRefundRequest(
  ctx: HandlerContext,
  id: string,
  action: 'approve' | 'deny',
  reviewNotes: string,
): Promise<{ request: RefundRequestData; refund: RefundData | null }> {
  const { db, clinicId } = ctx;
  // Checked first, as before any other rule: a processor that cannot move money is 502 for deny too.
  const processor = moneyMovements(ctx.payments);
  const now = ctx.now();
  if (!isUuid(id)) throw notFound('Refund request');
  return inRefundTransaction(db, async (tx) => {
    await lockClinic(tx, clinicId);
    const [request] = await tx
      .select({ id: refundRequests.id, orderId: refundRequests.orderId, status: refundRequests.status, reason: refundRequests.reason })
      .from(refundRequests)
      .where(and(eq(refundRequests.clinicId, clinicId), eq(refundRequests.id, id)))
      .for('update');
    if (!request) throw notFound('Refund request');
    if (request.status !== 'pending') {
      throw conflict('REFUND_REQUEST_ALREADY_DECIDED', ERROR_MESSAGES.REFUND_REQUEST_ALREADY_DECIDED(request.status));
    }
    const refund =
      action === 'approve'
        ? await issueRefund(
            tx,
            processor,
            clinicId,
            { orderId: request.orderId, reason: request.reason ?? reviewNotes, refundRequestId: request.id },
            now,
          )
        : null;
    await tx
      .update(refundRequests)
      .set({ status: action === 'approve' ? 'approved' : 'denied', reviewNotes, decidedAt: now })
      .where(and(eq(refundRequests.clinicId, clinicId), eq(refundRequests.id, id)));
    return { request: await readRequest(tx, clinicId, id), refund };
  });
}
