// The sequence runner: the Worker's cron sweep enrolls triggered contacts and advances due
// enrollments step by step (docs/crm-sequences.md, "The runner").
import { and, asc, eq, lte, notInArray, type SQL, sql } from 'drizzle-orm';
import {
  clinics,
  messageTemplates,
  patients,
  type SequenceRunOutcome,
  type SequenceStepType,
  sequenceEnrollments,
  sequenceStepRuns,
  sequenceSteps,
  sequences,
} from '../../../../drizzle/schema';
import type { Database, Transaction } from '../../../platform/db/client';
import { rowsOf } from '../../../platform/db/sql';
import { describeError, logLine } from '../../../platform/log';
import type { MessageSender } from '../../../platform/providers/messaging';
import type { Sweep } from '../../../platform/sweep';
import { contactReachColumns } from '../contacts/service';
import { type MergeValues, renderMergeFields } from '../message-templates/merge-fields';
import { bodyMarkupProblem } from '../message-templates/schemas';

/** Enrollments loaded and advanced per transaction. */
export const SEQUENCE_BATCH_SIZE = 100;
/** Steps (of any enrollments) one sweep runs at most; the rest wait for the next sweep. */
export const SEQUENCE_STEPS_PER_SWEEP = 1_000;
/** Triggered enrollments (contact_created, tag_added) one sweep makes at most, per trigger kind. */
export const TRIGGER_ENROLLMENTS_PER_SWEEP = 1_000;
/** The sweep looks this far back for created contacts and added tags (and never before the trigger's start). */
export const TRIGGER_LOOKBACK_MS = 86_400_000;

export interface SequenceRunStats {
  /** Contacts enrolled by contact_created and tag_added triggers. */
  enrolled: number;
  /** Steps run (delays scheduled, messages sent, skipped or failed) plus enrollments completed. */
  steps: number;
  sent: number;
  skipped: number;
  failed: number;
  completed: number;
}

const emptyStats = (): SequenceRunStats => ({ enrolled: 0, steps: 0, sent: 0, skipped: 0, failed: 0, completed: 0 });
const add = (into: SequenceRunStats, from: SequenceRunStats) => {
  for (const key of Object.keys(into) as (keyof SequenceRunStats)[]) into[key] += from[key];
};

/**
 * Enrolls contacts of active and paused sequences triggered by contact_created (patients created)
 * and tag_added (the tag assigned) since the trigger started, looking back at most TRIGGER_LOOKBACK_MS.
 * Idempotent: a contact is enrolled in a sequence once (the unique index, and the anti-join).
 */
async function enrollTriggered(db: Database, now: Date): Promise<number> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const from = sql`greatest((s."trigger_config"->>'since')::timestamptz, ${new Date(now.getTime() - TRIGGER_LOOKBACK_MS).toISOString()}::timestamptz)`;
  const insert = (source: SQL) => sql`
    insert into "sequence_enrollments" ("clinic_id", "sequence_id", "patient_id", "status", "next_step_position", "next_run_at", "enrolled_at", "updated_at")
    select s."clinic_id", s."id", t.patient_id, 'active', 0, ${at}, ${at}, ${at}
    from "sequences" s
    join lateral (${source}) t on true
    where s."status" in ('active', 'paused') and s."trigger_config"->>'since' is not null
      and not exists (select 1 from "sequence_enrollments" x where x."sequence_id" = s."id" and x."patient_id" = t.patient_id)
    limit ${TRIGGER_ENROLLMENTS_PER_SWEEP}
    on conflict ("sequence_id", "patient_id") do nothing
    returning 1`;
  const created = await rowsOf(
    db,
    insert(sql`
    select p."id" as patient_id from "patients" p
    where s."trigger_event" = 'contact_created' and p."clinic_id" = s."clinic_id" and p."created_at" >= ${from} and p."created_at" <= ${at}`),
  );
  const tagged = await rowsOf(
    db,
    insert(sql`
    select pt."patient_id" as patient_id from "patient_tags" pt
    where s."trigger_event" = 'tag_added' and pt."clinic_id" = s."clinic_id"
      and pt."tag_id" = (s."trigger_config"->>'tagId')::uuid and pt."created_at" >= ${from} and pt."created_at" <= ${at}`),
  );
  return created.length + tagged.length;
}

