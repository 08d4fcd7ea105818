import { type SQL, sql } from 'drizzle-orm';
import type { HandlerContext } from '../../../platform/context';
import { isoTimestamp, num, rowsOf } from '../../../platform/db/sql';
import { centsToAmount } from '../../../platform/values/money';
import { totalRow, windowParts, windowSums } from '../orders/rollups';
import type { ActivityItem, ActivitySource, EarningsReport, Metrics, Overview, ProjectedRevenue, RevenueChart } from './schemas';
import {
  at,
  bucketStarts,
  checkBuckets,
  DAY_MS,
  GRANULARITY_SQL,
  previousWindow,
  resolveWindow,
  type SeriesQuery,
  type WindowQuery,
  windowOut,
} from './window';

// The dashboard's reads: one SQL statement each, every figure an SQL aggregate (docs/dashboard.md).
// Orders are counted exactly as GET /orders/stats counts them (src/modules/orders/orders/reports.ts): a window
// filters orders by created_at with inclusive bounds; revenue (grossSales) is the totals of the orders
// with paid_at; refunds are the succeeded refunds of those orders. Order and patient figures come
// from the clinic rollups (../orders/rollups.ts), summed by UTC day and hour. Ledger figures are sums over
// ledger_entries as GET /payouts/balance reads them (docs/payouts-and-refunds.md).

const money = (cents: unknown) => centsToAmount(num(cents));

/** The overview's "last 30 days": the same window as GET /dashboard/metrics?period=30d at the same instant. */
export const OVERVIEW_RECENT_DAYS = 30;

/**
 * Order, patient and pending-action figures (held titration schedules included) from the clinic
 * rollups (the total row; the last 30 days from the day/hour buckets and the facts of the partial
 * hours at its ends), so the overview reads a few dozen rows whatever the clinic's size; ledger,
 * disputes and price alerts as before.
 */
export async function dashboardOverview(ctx: HandlerContext): Promise<Overview> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const from = new Date(now.getTime() - OVERVIEW_RECENT_DAYS * DAY_MS);
  const [row] = await rowsOf<Record<string, unknown>>(
    db,
    sql`
    with t as ${totalRow(clinicId)},
    w as ${windowSums(clinicId, from, now)},
    o as (
      select coalesce((select orders from t), 0) as total, coalesce((select paid_orders from t), 0) as paid,
        coalesce((select in_progress_orders from t), 0) as in_progress, w.orders as recent,
        coalesce((select gross_cents from t), 0) as gross, w.gross_cents as gross_recent,
        coalesce((select refunded_cents from t), 0) as refunded
      from w
    ),
    l as (
      select
        coalesce(sum(amount_cents) filter (where type <> 'reserve_forfeit'), 0) as available,
        coalesce(-sum(amount_cents) filter (where type = 'reserve_hold'), 0)
          - coalesce(sum(amount_cents) filter (where type = 'reserve_release'), 0)
          + coalesce(sum(amount_cents) filter (where type = 'reserve_forfeit'), 0) as reserve_held
      from ledger_entries where clinic_id = ${clinicId}
    ),
    pt as (
      select coalesce((select patients from t), 0) as total, w.patients as recent,
        coalesce((select active_patients from t), 0) as active
      from w
    ),
    pa as (
      select
        coalesce((select sum(refund_requests) from clinic_rollups where clinic_id = ${clinicId} and dim = 'refund_request' and key = 'pending'), 0)
          as refund_requests,
        coalesce((select attention_orders from t), 0) as failed_payments,
        (select count(*) from disputes where clinic_id = ${clinicId} and status = 'needs_response') as disputes,
        (select count(*) from price_change_alerts where clinic_id = ${clinicId} and status = 'open') as price_alerts,
        coalesce((select held_schedules from t), 0) as held_schedules
    )
    select o.*, l.available, l.reserve_held, pt.total as patients, pt.recent as new_patients,
      pt.active as active_patients,
      pa.*
    from o, l, pt, pa`,
  );
  const r = row!;
  const pending = {
    refundRequests: num(r.refund_requests),
    failedPayments: num(r.failed_payments),
    disputesNeedingResponse: num(r.disputes),
    openPriceAlerts: num(r.price_alerts),
    heldTitrationSchedules: num(r.held_schedules),
  };
  return {
    asOf: now.toISOString(),
    last30Days: { startDate: from.toISOString(), endDate: now.toISOString() },
    revenue: {
      grossSales: money(r.gross),
      refundedAmount: money(r.refunded),
      netSales: centsToAmount(num(r.gross) - num(r.refunded)),
      grossSalesLast30Days: money(r.gross_recent),
    },
    orders: { total: num(r.total), paid: num(r.paid), inProgress: num(r.in_progress), last30Days: num(r.recent) },
    patients: { total: num(r.patients), active: num(r.active_patients), newLast30Days: num(r.new_patients) },
    balance: { available: money(r.available), reserveHeld: money(r.reserve_held) },
    pendingActions: {
      ...pending,
      total:
        pending.refundRequests +
        pending.failedPayments +
        pending.disputesNeedingResponse +
        pending.openPriceAlerts +
        pending.heldTitrationSchedules,
    },
  };
}

