import { type SQL, sql } from 'drizzle-orm';
import type { OrderStatus, RefundRequestStatus } from '../../../../drizzle/schema';
import type { Queryable } from '../../../platform/db/client';
import { isoTimestamp as iso, num, rowsOf } from '../../../platform/db/sql';
import { centsToAmount } from '../../../platform/http/money';
import { type NeedsAttention, type OrderStats, type OrderSummary, toRange, type WindowQuery } from './schemas';

// Aggregates over a clinic's orders (stats, the anonymous summary) and the failed-payment queue.
// One statement each. A window filters orders by created_at (inclusive bounds, see toRange).

/** Refunds that moved money back to the patient. */
const REFUNDED = sql`'succeeded'`;
/** Orders a failed payment no longer concerns. */
const CLOSED_STATUSES = sql`('cancelled', 'refunded')`;
/** A shipping state with fewer orders than this is never named in the summary. */
export const STATE_ANONYMITY_THRESHOLD = 5;
/** Needs-attention lists at most this many items (count is the full number). */
export const NEEDS_ATTENTION_MAX_ITEMS = 200;

function windowOf(clinicId: string, query: WindowQuery): { where: SQL; window: { startDate: string | null; endDate: string | null } } {
  const { from, to } = toRange(query);
  const conditions = [sql`o.clinic_id = ${clinicId}`];
  if (from) conditions.push(sql`o.created_at >= ${from.toISOString()}::timestamptz`);
  if (to) conditions.push(sql`o.created_at <= ${to.toISOString()}::timestamptz`);
  return { where: sql.join(conditions, sql` and `), window: { startDate: query.startDate ?? null, endDate: query.endDate ?? null } };
}

export async function orderStats(db: Queryable, clinicId: string, query: WindowQuery): Promise<OrderStats> {
  const { where, window } = windowOf(clinicId, query);
  // One pass over the window's orders; each order has at most one refund (refunds_order_id_key).
  const [row] = await rowsOf<Record<string, string | number | null>>(
    db,
    sql`
    select
      count(*) as "totalOrders",
      count(*) filter (where o.paid_at is not null) as "paidOrders",
      count(r.order_id) as "refundedOrders",
      coalesce(sum(o.total_cents) filter (where o.paid_at is not null), 0) as "grossCents",
      coalesce(sum(r.amount_cents), 0) as "refundedCents",
      coalesce(sum(o.brand_amount_cents) filter (where kept), 0) as "brandCents",
      coalesce(sum((o.fee_breakdown->>'pharmacyCost')::bigint) filter (where kept), 0) as "pharmacyCents",
      coalesce(sum((o.fee_breakdown->>'doctorFee')::bigint) filter (where kept), 0) as "doctorCents",
      coalesce(sum((o.fee_breakdown->>'processorFee')::bigint) filter (where kept), 0) as "processorCents",
      coalesce(sum((o.fee_breakdown->>'platformFee')::bigint) filter (where kept), 0) as "platformCents",
      coalesce(sum(o.tax_cents) filter (where kept), 0) as "taxCents",
      coalesce(sum(o.shipping_cents) filter (where kept), 0) as "shippingCents"
    from orders o
    left join refunds r on r.order_id = o.id and r.clinic_id = ${clinicId} and r.status = ${REFUNDED}
    cross join lateral (select o.paid_at is not null and r.order_id is null as kept) k
    where ${where}`,
  );
  const r = row!;
  const paidOrders = num(r.paidOrders);
  const gross = num(r.grossCents);
  const refunded = num(r.refundedCents);
  return {
    window,
    totalOrders: num(r.totalOrders),
    paidOrders,
    refundedOrders: num(r.refundedOrders),
    grossSales: centsToAmount(gross),
    refundedAmount: centsToAmount(refunded),
    netSales: centsToAmount(gross - refunded),
    brandEarnings: centsToAmount(num(r.brandCents)),
    averageOrderValue: paidOrders ? centsToAmount(Math.round(gross / paidOrders)) : 0,
    fees: {
      pharmacyCost: centsToAmount(num(r.pharmacyCents)),
      doctorFee: centsToAmount(num(r.doctorCents)),
      processorFee: centsToAmount(num(r.processorCents)),
      platformFee: centsToAmount(num(r.platformCents)),
      tax: centsToAmount(num(r.taxCents)),
      shipping: centsToAmount(num(r.shippingCents)),
    },
  };
}

