import { and, desc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import {
  messageTemplates,
  patients,
  patientTags,
  type SequenceStatus,
  sequenceEnrollments,
  sequenceSteps,
  sequences,
  tags,
} from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable, Transaction } from '../../../platform/db/client';
import { forClinic } from '../../../platform/db/scoped';
import { rowsOf } from '../../../platform/db/sql';
import { pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { conflict, invalidField, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import type {
  CreateSequenceBody,
  ListSequencesQuery,
  ManualTriggerBody,
  ReplaceStepsBody,
  Sequence,
  SequenceAnalytics,
  SequenceStep,
  SequenceTriggerEvent,
  UpdateSequenceBody,
} from './schemas';

const RESOURCE = 'Sequence';

/** Trigger settings kept in sequences.trigger_config. */
export interface TriggerConfig {
  /** tag_added: the tag whose assignments enroll contacts. */
  tagId?: string;
  /** Contacts created (tags added) from this instant on are enrolled by the sweep (docs/crm-sequences.md). */
  since?: string;
}

/** The allowed status moves; staying in the same status is a no-op. Archived is final. */
export const SEQUENCE_TRANSITIONS: Record<SequenceStatus, SequenceStatus[]> = {
  draft: ['active', 'archived'],
  active: ['paused', 'archived'],
  paused: ['active', 'archived'],
  archived: [],
};

const ZERO_ANALYTICS: SequenceAnalytics = { enrolled: 0, active: 0, completed: 0, cancelled: 0, sent: 0, skipped: 0, failed: 0 };

/**
 * The steps and analytics of the sequence in the current row, as correlated subqueries, so a sequence
 * (or a page of them) is one query. Written qualified by hand: Drizzle leaves columns unqualified in a
 * select list.
 */
const stepsJson = sql<SequenceStep[]>`(
  select coalesce(json_agg(json_build_object(
    'id', st."id", 'position', st."position", 'type', st."type", 'timeSeconds', st."time_seconds",
    'useCustomText', st."use_custom_text", 'templateId', st."template_id", 'customText', st."custom_text",
    'customSubject', st."custom_subject") order by st."position"), '[]'::json)
  from "sequence_steps" st where st."sequence_id" = "sequences"."id" and st."clinic_id" = "sequences"."clinic_id")`;

const enrollmentCounts = sql<Pick<SequenceAnalytics, 'enrolled' | 'active' | 'completed' | 'cancelled'>>`(
  select json_build_object(
    'enrolled', count(*)::int,
    'active', (count(*) filter (where e."status" = 'active'))::int,
    'completed', (count(*) filter (where e."status" = 'completed'))::int,
    'cancelled', (count(*) filter (where e."status" = 'cancelled'))::int)
  from "sequence_enrollments" e where e."clinic_id" = "sequences"."clinic_id" and e."sequence_id" = "sequences"."id")`;

const runCounts = sql<Pick<SequenceAnalytics, 'sent' | 'skipped' | 'failed'>>`(
  select json_build_object(
    'sent', (count(*) filter (where r."outcome" = 'sent'))::int,
    'skipped', (count(*) filter (where r."outcome" = 'skipped'))::int,
    'failed', (count(*) filter (where r."outcome" = 'failed'))::int)
  from "sequence_step_runs" r where r."clinic_id" = "sequences"."clinic_id" and r."sequence_id" = "sequences"."id")`;

const withDetails = { sequence: sequences, steps: stepsJson, enrollments: enrollmentCounts, runs: runCounts };

type SequenceRow = typeof sequences.$inferSelect;

export function toSequence(row: SequenceRow, steps: SequenceStep[], analytics: SequenceAnalytics): Sequence {
  const config = row.triggerConfig as TriggerConfig;
  return {
    id: row.id,
    clinicId: row.clinicId,
    name: row.name,
    description: row.description,
    status: row.status,
    isActive: row.status === 'active',
    trigger: { event: row.triggerEvent as SequenceTriggerEvent, tagId: typeof config.tagId === 'string' ? config.tagId : null },
    steps: steps.map((s) => ({
      id: s.id,
      position: s.position,
      type: s.type,
      timeSeconds: s.timeSeconds,
      useCustomText: s.useCustomText,
      templateId: s.templateId,
      customText: s.customText,
      customSubject: s.customSubject,
    })),
    analytics: {
      enrolled: analytics.enrolled,
      active: analytics.active,
      completed: analytics.completed,
      cancelled: analytics.cancelled,
      sent: analytics.sent,
      skipped: analytics.skipped,
      failed: analytics.failed,
    },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const fromDetails = (r: { sequence: SequenceRow; steps: SequenceStep[]; enrollments: object; runs: object }) =>
  toSequence(r.sequence, r.steps, { ...ZERO_ANALYTICS, ...r.enrollments, ...r.runs });

const invalid = invalidField;

export async function listSequences({ db, clinicId }: HandlerContext, query: ListSequencesQuery) {
  const filters: SQL[] = query.status ? [eq(sequences.status, query.status)] : [];
  const rows = await db
    .select({ ...withDetails, total: totalCount() })
    .from(sequences)
    .where(forClinic(db, clinicId).where(sequences, ...filters))
    .orderBy(desc(sequences.createdAt), desc(sequences.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => forClinic(db, clinicId).count(sequences, ...filters));
  return { data: page.rows.map(fromDetails), pagination: page.pagination };
}

/** The sequence, its steps and its analytics, as the request sees it. */
export async function getSequence({ db, clinicId }: HandlerContext, id: string): Promise<Sequence> {
  return readSequence(db, clinicId, id);
}

/** One query: the sequence, its steps and its analytics (enrollments by status, step runs by outcome); inside a transaction too. */
async function readSequence(db: Queryable, clinicId: string, id: string): Promise<Sequence> {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await db
    .select(withDetails)
    .from(sequences)
    .where(forClinic(db, clinicId).where(sequences, eq(sequences.id, id)))
    .limit(1);
  if (!row) throw notFound(RESOURCE);
  return fromDetails(row);
}

/** A tag of the clinic named in a body (trigger settings): 400 naming the field when it is not one. */
async function assertOwnTag(db: Queryable, clinicId: string, tagId: string, field: string) {
  if ((await forClinic(db, clinicId).count(tags, eq(tags.id, tagId))) === 0) throw invalid(field, 'no tag of the clinic has this id');
}

export async function createSequence(ctx: HandlerContext, body: CreateSequenceBody): Promise<Sequence> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (body.triggerTagId) await assertOwnTag(db, clinicId, body.triggerTagId, 'body.triggerTagId');
  const config: TriggerConfig = body.triggerTagId ? { tagId: body.triggerTagId } : {};
  const row = await forClinic(db, clinicId).insert(sequences, {
    name: body.name,
    description: body.description,
    status: 'draft',
    triggerEvent: body.triggerEvent,
    triggerConfig: config as Record<string, unknown>,
    createdBy: null,
    createdAt: now,
    updatedAt: now,
  });
  return toSequence(row, [], ZERO_ANALYTICS);
}

/** The sequence row locked for the rest of the transaction, or 404. */
async function lockSequence(tx: Transaction, clinicId: string, id: string, mode: 'update' | 'share' = 'update') {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await tx
    .select()
    .from(sequences)
    .where(forClinic(tx, clinicId).where(sequences, eq(sequences.id, id)))
    .for(mode);
  if (!row) throw notFound(RESOURCE);
  return row;
}

/**
 * Activation needs at least one step, and every template the steps use must still exist. The
 * templates are locked (FOR SHARE) so a concurrent delete waits for this transaction and then sees
 * the sequence active (and refuses).
 */
async function assertActivatable(tx: Transaction, clinicId: string, sequenceId: string) {
  const steps = await tx
    .select({ position: sequenceSteps.position, templateId: sequenceSteps.templateId })
    .from(sequenceSteps)
    .where(and(eq(sequenceSteps.clinicId, clinicId), eq(sequenceSteps.sequenceId, sequenceId)));
  if (steps.length === 0)
    throw conflict('CONFLICT', 'A sequence without steps cannot be activated; add steps with PUT /sequences/{id}/steps first');
  const templateIds = [...new Set(steps.map((s) => s.templateId).filter((t): t is string => t !== null))];
  if (templateIds.length === 0) return;
  const live = await tx
    .select({ id: messageTemplates.id })
    .from(messageTemplates)
    .where(and(eq(messageTemplates.clinicId, clinicId), inArray(messageTemplates.id, templateIds), isNull(messageTemplates.deletedAt)))
    .for('share');
  const liveIds = new Set(live.map((t) => t.id));
  const missing = steps.find((s) => s.templateId !== null && !liveIds.has(s.templateId));
  if (missing) {
    throw conflict(
      'CONFLICT',
      `Step ${missing.position} uses a message template that has been deleted; replace the steps before activating`,
    );
  }
}

/**
 * A partial update of name, description, status and trigger. Status moves follow SEQUENCE_TRANSITIONS
 * (409 ILLEGAL_TRANSITION otherwise). Archiving cancels the enrollments still in progress. A change of
 * trigger, or the first activation, sets the instant from which the sweep enrolls triggered contacts.
 */
export async function updateSequence(ctx: HandlerContext, id: string, body: UpdateSequenceBody): Promise<Sequence> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const current = await lockSequence(tx, clinicId, id);
    if (current.status === 'archived') throw conflict('ILLEGAL_TRANSITION', 'An archived sequence cannot be changed');
    const status = body.status ?? current.status;
    if (status !== current.status && !SEQUENCE_TRANSITIONS[current.status].includes(status)) {
      throw conflict(
        'ILLEGAL_TRANSITION',
        `A ${current.status} sequence cannot become ${status} (allowed: ${SEQUENCE_TRANSITIONS[current.status].join(', ')})`,
      );
    }

    const currentConfig = current.triggerConfig as TriggerConfig;
    const event = body.triggerEvent ?? (current.triggerEvent as SequenceTriggerEvent);
    const tagId = body.triggerTagId !== undefined ? body.triggerTagId : event === 'tag_added' ? (currentConfig.tagId ?? null) : null;
    if (event === 'tag_added' && !tagId) throw invalid('body.triggerTagId', 'is required when triggerEvent is tag_added');
    if (event !== 'tag_added' && tagId) throw invalid('body.triggerTagId', 'is only allowed when triggerEvent is tag_added');
    if (tagId && tagId !== currentConfig.tagId) await assertOwnTag(tx, clinicId, tagId, 'body.triggerTagId');
    const triggerChanged = event !== current.triggerEvent || (tagId ?? undefined) !== currentConfig.tagId;

    const config: TriggerConfig = {};
    if (tagId) config.tagId = tagId;
    // Triggered enrollment counts events from the first activation, or from a later change of trigger.
    if (current.status === 'draft' && status === 'active') config.since = now.toISOString();
    else if (triggerChanged && status !== 'draft') config.since = now.toISOString();
    else if (currentConfig.since) config.since = currentConfig.since;

    if (status === 'active' && current.status !== 'active') await assertActivatable(tx, clinicId, id);
    if (status === 'archived') {
      await tx
        .update(sequenceEnrollments)
        .set({ status: 'cancelled', nextRunAt: null, updatedAt: now })
        .where(
          and(eq(sequenceEnrollments.clinicId, clinicId), eq(sequenceEnrollments.sequenceId, id), eq(sequenceEnrollments.status, 'active')),
        );
    }
    await tx
      .update(sequences)
      .set({
        name: body.name ?? current.name,
        description: body.description !== undefined ? body.description : current.description,
        status,
        triggerEvent: event,
        triggerConfig: config as Record<string, unknown>,
        updatedAt: now,
      })
      .where(and(eq(sequences.clinicId, clinicId), eq(sequences.id, id)));
    return readSequence(tx, clinicId, id);
  });
}

/**
 * Replaces every step in one transaction. Allowed while the sequence is draft or paused (an active one
 * answers 409: pause it first; archived ones cannot change). Enrollments in progress keep their
 * position: on resume they continue with the new step at that position (docs/crm-sequences.md).
 * Message steps must name one of the clinic's own live templates of the step's type (400 naming the
 * step otherwise; another clinic's template is the same 400 as an unknown id).
 */
export async function replaceSequenceSteps(ctx: HandlerContext, id: string, body: ReplaceStepsBody): Promise<Sequence> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const current = await lockSequence(tx, clinicId, id);
    if (current.status === 'active') throw conflict('CONFLICT', 'The steps of an active sequence cannot be replaced; pause it first');
    if (current.status === 'archived') throw conflict('CONFLICT', 'An archived sequence cannot be changed');

    const templateIds = [
      ...new Set(body.steps.map((s) => (s.type !== 'delay' && !s.useCustomText ? s.templateId : null)).filter((t): t is string => !!t)),
    ];
    const found = templateIds.length
      ? await tx
          .select({ id: messageTemplates.id, type: messageTemplates.type })
          .from(messageTemplates)
          .where(
            and(eq(messageTemplates.clinicId, clinicId), inArray(messageTemplates.id, templateIds), isNull(messageTemplates.deletedAt)),
          )
          .for('share')
      : [];
    const typeOf = new Map(found.map((t) => [t.id, t.type]));
    body.steps.forEach((step, i) => {
      if (step.type === 'delay' || step.useCustomText) return;
      const type = typeOf.get(step.templateId!);
      if (!type) throw invalid(`body.steps.${i}.templateId`, 'no message template of the clinic has this id');
      if (type !== step.type)
        throw invalid(`body.steps.${i}.templateId`, `is a template of type ${type}; ${step.type} steps need ${step.type} templates`);
    });

    await tx.delete(sequenceSteps).where(and(eq(sequenceSteps.clinicId, clinicId), eq(sequenceSteps.sequenceId, id)));
    if (body.steps.length) {
      await tx.insert(sequenceSteps).values(
        body.steps.map((step, position) => {
          const message = step.type !== 'delay';
          const custom = message && step.useCustomText;
          return {
            clinicId,
            sequenceId: id,
            position,
            type: step.type,
            timeSeconds: message ? null : step.timeSeconds!,
            useCustomText: custom,
            templateId: message && !custom ? step.templateId! : null,
            customText: custom ? step.customText! : null,
            customSubject: custom && step.type === 'email' ? step.customSubject! : null,
            createdAt: now,
          };
        }),
      );
    }
    await tx
      .update(sequences)
      .set({ updatedAt: now })
      .where(and(eq(sequences.clinicId, clinicId), eq(sequences.id, id)));
    return readSequence(tx, clinicId, id);
  });
}

