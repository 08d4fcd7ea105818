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

/** A rollup column of the clinic's `total` row (0 before the clinic has any). */
export const totalRollup = (clinicId: string, column: string): SQL =>
  sql`coalesce((select ${sql.identifier(column)} from clinic_rollups where clinic_id = ${clinicId} and dim = 'total' and key = ''), 0)`;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const EARLIEST = Date.UTC(1, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const hourKey = (t: number) => new Date(t).toISOString().slice(0, 13);
const dayKey = (t: number) => new Date(t).toISOString().slice(0, 10);
const ts = (t: number) => sql`${new Date(t).toISOString()}::timestamptz`;

/**
 * How a window [from, to] (both inclusive, ms instants; null = open) is summed: whole UTC days from
 * the `day` rows, whole hours at either side from the `hour` rows, and the rows themselves only for
 * the partial hours at the two ends. So a window costs at most ~2 × 24 hour rows, its day rows and
 * two hours of rows, whatever the clinic's size.
 */
export function windowPlan(from: Date | null, to: Date | null) {
  const a = from ? from.getTime() : EARLIEST;
  const b = to ? to.getTime() : LATEST;
  const raw: { from: number; to: number; inclusive: boolean }[] = [];
  const hours: [number, number][] = [];
  const days: [number, number][] = [];
  const h1 = Math.ceil(a / HOUR_MS) * HOUR_MS;
  const e = Math.floor(b / HOUR_MS) * HOUR_MS;
  if (h1 >= e) {
    raw.push({ from: a, to: b, inclusive: true });
  } else {
    if (a < h1) raw.push({ from: a, to: h1, inclusive: false });
    raw.push({ from: e, to: b, inclusive: true });
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
 * One row: each WINDOW_METRICS column summed over the clinic's orders (and patients) created in the
 * window, from the rollup buckets and the facts of the orders at the window's partial-hour ends.
 */
export function windowSums(clinicId: string, from: Date | null, to: Date | null): SQL {
  const plan = windowPlan(from, to);
  const buckets = [
    ...plan.hours.map(([x, y]) => sql`(dim = 'hour' and key >= ${hourKey(x)} and key < ${hourKey(y)})`),
    ...plan.days.map(([x, y]) => sql`(dim = 'day' and key >= ${dayKey(x)} and key < ${dayKey(y)})`),
  ];
  const rawOn = (column: SQL) =>
    sql.join(
      plan.raw.map((r) => sql`(${column} >= ${ts(r.from)} and ${column} ${r.inclusive ? sql`<=` : sql`<`} ${ts(r.to)})`),
      sql` or `,
    );
  const cols = sql.join(
    WINDOW_METRICS.map((m) => sql.identifier(m)),
    sql`, `,
  );
  const parts: SQL[] = [];
  if (buckets.length)
    parts.push(sql`select ${cols} from clinic_rollups where clinic_id = ${clinicId} and (${sql.join(buckets, sql` or `)})`);
  parts.push(
    sql`select ${sql.join(
      WINDOW_METRICS.map((m) => sql`${FACT[m]} as ${sql.identifier(m)}`),
      sql`, `,
    )} from order_rollup_facts f where f.clinic_id = ${clinicId} and (${rawOn(sql`f.created_at`)})`,
  );
  parts.push(
    sql`select ${sql.join(
      WINDOW_METRICS.map((m) => sql`${m === 'patients' ? sql`1` : sql`0`} as ${sql.identifier(m)}`),
      sql`, `,
    )} from patients p where p.clinic_id = ${clinicId} and (${rawOn(sql`p.created_at`)})`,
  );
  return sql`(select ${sql.join(
    WINDOW_METRICS.map((m) => sql`coalesce(sum(${sql.identifier(m)}), 0)::bigint as ${sql.identifier(m)}`),
    sql`, `,
  )} from (${sql.join(parts, sql` union all `)}) u)`;
}