/** A figure this window and the previous one. */
function compare(current: number, previous: number, isMoney: boolean) {
  const change = isMoney ? centsToAmount(current - previous) : current - previous;
  return {
    current: isMoney ? centsToAmount(current) : current,
    previous: isMoney ? centsToAmount(previous) : previous,
    change,
    changePercent: previous === 0 ? null : Math.round(((current - previous) / previous) * 1000) / 10,
  };
}

interface PeriodFigures {
  orders: number;
  paid: number;
  gross: number;
  refunded: number;
  patients: number;
  newPatients: number;
}

export async function dashboardMetrics(ctx: HandlerContext, query: WindowQuery): Promise<Metrics> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const w = resolveWindow(query, now, '30d');
  const prev = previousWindow(w);
  // Both windows from the rollups (whole days and hours from the buckets, the partial hours at the
  // ends from the facts; the previous window ends just before this one starts: [prev.from, w.from)).
  // Distinct ordering patients do not add up over buckets: they are counted from the facts of both
  // windows' orders (an index-only scan of (clinic_id, created_at, patient_id), no orders or refunds).
  const figures = (s: SQL, isCur: boolean) => sql`json_build_object('orders', ${s}.orders, 'paid', ${s}.paid_orders,
    'gross', ${s}.gross_cents, 'refunded', ${s}.refunded_cents, 'newPatients', ${s}.patients,
    'patients', coalesce((select n from dp where cur = ${isCur}), 0))`;
  const [row] = await rowsOf<{ cur: PeriodFigures; prev: PeriodFigures }>(
    db,
    sql`
    with c as ${windowSums(clinicId, w.from, w.to)},
    p as ${windowSums(clinicId, prev.from, w.from, true)},
    dp as (
      select f.created_at >= ${at(w.from)} as cur, count(distinct f.patient_id) as n from order_rollup_facts f
      where f.clinic_id = ${clinicId} and f.created_at >= ${at(prev.from)} and f.created_at <= ${at(w.to)}
      group by 1
    )
    select ${figures(sql`c`, true)} as cur, ${figures(sql`p`, false)} as prev from c, p`,
  );
  const c = row!.cur;
  const p = row!.prev;
  const aov = (f: PeriodFigures) => (num(f.paid) ? Math.round(num(f.gross) / num(f.paid)) : 0);
  return {
    window: windowOut(w),
    previousWindow: { startDate: prev.from.toISOString(), endDate: prev.to.toISOString() },
    orders: compare(num(c.orders), num(p.orders), false),
    paidOrders: compare(num(c.paid), num(p.paid), false),
    revenue: compare(num(c.gross), num(p.gross), true),
    netRevenue: compare(num(c.gross) - num(c.refunded), num(p.gross) - num(p.refunded), true),
    averageOrderValue: compare(aov(c), aov(p), true),
    newPatients: compare(num(c.newPatients), num(p.newPatients), false),
    orderingPatients: compare(num(c.patients), num(p.patients), false),
  };
}

