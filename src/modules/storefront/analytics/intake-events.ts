import { z } from '@hono/zod-openapi';
import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import { formSessions, patients, programs, questionnaires } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Database } from '../../../platform/db/client';
import { recordOutboxEvent } from '../../../platform/events/outbox';
import type { Sweep } from '../../../platform/sweep';
import { badRequest, conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import type { FormSession } from './schemas';

// Where the platform records intake events (docs/analytics.md, "Intake events"):
// - a form session starts (the patient opens an intake form): intake.started, in the transaction that
//   inserts the session. In this codebase the patient-facing intake runs on the platform; the
//   development simulator (POST /_dev/intake/sessions, dev-routes.ts) calls startFormSession exactly as
//   the platform would.
// - a session started more than STALE_SESSION_HOURS ago and never completed is abandoned by the sweep
//   below: intake.abandoned, in the transaction that marks it.
// Payloads carry ids only: { formSessionId, formId, programId }.

/** A session not completed this many hours after it started is abandoned by the sweep. */
export const STALE_SESSION_HOURS = 24;
/** Sessions marked abandoned (and events recorded) per transaction. */
export const ABANDON_BATCH = 200;
/** The largest step count a simulated session may have. */
export const MAX_FORM_STEPS = 100;

type SessionRow = typeof formSessions.$inferSelect;

export function toFormSession(row: SessionRow): FormSession {
  return {
    id: row.id,
    formId: row.questionnaireId,
    programId: row.programId,
    status: row.status,
    lastStepReached: row.lastStepReached,
    totalSteps: row.totalSteps,
    startedAt: row.startedAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    abandonedAt: row.abandonedAt?.toISOString() ?? null,
  };
}

const uuid = (what: string) => z.string().uuid({ message: `must be the id (uuid) of one of the clinic's ${what}` });

export const startSessionBody = z
  .object({
    formId: uuid('questionnaires'),
    programId: uuid('programs').nullable().optional(),
    patientId: uuid('patients').nullable().optional(),
    totalSteps: z.number().int().min(1).max(MAX_FORM_STEPS),
  })
  .strict();
export type StartSessionBody = z.infer<typeof startSessionBody>;

export const advanceSessionBody = z
  .object({
    lastStepReached: z.number().int().min(1).max(MAX_FORM_STEPS).optional(),
    complete: z.literal(true).optional(),
  })
  .strict()
  .refine((b) => b.lastStepReached !== undefined || b.complete !== undefined, { message: 'must contain lastStepReached or complete' });
export type AdvanceSessionBody = z.infer<typeof advanceSessionBody>;

/**
 * Starts a form session of one of the clinic's forms (and optionally programs and patients) and
 * records intake.started, in one transaction. A form, program or patient that is not the clinic's
 * answers 404 (named), and nothing is written.
 */
export async function startFormSession(ctx: HandlerContext, body: StartSessionBody) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const [found] = await tx
      .select({
        form: sql<
          string | null
        >`(select id from ${questionnaires} where ${questionnaires.clinicId} = ${clinicId} and ${questionnaires.id} = ${body.formId})`,
        program: body.programId
          ? sql<string | null>`(select id from ${programs} where ${programs.clinicId} = ${clinicId} and ${programs.id} = ${body.programId})`
          : sql<null>`null`,
        patient: body.patientId
          ? sql<string | null>`(select id from ${patients} where ${patients.clinicId} = ${clinicId} and ${patients.id} = ${body.patientId})`
          : sql<null>`null`,
      })
      .from(sql`(select 1) as one`);
    if (!found?.form) throw notFound('Form');
    if (body.programId && !found.program) throw notFound('Program');
    if (body.patientId && !found.patient) throw notFound('Patient');
    const [session] = await tx
      .insert(formSessions)
      .values({
        clinicId,
        questionnaireId: body.formId,
        programId: body.programId ?? null,
        patientId: body.patientId ?? null,
        status: 'started',
        lastStepReached: 1,
        totalSteps: body.totalSteps,
        startedAt: now,
      })
      .returning();
    const outboxEventId = await recordOutboxEvent(
      tx,
      clinicId,
      'intake.started',
      { formSessionId: session!.id, formId: session!.questionnaireId, programId: session!.programId },
      now,
    );
    return { session: toFormSession(session!), outboxEventId };
  });
}

