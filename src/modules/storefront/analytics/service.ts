import { type SQL, sql } from 'drizzle-orm';
import type { ProgramState } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { isoTimestamp as iso, num, rowsOf } from '../../../platform/db/sql';
import { type Pagination, pageOffset, pagination } from '../../../platform/http/pagination';
import { notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import {
  at,
  bucketStarts,
  checkBuckets,
  GRANULARITY_SQL,
  type ResolvedWindow,
  resolveWindow,
  type SeriesQuery,
  type WindowQuery,
  windowOut,
} from '../../orders';
import type { FormFunnel, FormSession, FormsAnalytics, LikeCounts, LikesAnalytics, ProgramFunnel, SessionsQuery } from './schemas';

// Intake-form and product-like analytics (docs/analytics.md): one SQL statement per read, every figure
// an SQL aggregate. Sessions are read from form_sessions through its (clinic_id, questionnaire_id,
// started_at) and (clinic_id, program_id, started_at) indexes; likes through (clinic_id,
// tenant_product_id, created_at).

/** The window asked for, or null when none was (analytics default to every session). */
function optionalWindow(q: WindowQuery, now: Date): ResolvedWindow | null {
  return q.period || q.startDate || q.endDate ? resolveWindow(q, now, '30d') : null;
}

const inWindow = (w: ResolvedWindow | null, column: SQL): SQL =>
  w ? sql`and ${column} >= ${at(w.from)} and ${column} <= ${at(w.to)}` : sql``;

/** A nullable SQL number (numeric arrives as a string) as a number or null. */
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** A percentage of two counts, one decimal; null when there is nothing to divide by. */
const rate = (part: number, whole: number): number | null => (whole ? Math.round((part / whole) * 1000) / 10 : null);

/** The session figures of a set of form_sessions rows (aliases match SessionFiguresRow). */
const FIGURES = sql.raw(`
  count(*) as "started",
  count(*) filter (where status = 'completed') as "completed",
  count(*) filter (where status = 'abandoned') as "abandoned",
  count(*) filter (where status = 'started') as "inProgress",
  round(avg(last_step_reached), 2) as "averageStepsReached",
  percentile_cont(0.5) within group (order by last_step_reached) as "medianStepsReached"`);

interface SessionFiguresRow {
  started: number | string;
  completed: number | string;
  abandoned: number | string;
  inProgress: number | string;
  averageStepsReached: number | string | null;
  medianStepsReached: number | string | null;
}

function figures(r: SessionFiguresRow | null | undefined) {
  const started = num(r?.started);
  const completed = num(r?.completed);
  const abandoned = num(r?.abandoned);
  return {
    started,
    completed,
    abandoned,
    inProgress: num(r?.inProgress),
    completionRate: rate(completed, started),
    abandonmentRate: rate(abandoned, started),
    averageStepsReached: numOrNull(r?.averageStepsReached),
    medianStepsReached: numOrNull(r?.medianStepsReached),
  };
}

const windowOrNull = (w: ResolvedWindow | null) => (w ? windowOut(w) : null);

export async function formsAnalytics(ctx: HandlerContext, query: WindowQuery): Promise<FormsAnalytics> {
  const { db, clinicId } = ctx;
  const w = optionalWindow(query, ctx.now());
  // One pass over the window's sessions, grouped per form and in total at once (grouping sets).
  const [row] = await rowsOf<{
    totals: SessionFiguresRow | null;
    forms: {
      formId: string;
      name: string;
      isActive: boolean;
      f: (SessionFiguresRow & { averageTotalSteps: number | null; lastStartedAt: string | null }) | null;
    }[];
  }>(
    db,
    sql`
    with s as (
      select questionnaire_id, grouping(questionnaire_id) as g, ${FIGURES},
        round(avg(total_steps), 2) as "averageTotalSteps", ${iso(sql`max(started_at)`)} as "lastStartedAt"
      from form_sessions
      where clinic_id = ${clinicId} ${inWindow(w, sql`started_at`)}
      group by grouping sets ((questionnaire_id), ())
    )
    select
      (select row_to_json(s) from s where g = 1) as totals,
      (select coalesce(json_agg(json_build_object('formId', q.id, 'name', q.name, 'isActive', q.is_active, 'f', row_to_json(s))
          order by coalesce(s."started", 0) desc, q.name, q.id), '[]'::json)
        from questionnaires q left join s on s.questionnaire_id = q.id and s.g = 0
        where q.clinic_id = ${clinicId}) as forms`,
  );
  return {
    window: windowOrNull(w),
    totals: figures(row!.totals),
    forms: row!.forms.map((f) => ({
      formId: f.formId,
      name: f.name,
      isActive: f.isActive,
      ...figures(f.f),
      averageTotalSteps: numOrNull(f.f?.averageTotalSteps),
      lastStartedAt: f.f?.lastStartedAt ?? null,
    })),
  };
}

interface FunnelRow {
  owner: Record<string, unknown>;
  summary: SessionFiguresRow;
  funnel: { step: number; reached: number | string; abandonedHere: number | string; inProgressHere: number | string }[];
  sessions: FormSession[];
  total: number | string;
  byForm?: { formId: string; name: string; started: number | string; completed: number | string; abandoned: number | string }[];
}

const SESSION_JSON = sql`json_build_object('id', id, 'formId', questionnaire_id, 'programId', program_id, 'status', status,
  'lastStepReached', last_step_reached, 'totalSteps', total_steps,
  'startedAt', ${iso(sql`started_at`)}, 'completedAt', ${iso(sql`completed_at`)}, 'abandonedAt', ${iso(sql`abandoned_at`)})`;

/**
 * The funnel of the sessions of one form or one program, in one statement: the owner row (no row:
 * 404), the figures, the per-step funnel (a histogram of last steps summed from the last step down),
 * the page of sessions and its total.
 */
async function funnelOf(
  db: Queryable,
  clinicId: string,
  owner: { select: SQL; sessionFilter: SQL; byForm: boolean },
  query: SessionsQuery,
  now: Date,
): Promise<{ row: FunnelRow | undefined; window: ResolvedWindow | null }> {
  const w = optionalWindow(query, now);
  const listed = query.status ? sql`where status = ${query.status}` : sql``;
  const byForm = owner.byForm
    ? sql`, (select coalesce(json_agg(json_build_object('formId', bf.questionnaire_id, 'name', q.name, 'started', bf.started,
          'completed', bf.completed, 'abandoned', bf.abandoned) order by bf.started desc, q.name, q.id), '[]'::json)
        from (select questionnaire_id, count(*) as started, count(*) filter (where status = 'completed') as completed,
                count(*) filter (where status = 'abandoned') as abandoned
              from s group by questionnaire_id) bf
        join questionnaires q on q.id = bf.questionnaire_id and q.clinic_id = ${clinicId}) as "byForm"`
    : sql``;
  const [row] = await rowsOf<FunnelRow>(
    db,
    sql`
    with owner as (${owner.select}),
    s as (
      select id, questionnaire_id, program_id, status, last_step_reached, total_steps, started_at, completed_at, abandoned_at
      from form_sessions
      where clinic_id = ${clinicId} and ${owner.sessionFilter} ${inWindow(w, sql`started_at`)}
    ),
    h as (
      select last_step_reached as step, count(*) as n,
        count(*) filter (where status = 'abandoned') as abandoned, count(*) filter (where status = 'started') as in_progress
      from s group by 1
    ),
    steps as (select generate_series(1, (select coalesce(max(total_steps), 0) from s)) as step),
    f as (
      select steps.step, sum(coalesce(h.n, 0)) over (order by steps.step desc) as reached,
        coalesce(h.abandoned, 0) as abandoned, coalesce(h.in_progress, 0) as in_progress
      from steps left join h on h.step = steps.step
    )
    select
      row_to_json(owner) as owner,
      (select row_to_json(x) from (select ${FIGURES} from s) x) as summary,
      (select coalesce(json_agg(json_build_object('step', step, 'reached', reached, 'abandonedHere', abandoned, 'inProgressHere', in_progress)
          order by step), '[]'::json) from f) as funnel,
      (select coalesce(json_agg(${SESSION_JSON} order by started_at desc, id desc), '[]'::json)
        from (select * from s ${listed} order by started_at desc, id desc limit ${query.limit} offset ${pageOffset(query)}) p) as sessions,
      (select count(*) from s ${listed}) as total
      ${byForm}
    from owner`,
  );
  return { row, window: w };
}

function funnelBody(row: FunnelRow, w: ResolvedWindow | null, query: SessionsQuery) {
  const summary = figures(row.summary);
  return {
    body: {
      window: windowOrNull(w),
      summary,
      funnel: row.funnel.map((s) => ({
        step: num(s.step),
        reached: num(s.reached),
        reachedPercent: rate(num(s.reached), summary.started),
        abandonedHere: num(s.abandonedHere),
        inProgressHere: num(s.inProgressHere),
      })),
      sessions: row.sessions.map((s) => ({
        id: s.id,
        formId: s.formId,
        programId: s.programId,
        status: s.status,
        lastStepReached: s.lastStepReached,
        totalSteps: s.totalSteps,
        startedAt: s.startedAt,
        completedAt: s.completedAt,
        abandonedAt: s.abandonedAt,
      })),
    },
    pagination: pagination(query, num(row.total)),
  };
}

export async function formFunnel(
  ctx: HandlerContext,
  formId: string,
  query: SessionsQuery,
): Promise<{ data: FormFunnel; pagination: Pagination }> {
  const { db, clinicId } = ctx;
  if (!isUuid(formId)) throw notFound('Form');
  const { row, window } = await funnelOf(
    db,
    clinicId,
    {
      select: sql`select id, name, is_active as "isActive" from questionnaires where clinic_id = ${clinicId} and id = ${formId}`,
      sessionFilter: sql`questionnaire_id = ${formId}`,
      byForm: false,
    },
    query,
    ctx.now(),
  );
  if (!row) throw notFound('Form');
  const owner = row.owner as { id: string; name: string; isActive: boolean };
  const { body, pagination: page } = funnelBody(row, window, query);
  return { data: { form: { id: owner.id, name: owner.name, isActive: owner.isActive }, ...body }, pagination: page };
}

export async function programFunnel(
  ctx: HandlerContext,
  programId: string,
  query: SessionsQuery,
): Promise<{ data: ProgramFunnel; pagination: Pagination }> {
  const { db, clinicId } = ctx;
  if (!isUuid(programId)) throw notFound('Program');
  const { row, window } = await funnelOf(
    db,
    clinicId,
    {
      select: sql`select id, name, state from programs where clinic_id = ${clinicId} and id = ${programId}`,
      sessionFilter: sql`program_id = ${programId}`,
      byForm: true,
    },
    query,
    ctx.now(),
  );
  if (!row) throw notFound('Program');
  const owner = row.owner as { id: string; name: string; state: ProgramState };
  const { body, pagination: page } = funnelBody(row, window, query);
  return {
    data: {
      program: { id: owner.id, name: owner.name, state: owner.state },
      ...body,
      byForm: (row.byForm ?? []).map((f) => ({
        formId: f.formId,
        name: f.name,
        started: num(f.started),
        completed: num(f.completed),
        abandoned: num(f.abandoned),
        completionRate: rate(num(f.completed), num(f.started)),
      })),
    },
    pagination: page,
  };
}

export async function likesAnalytics(ctx: HandlerContext, tenantProductId: string, query: SeriesQuery): Promise<LikesAnalytics> {
  const { db, clinicId } = ctx;
  if (!isUuid(tenantProductId)) throw notFound('Tenant product');
  const w = resolveWindow(query, ctx.now(), '30d');
  const granularity = checkBuckets(w, query.granularity);
  const g = GRANULARITY_SQL[granularity];
  const windowed = sql`created_at >= ${at(w.from)} and created_at <= ${at(w.to)}`;
  const [row] = await rowsOf<{
    id: string;
    globalProductId: string;
    name: string;
    total: number | string;
    uniquePatients: number | string;
    firstLikedAt: string | null;
    lastLikedAt: string | null;
    inWindow: number | string;
    uniqueInWindow: number | string;
    series: { bucket: string; likes: number | string }[];
  }>(
    db,
    sql`
    with tp as (
      select tp.id, tp.global_product_id, gp.name
      from tenant_products tp join global_products gp on gp.id = tp.global_product_id
      where tp.clinic_id = ${clinicId} and tp.id = ${tenantProductId}
    ),
    l as (select created_at, patient_id from product_likes where clinic_id = ${clinicId} and tenant_product_id = ${tenantProductId}),
    b as (select ${bucketStarts(w, granularity)} as bucket),
    wl as (select date_trunc(${g}, created_at at time zone 'UTC') as bucket, count(*) as n from l where ${windowed} group by 1)
    select tp.id, tp.global_product_id as "globalProductId", tp.name,
      (select count(*) from l) as total,
      (select count(distinct patient_id) from l) as "uniquePatients",
      (select ${iso(sql`min(created_at)`)} from l) as "firstLikedAt",
      (select ${iso(sql`max(created_at)`)} from l) as "lastLikedAt",
      (select count(*) from l where ${windowed}) as "inWindow",
      (select count(distinct patient_id) from l where ${windowed}) as "uniqueInWindow",
      (select json_agg(json_build_object('bucket', to_char(b.bucket, 'YYYY-MM-DD'), 'likes', coalesce(wl.n, 0)) order by b.bucket)
        from b left join wl on wl.bucket = b.bucket) as series
    from tp`,
  );
  if (!row) throw notFound('Tenant product');
  return {
    tenantProductId: row.id,
    globalProductId: row.globalProductId,
    productName: row.name,
    totalLikes: num(row.total),
    uniquePatients: num(row.uniquePatients),
    firstLikedAt: row.firstLikedAt,
    lastLikedAt: row.lastLikedAt,
    window: windowOut(w),
    granularity,
    likesInWindow: num(row.inWindow),
    uniquePatientsInWindow: num(row.uniqueInWindow),
    series: (row.series ?? []).map((b) => ({ bucket: b.bucket, likes: num(b.likes) })),
  };
}

/**
 * Like counts of many tenant products in one read-only statement. Only the clinic's own tenant
 * products count (joined with the clinic filter); an unknown id or another clinic's answers 0, so the
 * answer tells nothing about other clinics.
 */
export async function likeCounts({ db, clinicId }: HandlerContext, tenantProductIds: string[]): Promise<LikeCounts> {
  const ids = [...new Set(tenantProductIds.map((id) => id.toLowerCase()))];
  // Validated uuids, sent as one array parameter.
  const idArray = sql`${`{${ids.join(',')}}`}::uuid[]`;
  const [row] = await rowsOf<{ counts: { tenantProductId: string; likes: number | string }[]; total: number | string }>(
    db,
    sql`
    with c as (
      select l.tenant_product_id, count(*) as n
      from product_likes l
      join tenant_products tp on tp.id = l.tenant_product_id and tp.clinic_id = ${clinicId}
      where l.clinic_id = ${clinicId} and l.tenant_product_id = any(${idArray})
      group by l.tenant_product_id
    )
    select
      coalesce(json_agg(json_build_object('tenantProductId', x.id, 'likes', coalesce(c.n, 0)) order by x.ord), '[]'::json) as counts,
      coalesce(sum(c.n), 0) as total
    from unnest(${idArray}) with ordinality as x(id, ord)
    left join c on c.tenant_product_id = x.id`,
  );
  return {
    counts: row!.counts.map((c) => ({ tenantProductId: c.tenantProductId, likes: num(c.likes) })),
    total: num(row!.total),
  };
}