/**
 * Due enrollments with everything their next step needs, locked (SKIP LOCKED: parallel sweeps share the
 * work). The enrollments are locked in a CTE that returns their current row, and the step is joined on
 * that row's position. Locking them in the same SELECT as the joins would not do: when another sweep
 * has just advanced an enrollment, PostgreSQL re-checks the locked row against the join rows the scan
 * found first (the previous step's), so the next step would read as missing and the enrollment as done.
 */
function loadDue(tx: Transaction, now: Date, limit: number, exclude: Set<string>, onlyId: string | null) {
  const e = sequenceEnrollments;
  const conditions: SQL[] = [eq(e.status, 'active'), lte(e.nextRunAt, now)];
  if (exclude.size) conditions.push(notInArray(e.id, [...exclude]));
  if (onlyId) conditions.push(eq(e.id, onlyId));
  const due = tx.$with('due').as(
    tx
      .select({
        id: e.id,
        clinicId: e.clinicId,
        sequenceId: e.sequenceId,
        patientId: e.patientId,
        position: e.nextStepPosition,
        nextRunAt: e.nextRunAt,
      })
      .from(e)
      .innerJoin(sequences, and(eq(sequences.id, e.sequenceId), eq(sequences.clinicId, e.clinicId), eq(sequences.status, 'active')))
      .innerJoin(clinics, and(eq(clinics.id, e.clinicId), eq(clinics.isActive, true)))
      .innerJoin(patients, and(eq(patients.id, e.patientId), eq(patients.clinicId, e.clinicId)))
      .where(and(...conditions))
      .orderBy(asc(e.nextRunAt))
      .limit(limit)
      .for('update', { of: e, skipLocked: true }),
  );
  return tx
    .with(due)
    .select({
      id: due.id,
      clinicId: due.clinicId,
      sequenceId: due.sequenceId,
      patientId: due.patientId,
      position: due.position,
      stepCount: sql<number>`(select count(*)::int from "sequence_steps" c where c."sequence_id" = ${due.sequenceId} and c."clinic_id" = ${due.clinicId})`,
      stepType: sequenceSteps.type,
      timeSeconds: sequenceSteps.timeSeconds,
      useCustomText: sequenceSteps.useCustomText,
      customText: sequenceSteps.customText,
      customSubject: sequenceSteps.customSubject,
      templateId: sequenceSteps.templateId,
      templateType: messageTemplates.type,
      templateSubject: messageTemplates.subject,
      templateBody: messageTemplates.body,
      templateDeletedAt: messageTemplates.deletedAt,
      ...contactReachColumns,
      clinicName: clinics.name,
    })
    .from(due)
    .innerJoin(clinics, eq(clinics.id, due.clinicId))
    .innerJoin(patients, and(eq(patients.id, due.patientId), eq(patients.clinicId, due.clinicId)))
    .leftJoin(
      sequenceSteps,
      and(eq(sequenceSteps.sequenceId, due.sequenceId), eq(sequenceSteps.clinicId, due.clinicId), eq(sequenceSteps.position, due.position)),
    )
    .leftJoin(messageTemplates, and(eq(messageTemplates.id, sequenceSteps.templateId), eq(messageTemplates.clinicId, due.clinicId)))
    .orderBy(asc(due.nextRunAt));
}
type DueEnrollment = Awaited<ReturnType<typeof loadDue>>[number];

interface PlannedRun {
  item: DueEnrollment;
  outcome: SequenceRunOutcome;
  reason: string | null;
  message: { channel: 'email' | 'sms'; to: string; subject: string | null; body: string; format: 'text' | 'html' } | null;
}

