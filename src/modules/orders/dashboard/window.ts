import { z } from '@hono/zod-openapi';
import { type SQL, sql } from 'drizzle-orm';
import { badRequest } from '../../../platform/values/errors';
import { toRange, windowBound } from '../orders/schemas';

// The reporting windows of the dashboard and the analytics (docs/dashboard.md, "Windows"). A window is
// either a named period ending now (period=7d|30d|90d|365d) or startDate and endDate, read exactly as
// GET /orders/stats and /orders/summary read them (a date is 00:00:00.000 / 23:59:59.999 UTC of that
// day, a date-time is an instant; both bounds inclusive), so the figures agree with those endpoints.

export const DAY_MS = 86_400_000;

export const PERIODS = ['7d', '30d', '90d', '365d'] as const;
export type Period = (typeof PERIODS)[number];
export const PERIOD_DAYS: Record<Period, number> = { '7d': 7, '30d': 30, '90d': 90, '365d': 365 };

/** A custom window may span at most this many days (about three years). */
export const MAX_WINDOW_DAYS = 1_096;

export const GRANULARITIES = ['day', 'week', 'month'] as const;
export type Granularity = (typeof GRANULARITIES)[number];
/** A time series has at most this many buckets (400 otherwise). */
export const MAX_BUCKETS = 400;

/**
 * Accepted and ignored: the clinic is always the key's. Declared so clients that send it (the brand
 * portal does) see it documented; any value, or none, gives the same answer.
 */
export const ignoredClinicId = z
  .unknown()
  .optional()
  .transform(() => undefined)
  .openapi({ type: 'string', description: "Ignored: the clinic is always the API key's. Any value gives the same answer as none." });

export const windowFields = {
  period: z
    .enum(PERIODS)
    .optional()
    .openapi({ description: 'A window ending now: the last 7, 30, 90 or 365 days. Not together with startDate/endDate.' }),
  startDate: windowBound('2030-01-01', 'Window start, inclusive: a date (YYYY-MM-DD, from 00:00 UTC) or a date-time. Needs endDate.'),
  endDate: windowBound(
    '2030-01-31',
    'Window end, inclusive: a date (YYYY-MM-DD, through 23:59:59.999 UTC) or a date-time. Needs startDate.',
  ),
  clinicId: ignoredClinicId,
};

interface WindowInput {
  period?: Period;
  startDate?: string;
  endDate?: string;
}

export function checkWindow(q: WindowInput, ctx: z.RefinementCtx) {
  if (q.period && (q.startDate || q.endDate)) {
    ctx.addIssue({ code: 'custom', path: ['period'], message: 'give either period or startDate and endDate, not both' });
    return;
  }
  if (Boolean(q.startDate) !== Boolean(q.endDate)) {
    ctx.addIssue({
      code: 'custom',
      path: [q.startDate ? 'endDate' : 'startDate'],
      message: 'startDate and endDate must be given together',
    });
    return;
  }
  const { from, to } = toRange(q);
  if (!from || !to) return;
  if (from > to) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before startDate' });
  else if (to.getTime() - from.getTime() >= MAX_WINDOW_DAYS * DAY_MS) {
    ctx.addIssue({ code: 'custom', path: ['endDate'], message: `the window may span at most ${MAX_WINDOW_DAYS} days` });
  }
}

/** period or startDate + endDate (both optional: the route's default period applies). */
export const windowQuery = z.object(windowFields).superRefine(checkWindow);
export type WindowQuery = z.infer<typeof windowQuery>;

const granularityField = z.enum(GRANULARITIES).optional().openapi({
  description: 'Bucket size (UTC; weeks start on Monday). Default: day for windows up to 92 days, week up to 366 days, month beyond.',
});

/** A window and a bucket size (more than MAX_BUCKETS buckets is a 400, see checkBuckets). */
export const seriesQuery = z.object({ ...windowFields, granularity: granularityField }).superRefine(checkWindow);
export type SeriesQuery = z.infer<typeof seriesQuery>;

