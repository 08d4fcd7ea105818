import { and, desc, eq, sql } from 'drizzle-orm';
import { questionnaires, type TeleformRemovalStatus, teleformRemovals } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Database } from '../../../platform/db/client';
import { forClinic } from '../../../platform/db/scoped';
import { rowsOf } from '../../../platform/db/sql';
import { pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import type { Sweep } from '../../../platform/sweep';
import { isoOrNull } from '../../../platform/values/dates';
import { conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import type { ListTeleformRemovalsQuery, TeleformRemoval } from './schemas';

const RESOURCE = 'Teleform removal';

const columns = {
  id: teleformRemovals.id,
  formId: teleformRemovals.questionnaireId,
  formName: questionnaires.name,
  reason: teleformRemovals.reason,
  status: teleformRemovals.status,
  scheduledFor: teleformRemovals.scheduledFor,
  cancelReason: teleformRemovals.cancelReason,
  cancelledAt: teleformRemovals.cancelledAt,
  completedAt: teleformRemovals.completedAt,
  createdAt: teleformRemovals.createdAt,
  updatedAt: teleformRemovals.updatedAt,
};

interface Row {
  id: string;
  formId: string;
  formName: string;
  reason: string | null;
  status: TeleformRemovalStatus;
  scheduledFor: Date;
  cancelReason: string | null;
  cancelledAt: Date | null;
  completedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const toRemoval = (row: Row): TeleformRemoval => ({
  id: row.id,
  formId: row.formId,
  formName: row.formName,
  reason: row.reason,
  status: row.status,
  scheduledFor: row.scheduledFor.toISOString(),
  cancelReason: row.cancelReason,
  cancelledAt: isoOrNull(row.cancelledAt),
  completedAt: isoOrNull(row.completedAt),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export async function listTeleformRemovals({ db, clinicId }: HandlerContext, query: ListTeleformRemovalsQuery) {
  const filter = query.status ? eq(teleformRemovals.status, query.status) : undefined;
  const rows = await db
    .select({ ...columns, total: totalCount() })
    .from(teleformRemovals)
    .innerJoin(
      questionnaires,
      and(eq(questionnaires.id, teleformRemovals.questionnaireId), eq(questionnaires.clinicId, teleformRemovals.clinicId)),
    )
    .where(forClinic(db, clinicId).where(teleformRemovals, filter))
    .orderBy(desc(teleformRemovals.createdAt), desc(teleformRemovals.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => forClinic(db, clinicId).count(teleformRemovals, filter));
  return { data: page.rows.map((r) => toRemoval(r as Row)), pagination: page.pagination };
}

/**
 * Cancels a scheduled removal. The row is locked while its state is checked, so a concurrent cancel
 * or the completing sweep cannot interleave: cancelled or completed ones answer 409.
 */
export async function cancelTeleformRemoval(ctx: HandlerContext, id: string, reason: string): Promise<TeleformRemoval> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select(columns)
      .from(teleformRemovals)
      .innerJoin(
        questionnaires,
        and(eq(questionnaires.id, teleformRemovals.questionnaireId), eq(questionnaires.clinicId, teleformRemovals.clinicId)),
      )
      .where(forClinic(tx, clinicId).where(teleformRemovals, eq(teleformRemovals.id, id)))
      .for('update', { of: teleformRemovals });
    if (!current) throw notFound(RESOURCE);
    if (current.status === 'cancelled') throw conflict('CONFLICT', 'The teleform removal is already cancelled');
    if (current.status === 'completed') throw conflict('CONFLICT', 'The teleform removal is already completed and cannot be cancelled');
    const changes = { status: 'cancelled' as const, cancelReason: reason, cancelledAt: now, updatedAt: now };
    await tx
      .update(teleformRemovals)
      .set(changes)
      .where(and(eq(teleformRemovals.clinicId, clinicId), eq(teleformRemovals.id, id)));
    return toRemoval({ ...(current as Row), ...changes });
  });
}

/**
 * Completes every scheduled removal whose time has come (of every clinic: the sweep's work, so it
 * takes the database and the time, not a clinic's context) and deactivates its form (questionnaires.is_active = false), in one statement. Returns how many.
 */
export async function completeDueTeleformRemovals(db: Database, now: Date): Promise<number> {
  const [row] = await rowsOf<{ completed: number }>(
    db,
    sql`
    with due as (
      update ${teleformRemovals}
      set status = 'completed', completed_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
      where status = 'scheduled' and scheduled_for <= ${now.toISOString()}::timestamptz
      returning clinic_id, questionnaire_id
    ), deactivated as (
      update ${questionnaires} q set is_active = false
      from due where q.id = due.questionnaire_id and q.clinic_id = due.clinic_id
      returning q.id
    )
    select count(*)::int as completed from due`,
  );
  return row?.completed ?? 0;
}

/** The cron sweep (src/scheduled.ts). */
export const teleformRemovalSweep: Sweep = async function teleformRemovalSweep(db, now) {
  await completeDueTeleformRemovals(db, now);
};