/** What the message step of this enrollment does: send (rendered), or skip / fail with a reason. */
function planMessage(item: DueEnrollment, type: Exclude<SequenceStepType, 'delay'>): PlannedRun {
  const skip = (reason: string): PlannedRun => ({ item, outcome: 'skipped', reason, message: null });
  const fail = (reason: string): PlannedRun => ({ item, outcome: 'failed', reason, message: null });
  let subject: string | null;
  let body: string;
  if (item.useCustomText) {
    subject = item.customSubject;
    body = item.customText ?? '';
  } else {
    if (!item.templateType || item.templateDeletedAt) return fail('template_deleted');
    if (item.templateType !== type) return fail('template_type_mismatch');
    subject = item.templateSubject;
    body = item.templateBody ?? '';
  }
  const values: MergeValues = { firstName: item.firstName, lastName: item.lastName, email: item.email, clinicName: item.clinicName };
  if (type === 'email') {
    if (item.emailOptedOut) return skip('email_opted_out');
    if (!item.email) return skip('no_email');
    // The email renderer: the body is HTML within the allow-list (checked when saved, and here again so a
    // body saved before the rule is never sent), merge values are HTML-escaped into it, and it goes to
    // the provider as the HTML part (docs/api-conventions.md, "Markup in stored fields").
    if (bodyMarkupProblem('email', body)) return fail('unsafe_markup');
    return {
      item,
      outcome: 'sent',
      reason: null,
      message: {
        channel: 'email',
        to: item.email,
        subject: renderMergeFields(subject ?? '', values),
        body: renderMergeFields(body, values, { html: true }),
        format: 'html',
      },
    };
  }
  if (item.smsOptedOut) return skip('sms_opted_out');
  if (!item.phoneNumber) return skip('no_phone');
  return {
    item,
    outcome: 'sent',
    reason: null,
    message: { channel: 'sms', to: item.phoneNumber, subject: null, body: renderMergeFields(body, values), format: 'text' },
  };
}

interface Advance {
  id: string;
  status: 'active' | 'completed';
  position: number;
  nextRunAt: Date | null;
  completedAt: Date | null;
}

/**
 * Runs the next step of each loaded enrollment inside `tx`: the step runs (one insert, ON CONFLICT DO
 * NOTHING on (enrollment_id, step_position): a step already recorded is never sent again), the
 * messages of the runs that were inserted, then one update of the runs' message ids and one of the
 * enrollments. Everything commits together, so a crash leaves either all of it or none.
 */