/** The resolved window: inclusive instants, and what was asked. */
export interface ResolvedWindow {
  from: Date;
  to: Date;
  period: Period | null;
}

/** The window a validated query names; a period ends at `now`. */
export function resolveWindow(q: WindowInput, now: Date, defaultPeriod: Period): ResolvedWindow {
  if (q.startDate && q.endDate) {
    const { from, to } = toRange(q);
    return { from: from!, to: to!, period: null };
  }
  const period = q.period ?? defaultPeriod;
  return { from: new Date(now.getTime() - PERIOD_DAYS[period] * DAY_MS), to: now, period };
}

/** The window of the same length just before `w` (inclusive bounds, no overlap). */
export function previousWindow(w: ResolvedWindow): { from: Date; to: Date } {
  const to = new Date(w.from.getTime() - 1);
  return { from: new Date(to.getTime() - (w.to.getTime() - w.from.getTime())), to };
}

/** The default bucket size of a window (see granularityField). */
export function defaultGranularity(w: ResolvedWindow): Granularity {
  const days = (w.to.getTime() - w.from.getTime()) / DAY_MS;
  return days <= 92 ? 'day' : days <= 366 ? 'week' : 'month';
}

export const windowSchema = z
  .object({
    period: z
      .enum(PERIODS)
      .nullable()
      .openapi({ description: 'The period asked for (or the default); null for a startDate/endDate window.' }),
    startDate: z.string().datetime().openapi({ description: 'First instant of the window (inclusive, UTC).' }),
    endDate: z.string().datetime().openapi({ description: 'Last instant of the window (inclusive, UTC).' }),
  })
  .openapi('ReportWindow');

export const windowOut = (w: ResolvedWindow) => ({ period: w.period, startDate: w.from.toISOString(), endDate: w.to.toISOString() });

/** Start of the UTC bucket holding `d` (weeks start on Monday, as PostgreSQL's date_trunc('week')). */
function bucketStart(d: Date, g: Granularity): Date {
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (g === 'day') return new Date(day);
  if (g === 'week') return new Date(day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

/** An instant as a timestamptz parameter of a report's SQL. */
export const at = (d: Date): SQL => sql`${d.toISOString()}::timestamptz`;

/** A bucket size as the date_trunc / interval unit literal of a report's SQL. */
export const GRANULARITY_SQL: Record<Granularity, SQL> = { day: sql.raw(`'day'`), week: sql.raw(`'week'`), month: sql.raw(`'month'`) };

/** The start of every UTC bucket of size `g` the window touches, oldest first (a set-returning SQL expression). */
export const bucketStarts = (w: { from: Date; to: Date }, g: Granularity): SQL => {
  const unit = GRANULARITY_SQL[g];
  return sql`generate_series(date_trunc(${unit}, ${at(w.from)} at time zone 'UTC'), date_trunc(${unit}, ${at(w.to)} at time zone 'UTC'), ('1 ' || ${unit})::interval)`;
};

/** How many buckets of size `g` the window touches (date arithmetic on the two bounds only). */
export function bucketCount(w: { from: Date; to: Date }, g: Granularity): number {
  const a = bucketStart(w.from, g);
  const b = bucketStart(w.to, g);
  if (g === 'month') return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth() + 1;
  return Math.round((b.getTime() - a.getTime()) / (g === 'day' ? DAY_MS : 7 * DAY_MS)) + 1;
}

/** The bucket size asked for (or the default), refused with 400 when the window holds too many buckets. */
export function checkBuckets(w: ResolvedWindow, asked: Granularity | undefined): Granularity {
  const g = asked ?? defaultGranularity(w);
  const n = bucketCount(w, g);
  if (n > MAX_BUCKETS) {
    throw badRequest(
      `Invalid query: query.granularity: the window holds ${n} ${g} buckets, more than ${MAX_BUCKETS}; choose a larger granularity or a shorter window`,
    );
  }
  return g;
}
