import { type SQL, sql } from 'drizzle-orm';

// Reads of the clinic rollups (drizzle/schema/rollups.ts, migration 0012; docs/orders.md "Rollups").
// The rollups are kept by triggers in the same transaction as every write to the counted rows, so
// these figures are exact: the same as counting the rows, at the cost of a few rows instead of all.

/** The rollup columns a window sums (one row of them). */
export const WINDOW_METRICS = [
  'orders',
  'paid_orders',
  'gross_cents',
  'refunded_orders',
  'refunded_cents',
  'kept_brand_cents',
  'kept_pharmacy_cents',
  'kept_doctor_cents',
  'kept_processor_cents',
  'kept_platform_cents',
  'kept_tax_cents',
  'kept_shipping_cents',
  'patients',
] as const;
export type WindowMetric = (typeof WINDOW_METRICS)[number];

/** Each metric of one order_rollup_facts row f (as the triggers count it). */
const KEPT = sql`f.paid and not f.refunded`;
const FACT: Record<WindowMetric, SQL> = {
  orders: sql`1`,
  paid_orders: sql`f.paid::int`,
  gross_cents: sql`case when f.paid then f.total_cents else 0 end`,
  refunded_orders: sql`f.refunded::int`,
  refunded_cents: sql`case when f.refunded then f.refunded_cents else 0 end`,
  kept_brand_cents: sql`case when ${KEPT} then f.brand_cents else 0 end`,
  kept_pharmacy_cents: sql`case when ${KEPT} then f.pharmacy_cents else 0 end`,
  kept_doctor_cents: sql`case when ${KEPT} then f.doctor_cents else 0 end`,
  kept_processor_cents: sql`case when ${KEPT} then f.processor_cents else 0 end`,
  kept_platform_cents: sql`case when ${KEPT} then f.platform_cents else 0 end`,
  kept_tax_cents: sql`case when ${KEPT} then f.tax_cents else 0 end`,
  kept_shipping_cents: sql`case when ${KEPT} then f.shipping_cents else 0 end`,
  patients: sql`0`,
};

/** Every counter column of clinic_rollups. */
export const COUNTERS = [
  ...WINDOW_METRICS,
  'in_progress_orders',
  'attention_orders',
  'refund_requests',
  'active_patients',
  'held_schedules',
] as const;
export type Counter = (typeof COUNTERS)[number];

// A figure is the sum of its row's slots (migration 0013: concurrent writers of a clinic write
// different slots), so every read sums over `slot`.

/** A rollup column of the clinic's `total` row, summed over its slots (0 before the clinic has any). */
export const totalRollup = (clinicId: string, column: Counter): SQL =>
  sql`coalesce((select sum(${sql.identifier(column)}) from clinic_rollups where clinic_id = ${clinicId} and dim = 'total' and key = ''), 0)`;

/** A rollup column summed over the given keys of one group dim (`status`, `program`) and their slots. */
export const groupRollup = (clinicId: string, dim: 'status' | 'program', keys: readonly string[], column: Counter): SQL =>
  sql`coalesce((select sum(${sql.identifier(column)}) from clinic_rollups where clinic_id = ${clinicId} and dim = ${dim} and key in (${sql.join(
    keys.map((k) => sql`${k}`),
    sql`, `,
  )})), 0)`;

