import { sql } from 'drizzle-orm';
import type { HandlerContext } from '../../../platform/context';
import { isoTimestamp as iso, num, rowsOf } from '../../../platform/db/sql';
import { type PageQuery, pageOffset, pagination } from '../../../platform/http/pagination';
import type { HeldSchedule } from './schemas';

const DAY_MS = 86_400_000;

/** Whole days from the due date to now; 0 while not yet due; null without a due date. */
export function daysOverdue(nextRevisitDueAt: string | null, now: Date): number | null {
  if (!nextRevisitDueAt) return null;
  return Math.max(0, Math.floor((now.getTime() - Date.parse(nextRevisitDueAt)) / DAY_MS));
}

type Row = Omit<HeldSchedule, 'daysOverdue'>;

/**
 * The clinic's held schedules (they name patients, so only the key's clinic's), longest held first
 * (held_since, then id; index (clinic_id, status, held_since, id)). One statement with its total.
 */
export async function listHeldSchedules(ctx: HandlerContext, query: PageQuery) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const [row] = await rowsOf<{ total: number | string; items: Row[] }>(
    db,
    sql`
    with page as (
      select id, held_since from titration_schedules
      where clinic_id = ${clinicId} and status = 'held'
      order by held_since asc nulls last, id asc
      limit ${query.limit} offset ${pageOffset(query)}
    )
    select
      (select count(*) from titration_schedules where clinic_id = ${clinicId} and status = 'held') as total,
      (select coalesce(json_agg(json_build_object(
          'id', s.id, 'currentLevel', s.current_level, 'maxLevel', s.max_level, 'status', s.status,
          'nextRevisitDueAt', ${iso(sql`s.next_revisit_due_at`)}, 'lastRevisitAt', ${iso(sql`s.last_revisit_at`)},
          'heldSince', ${iso(sql`s.held_since`)},
          'order', json_build_object('id', o.id, 'orderNumber', o.order_number, 'status', o.status),
          'user', json_build_object('id', pt.id, 'firstName', pt.first_name, 'lastName', pt.last_name),
          'program', case when pr.id is null then null else json_build_object('id', pr.id, 'name', pr.name) end,
          'titrationProtocol', json_build_object('id', tp.id, 'name', tp.name, 'maxLevel', tp.max_level)
        ) order by page.held_since asc nulls last, page.id asc), '[]'::json)
        from page
        join titration_schedules s on s.id = page.id
        join orders o on o.id = s.order_id and o.clinic_id = ${clinicId}
        join patients pt on pt.id = s.patient_id and pt.clinic_id = ${clinicId}
        left join programs pr on pr.id = s.program_id and pr.clinic_id = ${clinicId}
        join titration_protocols tp on tp.id = s.titration_protocol_id) as items`,
  );
  const data: HeldSchedule[] = row!.items.map((s) => ({
    id: s.id,
    currentLevel: s.currentLevel,
    maxLevel: s.maxLevel,
    status: s.status,
    nextRevisitDueAt: s.nextRevisitDueAt,
    lastRevisitAt: s.lastRevisitAt,
    heldSince: s.heldSince,
    daysOverdue: daysOverdue(s.nextRevisitDueAt, now),
    order: s.order,
    user: s.user,
    program: s.program,
    titrationProtocol: s.titrationProtocol,
  }));
  return { data, pagination: pagination(query, num(row!.total)) };
}
