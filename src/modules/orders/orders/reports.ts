import { type SQL, sql } from 'drizzle-orm';
import type { OrderStatus, RefundRequestStatus } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { isoTimestamp as iso, num, rowsOf } from '../../../platform/db/sql';
import { centsToAmount } from '../../../platform/values/money';
import { dayPlan, inRanges, totalRollup, totalRow, windowSums } from './rollups';
import { type NeedsAttention, type OrderStats, type OrderSummary, toRange, type WindowQuery } from './schemas';

// Aggregates over a clinic's orders (stats, the anonymous summary) and the failed-payment queue.
// One statement each. A window filters orders by created_at (inclusive bounds, see toRange).

/** A shipping state with fewer orders than this is never named in the summary. */
export const STATE_ANONYMITY_THRESHOLD = 5;
/** Needs-attention lists at most this many items (count is the full number). */
export const NEEDS_ATTENTION_MAX_ITEMS = 200;

/**
 * From the rollups (./rollups.ts): the clinic's `total` row without a window, else the window's
 * day/hour buckets plus the facts of its partial-hour ends. The same figures as counting the window's
 * orders joined to their succeeded refund (each order has at most one: refunds_order_id_key).
 */
export async function orderStats(ctx: HandlerContext, query: WindowQuery): Promise<OrderStats> {
  const { db, clinicId } = ctx;
  const { from, to } = toRange(query);
  const window = { startDate: query.startDate ?? null, endDate: query.endDate ?? null };
  const source = from || to ? windowSums(clinicId, from, to) : totalRow(clinicId);
  const [found] = await rowsOf<Record<string, string | number | null>>(
    db,
    sql`
    select orders as "totalOrders", paid_orders as "paidOrders", refunded_orders as "refundedOrders",
      gross_cents as "grossCents", refunded_cents as "refundedCents", kept_brand_cents as "brandCents",
      kept_pharmacy_cents as "pharmacyCents", kept_doctor_cents as "doctorCents", kept_processor_cents as "processorCents",
      kept_platform_cents as "platformCents", kept_tax_cents as "taxCents", kept_shipping_cents as "shippingCents"
    from ${source} s`,
  );
  const row = found ?? {};
  const r = row;
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
 * The summary's figures from `r` (dim, key, orders, gross_cents, refunded_cents, refund_requests: one
 * row per group, dims total/status/program/state/refund_request). States are the orders' shipping
 * states (upper-cased); orders without one (pickup) are in no state group.
 */
const summaryOf = (clinicId: string, r: SQL) => sql`
    with r as (${r}),
    st as (select key as state, orders as n from r where dim = 'state' and key <> '' and orders > 0)
    select
      (select coalesce(sum(orders), 0) from r where dim = 'total') as "totalOrders",
      (select coalesce(json_agg(json_build_object('status', key, 'orders', orders) order by orders desc, key), '[]'::json)
        from r where dim = 'status' and orders > 0) as "byStatus",
      (select coalesce(json_agg(json_build_object('programId', nullif(r.key, '')::uuid, 'programName', p.name, 'orders', r.orders,
          'paidCents', r.gross_cents) order by r.orders desc, p.name nulls last, nullif(r.key, '')::uuid nulls last), '[]'::json)
        from r left join programs p on p.id = nullif(r.key, '')::uuid and p.clinic_id = ${clinicId}
        where r.dim = 'program' and r.orders > 0) as "byProgram",
      (select coalesce(json_agg(json_build_object('state', state, 'orders', n) order by n desc, state), '[]'::json)
        from st where n >= ${STATE_ANONYMITY_THRESHOLD}) as "byState",
      (select json_build_object('states', count(*), 'orders', sum(n)) from st where n < ${STATE_ANONYMITY_THRESHOLD} having count(*) > 0) as "otherStates",
      (select coalesce(json_agg(json_build_object('status', key, 'requests', refund_requests) order by key), '[]'::json)
        from r where dim = 'refund_request' and refund_requests > 0) as "refundsByStatus",
      (select coalesce(sum(refunded_cents), 0) from r where dim = 'total') as "approvedCents"`;

/** The summary's figures per (dim, key), summed over the rows that follow (slots, days, facts). */
const SUM_BY_GROUP = sql`select dim, key, sum(orders) as orders, sum(gross_cents) as gross_cents,
  sum(refunded_cents) as refunded_cents, sum(refund_requests) as refund_requests`;