type ByType = Record<string, string | number>;

/** The earnings figures of a type -> cents map (sums made in SQL; here only signs and names). */
function earningsFigures(t: ByType | null) {
  const cents = (type: string) => num(t?.[type]);
  const fees = {
    pharmacyCost: -cents('pharmacy_cost'),
    doctorFee: -cents('doctor_fee'),
    processorFee: -cents('processor_fee'),
    platformFee: -cents('platform_fee'),
  };
  const feesTotal = fees.pharmacyCost + fees.doctorFee + fees.processorFee + fees.platformFee;
  const gross = cents('charge');
  const refunds = -cents('refund');
  const disputes = -(cents('dispute') + cents('dispute_reversal'));
  return {
    gross: centsToAmount(gross),
    fees: {
      pharmacyCost: centsToAmount(fees.pharmacyCost),
      doctorFee: centsToAmount(fees.doctorFee),
      processorFee: centsToAmount(fees.processorFee),
      platformFee: centsToAmount(fees.platformFee),
      total: centsToAmount(feesTotal),
    },
    refunds: centsToAmount(refunds),
    disputes: centsToAmount(disputes),
    net: centsToAmount(gross - feesTotal - refunds - disputes),
    payouts: centsToAmount(-cents('payout')),
  };
}

export async function earningsReport(ctx: HandlerContext, query: WindowQuery): Promise<EarningsReport> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const w = resolveWindow(query, now, '30d');
  // Sums per (month, type) in one pass over the window's entries (index clinic_id, created_at); the
  // window's totals and the months are built from those sums in the same statement.
  const [row] = await rowsOf<{ totals: ByType | null; entries: string | number; months: { month: string; byType: ByType }[] }>(
    db,
    sql`
    with m as (
      select to_char(created_at at time zone 'UTC', 'YYYY-MM') as month, type, sum(amount_cents) as cents, count(*) as n
      from ledger_entries
      where clinic_id = ${clinicId} and created_at >= ${at(w.from)} and created_at <= ${at(w.to)}
      group by 1, 2
    )
    select
      (select json_object_agg(type, cents) from (select type, sum(cents) as cents from m group by type) t) as totals,
      (select coalesce(sum(n), 0) from m) as entries,
      (select coalesce(json_agg(json_build_object('month', month, 'byType', by_type) order by month), '[]'::json)
        from (select month, json_object_agg(type, cents) as by_type from m group by month) x) as months`,
  );
  const r = row!;
  const cents = (type: string) => num(r.totals?.[type]);
  return {
    window: windowOut(w),
    ...earningsFigures(r.totals),
    reserve: {
      held: centsToAmount(-cents('reserve_hold')),
      released: centsToAmount(cents('reserve_release')),
      forfeited: centsToAmount(-cents('reserve_forfeit')),
    },
    entries: num(r.entries),
    byMonth: r.months.map((m) => ({ month: m.month, ...earningsFigures(m.byType) })),
  };
}

interface ActivityRow {
  id: string;
  source: ActivitySource;
  type: string;
  status: string | null;
  orderId: string | null;
  orderNumber: string | null;
  amountCents: number | null;
  occurredAt: string;
}

/** Order events that the payment and refund rows already report (with their amounts). */
const EVENTS_REPORTED_ELSEWHERE = sql`('payment.succeeded', 'payment.failed', 'order.refunded')`;