/** One row: every counter of the clinic's `total` row summed over its slots (zeros before it has any). */
export const totalRow = (clinicId: string): SQL =>
  sql`(select ${sql.join(
    COUNTERS.map((c) => sql`coalesce(sum(${sql.identifier(c)}), 0)::bigint as ${sql.identifier(c)}`),
    sql`, `,
  )} from clinic_rollups where clinic_id = ${clinicId} and dim = 'total' and key = '')`;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const EARLIEST = Date.UTC(1, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const hourKey = (t: number) => new Date(t).toISOString().slice(0, 13);
const dayKey = (t: number) => new Date(t).toISOString().slice(0, 10);
const ts = (t: number) => sql`${new Date(t).toISOString()}::timestamptz`;

interface RawRange {
  from: number;
  to: number;
  inclusive: boolean;
}

/**
 * How a window [from, to] (ms instants; null = open; `to` inclusive unless toExclusive) is summed:
 * whole UTC days from the `day` rows, whole hours at either side from the `hour` rows, and the rows
 * themselves only for the partial hours at the two ends. So a window costs at most ~2 × 24 hour rows,
 * its day rows and two hours of rows, whatever the clinic's size. The ends are always read from the
 * rows: created_at has microseconds, so "through 23:59:59.999" is not the whole hour.
 */
export function windowPlan(from: Date | null, to: Date | null, toExclusive = false) {
  const a = from ? from.getTime() : EARLIEST;
  const b = to ? to.getTime() : LATEST;
  const raw: RawRange[] = [];
  const hours: [number, number][] = [];
  const days: [number, number][] = [];
  const h1 = Math.ceil(a / HOUR_MS) * HOUR_MS;
  const e = Math.floor(b / HOUR_MS) * HOUR_MS;
  if (h1 >= e) {
    raw.push({ from: a, to: b, inclusive: !toExclusive });
  } else {
    if (a < h1) raw.push({ from: a, to: h1, inclusive: false });
    if (!toExclusive || e < b) raw.push({ from: e, to: b, inclusive: !toExclusive });
    const d1 = Math.ceil(h1 / DAY_MS) * DAY_MS;
    const d2 = Math.floor(e / DAY_MS) * DAY_MS;
    if (d1 < d2) {
      if (h1 < d1) hours.push([h1, d1]);
      days.push([d1, d2]);
      if (d2 < e) hours.push([d2, e]);
    } else {
      hours.push([h1, e]);
    }
  }
  return { raw, hours, days };
}

/**
 * Whole UTC days of the window [from, to] (inclusive) and the rows of its partial days at the two
 * ends (the per-day groups have no hour rows: the summary scans at most the two end days' facts).
 */
export function dayPlan(from: Date | null, to: Date | null) {
  const a = from ? from.getTime() : EARLIEST;
  const b = to ? to.getTime() : LATEST;
  const d1 = Math.ceil(a / DAY_MS) * DAY_MS;
  const d2 = Math.floor(b / DAY_MS) * DAY_MS;
  if (d1 >= d2) return { raw: [{ from: a, to: b, inclusive: true }], days: null };
  const raw: RawRange[] = [];
  if (a < d1) raw.push({ from: a, to: d1, inclusive: false });
  raw.push({ from: d2, to: b, inclusive: true });
  return { raw, days: { from: dayKey(d1), to: dayKey(d2) } };
}

/** created_at (or another column) within any of the ranges. */
export const inRanges = (column: SQL, ranges: RawRange[]): SQL =>
  ranges.length
    ? sql`(${sql.join(
        ranges.map((r) => sql`(${column} >= ${ts(r.from)} and ${column} ${r.inclusive ? sql`<=` : sql`<`} ${ts(r.to)})`),
        sql` or `,
      )})`
    : sql`false`;

/**
 * The rows a window's metrics are summed from: each with `t` (its bucket's or order's UTC time,
 * timestamp without time zone) and the metrics. Rollup buckets for whole days and hours, the facts
 * (and patients) of the partial hours at the ends. Group by date_trunc(..., t) for a series.
 */
export function windowParts(
  clinicId: string,
  from: Date | null,
  to: Date | null,
  metrics: readonly WindowMetric[],
  toExclusive = false,
): SQL {
  const plan = windowPlan(from, to, toExclusive);
  const cols = sql.join(
    metrics.map((m) => sql.identifier(m)),
    sql`, `,
  );
  const parts: SQL[] = [];
  if (plan.hours.length)
    parts.push(
      sql`select (key || ':00')::timestamp as t, ${cols} from clinic_rollups where clinic_id = ${clinicId} and (${sql.join(
        plan.hours.map(([x, y]) => sql`(dim = 'hour' and key >= ${hourKey(x)} and key < ${hourKey(y)})`),
        sql` or `,
      )})`,
    );
  if (plan.days.length)
    parts.push(
      sql`select key::timestamp as t, ${cols} from clinic_rollups where clinic_id = ${clinicId} and (${sql.join(
        plan.days.map(([x, y]) => sql`(dim = 'day' and key >= ${dayKey(x)} and key < ${dayKey(y)})`),
        sql` or `,
      )})`,
    );
  parts.push(
    sql`select f.created_at at time zone 'UTC' as t, ${sql.join(
      metrics.map((m) => sql`${FACT[m]} as ${sql.identifier(m)}`),
      sql`, `,
    )} from order_rollup_facts f where f.clinic_id = ${clinicId} and ${inRanges(sql`f.created_at`, plan.raw)}`,
  );
  if (metrics.includes('patients'))
    parts.push(
      sql`select p.created_at at time zone 'UTC' as t, ${sql.join(
        metrics.map((m) => sql`${m === 'patients' ? sql`1` : sql`0`} as ${sql.identifier(m)}`),
        sql`, `,
      )} from patients p where p.clinic_id = ${clinicId} and ${inRanges(sql`p.created_at`, plan.raw)}`,
    );
  return sql`(${sql.join(parts, sql` union all `)})`;
}

/**
 * One row: each WINDOW_METRICS column summed over the clinic's orders (and patients) created in the
 * window (see windowParts).
 */
export function windowSums(clinicId: string, from: Date | null, to: Date | null, toExclusive = false): SQL {
  return sql`(select ${sql.join(
    WINDOW_METRICS.map((m) => sql`coalesce(sum(${sql.identifier(m)}), 0)::bigint as ${sql.identifier(m)}`),
    sql`, `,
  )} from ${windowParts(clinicId, from, to, WINDOW_METRICS, toExclusive)} u)`;
}