/**
 * Moves a started session on (lastStepReached, never backwards, at most totalSteps) or completes it
 * (lastStepReached becomes totalSteps). Only a started session moves: 409 ILLEGAL_TRANSITION
 * otherwise. The specification has no event for either.
 */
export async function advanceFormSession(ctx: HandlerContext, id: string, body: AdvanceSessionBody) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound('Form session');
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(formSessions)
      .where(and(eq(formSessions.clinicId, clinicId), eq(formSessions.id, id)))
      .for('update');
    if (!current) throw notFound('Form session');
    if (current.status !== 'started') {
      throw conflict('ILLEGAL_TRANSITION', `The form session is ${current.status}; only a started session can move on`);
    }
    const step = body.complete ? current.totalSteps : body.lastStepReached!;
    if (body.lastStepReached !== undefined && body.lastStepReached > current.totalSteps) {
      throw badRequest(`Invalid body: body.lastStepReached: must be at most the session's totalSteps (${current.totalSteps})`);
    }
    if (body.lastStepReached !== undefined && body.lastStepReached < current.lastStepReached) {
      throw badRequest(`Invalid body: body.lastStepReached: must not be below the step already reached (${current.lastStepReached})`);
    }
    const [updated] = await tx
      .update(formSessions)
      .set(body.complete ? { status: 'completed', completedAt: now, lastStepReached: step } : { lastStepReached: step })
      .where(and(eq(formSessions.clinicId, clinicId), eq(formSessions.id, id)))
      .returning();
    return toFormSession(updated!);
  });
}

/**
 * Marks every session started more than `staleHours` before `now` and still started as abandoned
 * (of every clinic: the sweep's work, so it takes the database and the time, not a clinic's context),
 * recording intake.abandoned for each in the same transaction, `batchSize` sessions per transaction.
 * Rows another sweep holds are skipped (SKIP LOCKED) and the update is guarded by status = 'started',
 * so a session is abandoned, and its event recorded, exactly once. Returns how many were abandoned.
 */
export async function abandonStaleFormSessions(
  db: Database,
  now: Date,
  options: { staleHours?: number; batchSize?: number } = {},
): Promise<number> {
  const cutoff = new Date(now.getTime() - (options.staleHours ?? STALE_SESSION_HOURS) * 3_600_000);
  const batchSize = options.batchSize ?? ABANDON_BATCH;
  let abandoned = 0;
  for (;;) {
    const done = await db.transaction(async (tx) => {
      // The partial index form_sessions_stale_idx (started_at where status = 'started') finds them.
      const stale = await tx
        .select({ id: formSessions.id })
        .from(formSessions)
        .where(and(eq(formSessions.status, 'started'), lt(formSessions.startedAt, cutoff)))
        .orderBy(asc(formSessions.startedAt))
        .limit(batchSize)
        .for('update', { skipLocked: true });
      if (stale.length === 0) return 0;
      const marked = await tx
        .update(formSessions)
        .set({ status: 'abandoned', abandonedAt: now })
        .where(
          and(
            inArray(
              formSessions.id,
              stale.map((s) => s.id),
            ),
            eq(formSessions.status, 'started'),
          ),
        )
        .returning({
          id: formSessions.id,
          clinicId: formSessions.clinicId,
          formId: formSessions.questionnaireId,
          programId: formSessions.programId,
        });
      for (const s of marked) {
        await recordOutboxEvent(tx, s.clinicId, 'intake.abandoned', { formSessionId: s.id, formId: s.formId, programId: s.programId }, now);
      }
      abandoned += marked.length;
      return stale.length;
    });
    if (done < batchSize) return abandoned;
  }
}

/** The cron sweep (src/scheduled.ts). */
export const abandonStaleFormSessionsSweep: Sweep = async function abandonStaleFormSessionsSweep(db, now) {
  await abandonStaleFormSessions(db, now);
};