export async function recentActivity(ctx: HandlerContext, limit: number): Promise<{ items: ActivityItem[] }> {
  const { db, clinicId } = ctx;
  // The newest `limit` rows of each source, then the newest `limit` of those together. Only ids,
  // types, statuses, amounts and times are selected: no patient, address or event metadata.
  const [row] = await rowsOf<{ items: ActivityRow[] }>(
    db,
    sql`
    with ev as (
      select e.id::text as id, 'order_event' as source, e.event_type as type, null::text as status, e.order_id,
        null::integer as amount_cents, e.created_at as at, e.seq as tie
      from order_events e
      where e.clinic_id = ${clinicId} and e.event_type not in ${EVENTS_REPORTED_ELSEWHERE}
      order by e.created_at desc, e.seq desc limit ${limit}
    ),
    pay as (
      select * from (
        select p.id::text as id, 'payment' as source,
          case when p.status = 'failed' then 'payment.failed' else 'payment.succeeded' end as type,
          p.status, p.order_id, p.amount_cents,
          coalesce(case when p.status = 'failed' then p.failed_at else p.succeeded_at end, p.created_at) as at, 0::bigint as tie
        from payments p where p.clinic_id = ${clinicId} and p.status <> 'pending'
      ) x order by at desc limit ${limit}
    ),
    ref as (
      select r.id::text, 'refund', 'refund.' || r.status, r.status, r.order_id, r.amount_cents, r.created_at, 0::bigint
      from refunds r where r.clinic_id = ${clinicId} order by r.created_at desc limit ${limit}
    ),
    po as (
      select p.id::text, 'payout', 'payout.' || p.type, p.status, p.order_id, p.amount_cents, p.created_at, 0::bigint
      from payouts p where p.clinic_id = ${clinicId} order by p.created_at desc, p.id desc limit ${limit}
    ),
    feed as (
      select * from (select * from ev union all select * from pay union all select * from ref union all select * from po) u
      order by at desc, tie desc, id desc limit ${limit}
    )
    select coalesce(json_agg(json_build_object(
        'id', f.id, 'source', f.source, 'type', f.type, 'status', f.status, 'orderId', f.order_id,
        'orderNumber', o.order_number, 'amountCents', f.amount_cents, 'occurredAt', ${isoTimestamp(sql`f.at`)}
      ) order by f.at desc, f.tie desc, f.id desc), '[]'::json) as items
    from feed f left join orders o on o.id = f.order_id and o.clinic_id = ${clinicId}`,
  );
  return {
    items: row!.items.map((i) => ({
      id: i.id,
      source: i.source,
      type: i.type,
      status: i.status,
      orderId: i.orderId,
      orderNumber: i.orderNumber,
      amount: i.amountCents === null ? null : centsToAmount(num(i.amountCents)),
      occurredAt: i.occurredAt,
    })),
  };
}

interface ChartPoint {
  bucket: string;
  orders: number;
  paid: number;
  gross: number;
  refunded: number;
}

export async function revenueChart(ctx: HandlerContext, query: SeriesQuery): Promise<RevenueChart> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const w = resolveWindow(query, now, '30d');
  const granularity = checkBuckets(w, query.granularity);
  const g = GRANULARITY_SQL[granularity];
  const [row] = await rowsOf<{ series: ChartPoint[]; totals: Omit<ChartPoint, 'bucket'> }>(
    db,
    sql`
    with b as (select ${bucketStarts(w, granularity)} as bucket),
    o as (
      select date_trunc(${g}, u.t) as bucket, sum(orders) as orders, sum(paid_orders) as paid, sum(gross_cents) as gross,
        sum(refunded_cents) as refunded
      from ${windowParts(clinicId, w.from, w.to, ['orders', 'paid_orders', 'gross_cents', 'refunded_cents'])} u
      group by 1
    )
    select
      (select json_agg(json_build_object('bucket', to_char(b.bucket, 'YYYY-MM-DD'), 'orders', coalesce(o.orders, 0),
          'paid', coalesce(o.paid, 0), 'gross', coalesce(o.gross, 0), 'refunded', coalesce(o.refunded, 0)) order by b.bucket)
        from b left join o on o.bucket = b.bucket) as series,
      (select json_build_object('orders', coalesce(sum(orders), 0), 'paid', coalesce(sum(paid), 0),
          'gross', coalesce(sum(gross), 0), 'refunded', coalesce(sum(refunded), 0)) from o) as totals`,
  );
  const figures = (p: Omit<ChartPoint, 'bucket'>) => ({
    orders: num(p.orders),
    paidOrders: num(p.paid),
    revenue: money(p.gross),
    refundedAmount: money(p.refunded),
    netRevenue: centsToAmount(num(p.gross) - num(p.refunded)),
  });
  return {
    window: windowOut(w),
    granularity,
    series: (row!.series ?? []).map((p) => ({ bucket: p.bucket, ...figures(p) })),
    totals: figures(row!.totals),
  };
}