/**
 * POST /sequence-triggers/manual: enrolls one contact, or every contact with a tag, in an active
 * sequence. A contact is enrolled in a sequence once (also after completing it): those already
 * enrolled are counted, not enrolled again. The first step runs on the next sweep. The sequence is
 * locked (FOR SHARE) so it cannot be paused or archived halfway.
 */
export async function triggerManually(ctx: HandlerContext, body: ManualTriggerBody) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const current = await lockSequence(tx, clinicId, body.sequenceId, 'share');
    if (current.status !== 'active')
      throw conflict('CONFLICT', `The sequence is ${current.status}; only an active sequence takes enrollments`);
    const enrollment = {
      clinicId,
      sequenceId: current.id,
      status: 'active' as const,
      nextStepPosition: 0,
      nextRunAt: now,
      enrolledAt: now,
      updatedAt: now,
    };

    if (body.userId !== undefined) {
      if (!isUuid(body.userId)) throw notFound('Contact');
      if ((await forClinic(tx, clinicId).count(patients, eq(patients.id, body.userId))) === 0) throw notFound('Contact');
      const inserted = await tx
        .insert(sequenceEnrollments)
        .values({ ...enrollment, patientId: body.userId })
        .onConflictDoNothing({ target: [sequenceEnrollments.sequenceId, sequenceEnrollments.patientId] })
        .returning({ id: sequenceEnrollments.id });
      return { sequenceId: current.id, enrolled: inserted.length, alreadyEnrolled: 1 - inserted.length };
    }

    const tagId = body.tag!;
    if (!isUuid(tagId)) throw notFound('Tag');
    if ((await forClinic(tx, clinicId).count(tags, eq(tags.id, tagId))) === 0) throw notFound('Tag');
    // One statement: the tag's contacts, and those of them not enrolled yet inserted.
    const [row] = await rowsOf<{ targets: number; enrolled: number }>(
      tx,
      sql`
      with targets as (
        select pt."patient_id" as patient_id
        from ${patientTags} pt
        join ${patients} p on p."id" = pt."patient_id" and p."clinic_id" = ${clinicId}
        where pt."clinic_id" = ${clinicId} and pt."tag_id" = ${tagId}
      ), inserted as (
        insert into ${sequenceEnrollments} ("clinic_id", "sequence_id", "patient_id", "status", "next_step_position", "next_run_at", "enrolled_at", "updated_at")
        select ${clinicId}, ${current.id}, patient_id, 'active', 0, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
        from targets
        on conflict ("sequence_id", "patient_id") do nothing
        returning 1
      )
      select (select count(*) from targets)::int as targets, (select count(*) from inserted)::int as enrolled`,
    );
    return { sequenceId: current.id, enrolled: row!.enrolled, alreadyEnrolled: row!.targets - row!.enrolled };
  });
}