/** The whole clinic's summary from its rollup rows (a few dozen rows, whatever the number of orders). */
async function clinicSummary(db: Queryable, clinicId: string): Promise<SummaryRow> {
  const [row] = await rowsOf<SummaryRow>(
    db,
    summaryOf(
      clinicId,
      sql`${SUM_BY_GROUP}
      from clinic_rollups where clinic_id = ${clinicId} and dim in ('total', 'status', 'program', 'state', 'refund_request')
      group by dim, key`,
    ),
  );
  return row!;
}

/**
 * A window's summary: its whole UTC days from the per-day group rows (`day_status`, `day_program`,
 * `day_state`, `day_refund_request`, `day`; key 'YYYY-MM-DD|group'), the partial days at its ends
 * from the facts of their orders. The same groups as counting the window's orders: refund requests
 * and the approved (succeeded refund) amount are those of the window's orders.
 */
async function windowedSummary(db: Queryable, clinicId: string, query: WindowQuery): Promise<SummaryRow> {
  const { from, to } = toRange(query);
  const plan = dayPlan(from, to);
  const edge = inRanges(sql`f.created_at`, plan.raw);
  const days = plan.days
    ? sql`select case when dim = 'day' then 'total' else substr(dim, 5) end as dim, substr(key, 12) as key,
          orders, gross_cents, refunded_cents, refund_requests
        from clinic_rollups where clinic_id = ${clinicId}
          and dim in ('day', 'day_status', 'day_program', 'day_state', 'day_refund_request')
          and key >= ${plan.days.from} and key < ${plan.days.to}
        union all`
    : sql``;
  const [row] = await rowsOf<SummaryRow>(
    db,
    summaryOf(
      clinicId,
      sql`${SUM_BY_GROUP}
      from (
        ${days}
        select x.dim, x.key, x.orders, x.gross_cents, x.refunded_cents, 0 as refund_requests
        from order_rollup_facts f cross join lateral (values
          ('total', '', 1, 0, case when f.refunded then f.refunded_cents else 0 end),
          ('status', f.status, 1, 0, 0),
          ('program', f.program_key, 1, case when f.paid then f.total_cents else 0 end, 0),
          ('state', f.state_key, 1, 0, 0)
        ) x(dim, key, orders, gross_cents, refunded_cents)
        where f.clinic_id = ${clinicId} and ${edge}
        union all
        select 'refund_request', rr.status, 0, 0, 0, 1
        from order_rollup_facts f cross join lateral unnest(f.refund_request_statuses) rr(status)
        where f.clinic_id = ${clinicId} and ${edge}
      ) u group by dim, key`,
    ),
  );
  return row!;
}

export async function orderSummary(ctx: HandlerContext, query: WindowQuery): Promise<OrderSummary> {
  const { db, clinicId } = ctx;
  const { from, to } = toRange(query);
  const row = from || to ? await windowedSummary(db, clinicId, query) : await clinicSummary(db, clinicId);
  const window = { startDate: query.startDate ?? null, endDate: query.endDate ?? null };
  const r = row;
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
 * cancelled or refunded since. The count is the rollups' `attention_orders`; the items are the newest
 * of the facts' `attention_at` (a partial index on the orders that need attention, newest failure
 * first), so neither grows with the clinic's orders or payments.
 */
export async function needsAttention(ctx: HandlerContext): Promise<NeedsAttention> {
  const { db, clinicId } = ctx;
  const [row] = await rowsOf<{ count: string | number; items: AttentionItem[] }>(
    db,
    sql`
    select
      ${totalRollup(clinicId, 'attention_orders')} as count,
      (select coalesce(json_agg(json_build_object(
          'orderId', o.id, 'orderNumber', o.order_number,
          'patientName', nullif(trim(concat_ws(' ', pt.first_name, pt.last_name)), ''),
          'programName', pr.name, 'paymentFailedAt', ${iso(sql`top.attention_at`)}, 'lastPaymentError', f.failure_reason,
          'orderStatus', o.status, 'amountCents', f.amount_cents, 'totalCents', o.total_cents, 'paymentMethod', f.payment_method,
          'failedAttempts', (select count(*) from payments p where p.clinic_id = ${clinicId} and p.order_id = o.id and p.status = 'failed'),
          'totalAttempts', (select count(*) from payments p where p.clinic_id = ${clinicId} and p.order_id = o.id)
        ) order by top.attention_at desc, top.order_id desc), '[]'::json)
        from (
          select order_id, attention_at, attention_payment_id from order_rollup_facts
          where clinic_id = ${clinicId} and attention_at is not null
          order by attention_at desc nulls last, order_id desc nulls last limit ${NEEDS_ATTENTION_MAX_ITEMS}
        ) top
        join orders o on o.id = top.order_id and o.clinic_id = ${clinicId}
        join payments f on f.id = top.attention_payment_id
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