async function advance(tx: Transaction, items: DueEnrollment[], now: Date, sender: MessageSender): Promise<SequenceRunStats> {
  const stats = emptyStats();
  const planned: PlannedRun[] = [];
  const advances: Advance[] = [];
  for (const item of items) {
    const next = item.position + 1;
    if (item.position >= item.stepCount || !item.stepType) {
      advances.push({ id: item.id, status: 'completed', position: item.position, nextRunAt: null, completedAt: now });
      stats.completed++;
      continue;
    }
    stats.steps++;
    if (item.stepType === 'delay') {
      const wait = Math.max(0, item.timeSeconds ?? 0) * 1000;
      advances.push({ id: item.id, status: 'active', position: next, nextRunAt: new Date(now.getTime() + wait), completedAt: null });
      continue;
    }
    planned.push(planMessage(item, item.stepType));
    if (next >= item.stepCount) {
      advances.push({ id: item.id, status: 'completed', position: next, nextRunAt: null, completedAt: now });
      stats.completed++;
    } else {
      advances.push({ id: item.id, status: 'active', position: next, nextRunAt: now, completedAt: null });
    }
  }

  if (planned.length) {
    const inserted = await tx
      .insert(sequenceStepRuns)
      .values(
        planned.map((p) => ({
          clinicId: p.item.clinicId,
          sequenceId: p.item.sequenceId,
          enrollmentId: p.item.id,
          stepPosition: p.item.position,
          stepType: p.item.stepType!,
          outcome: p.outcome,
          reason: p.reason,
          createdAt: now,
        })),
      )
      .onConflictDoNothing({ target: [sequenceStepRuns.enrollmentId, sequenceStepRuns.stepPosition] })
      .returning({ id: sequenceStepRuns.id, enrollmentId: sequenceStepRuns.enrollmentId });
    const runIdOf = new Map(inserted.map((r) => [r.enrollmentId, r.id]));
    const messageIds: SQL[] = [];
    for (const p of planned) {
      const runId = runIdOf.get(p.item.id);
      if (!runId) continue; // recorded before: not sent again
      stats[p.outcome]++;
      if (!p.message) continue;
      const sent = await sender.send(
        tx,
        {
          clinicId: p.item.clinicId,
          channel: p.message.channel,
          kind: 'sequence',
          to: p.message.to,
          subject: p.message.subject,
          body: p.message.body,
          format: p.message.format,
          patientId: p.item.patientId,
        },
        now,
      );
      messageIds.push(sql`(${runId}::uuid, ${sent.id}::uuid)`);
    }
    if (messageIds.length) {
      await tx.execute(sql`
        update "sequence_step_runs" r set "message_id" = v.message_id
        from (values ${sql.join(messageIds, sql`, `)}) as v(id, message_id)
        where r."id" = v.id`);
    }
  }

  if (advances.length) {
    const values = advances.map(
      (a) =>
        sql`(${a.id}::uuid, ${a.status}::text, ${a.position}::int, ${a.nextRunAt?.toISOString() ?? null}::timestamptz, ${a.completedAt?.toISOString() ?? null}::timestamptz)`,
    );
    await tx.execute(sql`
      update "sequence_enrollments" e
      set "status" = v.status, "next_step_position" = v.position, "next_run_at" = v.next_run_at, "completed_at" = v.completed_at,
          "updated_at" = ${now.toISOString()}::timestamptz
      from (values ${sql.join(values, sql`, `)}) as v(id, status, position, next_run_at, completed_at)
      where e."id" = v.id`);
  }
  return stats;
}

export interface RunSequencesOptions {
  batchSize?: number;
  maxSteps?: number;
}

/**
 * One sweep: enroll triggered contacts, then advance due enrollments of active sequences in batches
 * until none is due or the sweep's budget is spent. An enrollment may go through several steps in one
 * sweep (a message step makes the next one due at once). A batch that fails is retried one enrollment
 * at a time, so one bad enrollment cannot hold up the others; it is left for the next sweep.
 */
export async function runSequences(
  db: Database,
  now: Date,
  sender: MessageSender,
  options: RunSequencesOptions = {},
): Promise<SequenceRunStats> {
  const batchSize = options.batchSize ?? SEQUENCE_BATCH_SIZE;
  const maxSteps = options.maxSteps ?? SEQUENCE_STEPS_PER_SWEEP;
  const stats = emptyStats();
  stats.enrolled = await enrollTriggered(db, now);

  const exclude = new Set<string>();
  let processed = 0;
  while (processed < maxSteps) {
    let ids: string[] = [];
    try {
      const result = await db.transaction(async (tx) => {
        const items = await loadDue(tx, now, Math.min(batchSize, maxSteps - processed), exclude, null);
        ids = items.map((i) => i.id);
        return { count: items.length, stats: items.length ? await advance(tx, items, now, sender) : emptyStats() };
      });
      if (result.count === 0) break;
      processed += result.count;
      add(stats, result.stats);
    } catch (error) {
      if (ids.length === 0) throw error;
      logLine('error', 'sequence batch failed; retrying one by one', { error: describeError(error) });
      for (const id of ids) {
        try {
          const one = await db.transaction(async (tx) => advance(tx, await loadDue(tx, now, 1, exclude, id), now, sender));
          add(stats, one);
        } catch (single) {
          exclude.add(id);
          logLine('error', 'sequence enrollment step failed', { enrollmentId: id, error: describeError(single) });
        }
        processed++;
      }
    }
  }
  return stats;
}

/** The cron sweep (the crm area's sweeps, src/scheduled.ts): the deployment's message sender. */
export const sequenceSweep: Sweep = async function sequenceSweep(db, now, { messaging }) {
  await runSequences(db, now, messaging);
};