interface ProjectionFigures {
  charges: number;
  billed: number;
  net: number;
}

export async function projectedRevenue(ctx: HandlerContext, months: number): Promise<ProjectedRevenue> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months - 1, 1));
  const horizonEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1)); // exclusive
  const utc = (d: Date) => sql`(${at(d)} at time zone 'UTC')`;
  // Each active enrollment with a next charge date charges at max(nextChargeAt, now) and then every
  // billingIntervalMonths months (month arithmetic in UTC) until the horizon, and never after endedAt.
  const [row] = await rowsOf<{
    active: number;
    unscheduled: number;
    totals: ProjectionFigures;
    byMonth: (ProjectionFigures & { month: string; patients: number })[];
    byProgram: (ProjectionFigures & { programId: string; programName: string })[];
  }>(
    db,
    sql`
    with e as (
      select id, patient_id, program_id, charge_amount_cents, net_amount_cents, billing_interval_months, next_charge_at, ended_at
      from enrollments where clinic_id = ${clinicId} and status = 'active'
    ),
    c as (
      select e.patient_id, e.program_id, e.charge_amount_cents, e.net_amount_cents, date_trunc('month', s.at) as month
      from e cross join lateral generate_series(
        greatest(e.next_charge_at, ${at(now)}) at time zone 'UTC', ${utc(horizonEnd)}, make_interval(months => e.billing_interval_months)) as s(at)
      where e.next_charge_at is not null and s.at < ${utc(horizonEnd)}
        and (e.ended_at is null or s.at <= e.ended_at at time zone 'UTC')
    ),
    m as (select generate_series(${utc(monthStart)}, ${utc(lastMonth)}, interval '1 month') as month),
    pm as (
      select month, count(*) as charges, sum(charge_amount_cents) as billed, sum(net_amount_cents) as net, count(distinct patient_id) as patients
      from c group by month
    ),
    pp as (
      select c.program_id, p.name, count(*) as charges, sum(c.charge_amount_cents) as billed, sum(c.net_amount_cents) as net
      from c join programs p on p.id = c.program_id and p.clinic_id = ${clinicId}
      group by c.program_id, p.name
    )
    select
      (select count(*) from e) as active,
      (select count(*) from e where next_charge_at is null) as unscheduled,
      (select json_build_object('charges', count(*), 'billed', coalesce(sum(charge_amount_cents), 0), 'net', coalesce(sum(net_amount_cents), 0)) from c) as totals,
      (select json_agg(json_build_object('month', to_char(m.month, 'YYYY-MM'), 'charges', coalesce(pm.charges, 0),
          'billed', coalesce(pm.billed, 0), 'net', coalesce(pm.net, 0), 'patients', coalesce(pm.patients, 0)) order by m.month)
        from m left join pm on pm.month = m.month) as "byMonth",
      (select coalesce(json_agg(json_build_object('programId', program_id, 'programName', name, 'charges', charges, 'billed', billed, 'net', net)
          order by billed desc, name, program_id), '[]'::json) from pp) as "byProgram"`,
  );
  const r = row!;
  const figures = (f: ProjectionFigures) => ({ charges: num(f.charges), billed: money(f.billed), net: money(f.net) });
  return {
    asOf: now.toISOString(),
    months,
    horizon: { startDate: now.toISOString(), endDate: new Date(horizonEnd.getTime() - 1).toISOString() },
    activeEnrollments: num(r.active),
    unscheduledEnrollments: num(r.unscheduled),
    totals: figures(r.totals),
    byMonth: r.byMonth.map((m) => ({ month: m.month, ...figures(m), patients: num(m.patients) })),
    byProgram: r.byProgram.map((p) => ({ programId: p.programId, programName: p.programName, ...figures(p) })),
  };
}