interface SummaryRow {
  totalOrders: string | number;
  byStatus: { status: OrderStatus; orders: number }[];
  byProgram: { programId: string | null; programName: string | null; orders: number; paidCents: number | string }[];
  byState: { state: string; orders: number }[];
  otherStates: { states: number; orders: number } | null;
  refundsByStatus: { status: RefundRequestStatus; requests: number }[];
  approvedCents: string | number;
}

/**
 * The Orders summary: counts and sums only. States are the orders' shipping states (upper-cased);
 * orders without one (pickup) are in no state group. Refund requests and refunds are those of the
 * orders in the window. Nothing here can name an order, a date, a patient or a medication.
 */
export async function orderSummary(db: Queryable, clinicId: string, query: WindowQuery): Promise<OrderSummary> {
  const { where, window } = windowOf(clinicId, query);
  // One pass over the window's orders, grouped three ways at once (grouping sets); refund requests
  // and refunds are few and joined to the window's orders by primary key.
  const [row] = await rowsOf<SummaryRow>(
    db,
    sql`
    with g as (
      select grouping(o.status) as by_status, grouping(o.program_id) as by_program,
        o.status, o.program_id, upper(o.shipping_state) as state, count(*)::int as n,
        coalesce(sum(o.total_cents) filter (where o.paid_at is not null), 0) as paid
      from orders o where ${where}
      group by grouping sets ((o.status), (o.program_id), (upper(o.shipping_state)))
    ),
    st as (select state, n from g where by_status = 1 and by_program = 1 and state is not null)
    select
      (select coalesce(sum(n), 0) from g where by_status = 0) as "totalOrders",
      (select coalesce(json_agg(json_build_object('status', status, 'orders', n) order by n desc, status), '[]'::json)
        from g where by_status = 0) as "byStatus",
      (select coalesce(json_agg(json_build_object('programId', g.program_id, 'programName', p.name, 'orders', g.n, 'paidCents', g.paid)
          order by g.n desc, p.name nulls last, g.program_id), '[]'::json)
        from g left join programs p on p.id = g.program_id and p.clinic_id = ${clinicId}
        where g.by_program = 0) as "byProgram",
      (select coalesce(json_agg(json_build_object('state', state, 'orders', n) order by n desc, state), '[]'::json)
        from st where n >= ${STATE_ANONYMITY_THRESHOLD}) as "byState",
      (select json_build_object('states', count(*), 'orders', sum(n)) from st where n < ${STATE_ANONYMITY_THRESHOLD} having count(*) > 0) as "otherStates",
      (select coalesce(json_agg(json_build_object('status', status, 'requests', n) order by status), '[]'::json)
        from (select rr.status, count(*)::int as n from refund_requests rr join orders o on o.id = rr.order_id
              where rr.clinic_id = ${clinicId} and ${where} group by rr.status) x) as "refundsByStatus",
      (select coalesce(sum(r.amount_cents), 0) from refunds r join orders o on o.id = r.order_id
        where r.clinic_id = ${clinicId} and r.status = ${REFUNDED} and ${where}) as "approvedCents"`,
  );
  const r = row!;
  return {
    window,
    totalOrders: num(r.totalOrders),
    byStatus: r.byStatus.map((s) => ({ status: s.status, orders: num(s.orders) })),
    byProgram: r.byProgram.map((p) => ({
      programId: p.programId,
      programName: p.programName,
      orders: num(p.orders),
      paidSales: centsToAmount(num(p.paidCents)),
    })),
    byState: r.byState.map((s) => ({ state: s.state, orders: num(s.orders) })),
    otherStates: r.otherStates ? { states: num(r.otherStates.states), orders: num(r.otherStates.orders) } : null,
    refunds: {
      byStatus: r.refundsByStatus.map((s) => ({ status: s.status, requests: num(s.requests) })),
      approvedAmount: centsToAmount(num(r.approvedCents)),
    },
  };
}

interface AttentionItem {
  orderId: string;
  orderNumber: string;
  patientName: string | null;
  programName: string | null;
  paymentFailedAt: string | null;
  lastPaymentError: string | null;
  orderStatus: OrderStatus;
  amountCents: number;
  totalCents: number;
  paymentMethod: string;
  failedAttempts: number;
  totalAttempts: number;
}

/**
 * Orders whose latest payment attempt failed (latest: created_at, then id), unless the order was
 * cancelled or refunded since. Found from the failed payments (index on clinic_id, status) with no
 * later attempt of the same order (index on clinic_id, order_id, created_at); newest failure first.
 */
export async function needsAttention(db: Queryable, clinicId: string): Promise<NeedsAttention> {
  const [row] = await rowsOf<{ count: string | number; items: AttentionItem[] }>(
    db,
    sql`
    with q as materialized (
      select f.id as payment_id, f.order_id, f.failure_reason, f.payment_method, f.amount_cents,
        coalesce(f.failed_at, f.created_at) as failed_at
      from payments f
      join orders o on o.id = f.order_id and o.clinic_id = ${clinicId}
      where f.clinic_id = ${clinicId} and f.status = 'failed' and o.status not in ${CLOSED_STATUSES}
        and not exists (
          select 1 from payments later
          where later.clinic_id = ${clinicId} and later.order_id = f.order_id
            and (later.created_at > f.created_at or (later.created_at = f.created_at and later.id > f.id)))
    )
    select
      (select count(*) from q) as count,
      (select coalesce(json_agg(json_build_object(
          'orderId', o.id, 'orderNumber', o.order_number,
          'patientName', nullif(trim(concat_ws(' ', pt.first_name, pt.last_name)), ''),
          'programName', pr.name, 'paymentFailedAt', ${iso(sql`top.failed_at`)}, 'lastPaymentError', top.failure_reason,
          'orderStatus', o.status, 'amountCents', top.amount_cents, 'totalCents', o.total_cents, 'paymentMethod', top.payment_method,
          'failedAttempts', (select count(*) from payments p where p.clinic_id = ${clinicId} and p.order_id = o.id and p.status = 'failed'),
          'totalAttempts', (select count(*) from payments p where p.clinic_id = ${clinicId} and p.order_id = o.id)
        ) order by top.failed_at desc, o.id desc), '[]'::json)
        from (select * from q order by failed_at desc, order_id desc limit ${NEEDS_ATTENTION_MAX_ITEMS}) top
        join orders o on o.id = top.order_id
        left join patients pt on pt.id = o.patient_id
        left join programs pr on pr.id = o.program_id) as items`,
  );
  return {
    count: num(row!.count),
    items: row!.items.map((i) => ({
      orderId: i.orderId,
      orderNumber: i.orderNumber,
      patientName: i.patientName,
      programName: i.programName,
      paymentFailedAt: i.paymentFailedAt,
      lastPaymentError: i.lastPaymentError,
      enrichment: {
        orderStatus: i.orderStatus,
        amount: centsToAmount(num(i.amountCents)),
        totalAmount: centsToAmount(num(i.totalCents)),
        paymentMethod: i.paymentMethod,
        failedAttempts: num(i.failedAttempts),
        totalAttempts: num(i.totalAttempts),
      },
    })),
  };
}
