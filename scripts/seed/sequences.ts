// Per live demo clinic: message templates with merge fields (email and SMS), an active "New patient
// welcome" sequence (contact_created) with steps and enrollments in every state (completed, waiting on
// a delay) with their step runs and sent messages, and a draft "Win-back" sequence.
import { and, inArray, notInArray } from 'drizzle-orm';
import {
  clinics,
  messages,
  messageTemplates,
  patients,
  sequenceEnrollments,
  sequenceStepRuns,
  sequenceSteps,
  sequences,
} from '../../drizzle/schema';
import { extractMergeFields, renderMergeFields } from '../../src/modules/crm';
import type { Database } from '../../src/platform/db/client';
import { seedPatientId } from './catalog';
import { CRM_BLOCKS as B, demoId, LIVE_DEMO_CLINICS } from './ids';
import { refresh } from './upsert';

const DAY = 86_400_000;
const HOUR = 3_600_000;

export const seedTemplateId = (clinicIndex: number, n: number) => demoId(B.templates, clinicIndex * 100 + n);
export const seedSequenceId = (clinicIndex: number, n: number) => demoId(B.sequences, clinicIndex * 100 + n);
const stepId = (c: number, seq: number, position: number) => demoId(B.sequenceSteps, c * 1000 + seq * 10 + position);
const enrollmentId = (c: number, i: number) => demoId(B.sequenceEnrollments, c * 100 + i);
// Step runs and messages have no block of their own: ranges far above the enrollments' (ids are unique per table).
const runId = (c: number, i: number, position: number) => demoId(B.sequenceEnrollments, 0x10000 + c * 1000 + i * 10 + position);
const messageId = (c: number, i: number, position: number) => demoId(B.sequences, 0x10000 + c * 1000 + i * 10 + position);

interface SeedTemplate {
  n: number;
  name: string;
  type: 'email' | 'sms';
  category: string;
  description: string;
  subject: string | null;
  body: string;
}

const TEMPLATES: SeedTemplate[] = [
  {
    n: 1,
    name: 'Welcome email',
    type: 'email',
    category: 'onboarding',
    description: 'Sent when a new patient signs up',
    subject: 'Welcome to {{clinicName}}, {{firstName}}!',
    body: '<p>Hi {{firstName}},</p><p>Welcome to {{clinicName}}. Your care team will review your intake within one business day.</p><p>Questions? Just reply to this email.</p>',
  },
  {
    n: 2,
    name: 'First-week check-in (SMS)',
    type: 'sms',
    category: 'onboarding',
    description: 'Short check-in two days after sign-up',
    subject: null,
    body: "Hi {{firstName}}, it's {{clinicName}}. How are you feeling so far? Reply here any time. Reply STOP to opt out.",
  },
  {
    n: 3,
    name: 'How is it going?',
    type: 'email',
    category: 'onboarding',
    description: 'One week in',
    subject: '{{firstName}}, how is your first week going?',
    body: '<p>Hi {{firstName}} {{lastName}},</p><p>You have been with {{clinicName}} for a week. Log in to see your plan and message your provider.</p>',
  },
  {
    n: 4,
    name: 'We saved your spot',
    type: 'email',
    category: 'win-back',
    description: 'For patients who paused',
    subject: 'We saved your spot, {{firstName}}',
    body: '<p>Hi {{firstName}},</p><p>Whenever you are ready, {{clinicName}} is here. Pick up where you left off in two minutes.</p>',
  },
  {
    n: 5,
    name: 'Come back (SMS)',
    type: 'sms',
    category: 'win-back',
    description: 'Follow-up to the win-back email',
    subject: null,
    body: '{{firstName}}, your {{clinicName}} care team is here when you are ready. Reply STOP to opt out.',
  },
];

interface SeedStep {
  type: 'delay' | 'email' | 'sms';
  timeSeconds?: number;
  template?: number;
  customSubject?: string;
  customText?: string;
}

const WELCOME = 1;
const WIN_BACK = 2;
const SEQUENCES: {
  n: number;
  name: string;
  description: string;
  status: 'active' | 'draft';
  trigger: 'contact_created' | 'manual';
  steps: SeedStep[];
}[] = [
  {
    n: WELCOME,
    name: 'New patient welcome',
    description: 'Welcome email, a check-in text after two days and a one-week email',
    status: 'active',
    trigger: 'contact_created',
    steps: [
      { type: 'email', template: 1 },
      { type: 'delay', timeSeconds: 2 * 86_400 },
      { type: 'sms', template: 2 },
      { type: 'delay', timeSeconds: 5 * 86_400 },
      { type: 'email', template: 3 },
    ],
  },
  {
    n: WIN_BACK,
    name: 'Win-back',
    description: 'For patients who paused their plan (not started yet)',
    status: 'draft',
    trigger: 'manual',
    steps: [
      { type: 'email', template: 4 },
      { type: 'delay', timeSeconds: 7 * 86_400 },
      { type: 'sms', template: 5 },
      { type: 'delay', timeSeconds: 7 * 86_400 },
      {
        type: 'email',
        customSubject: 'A note from {{clinicName}}',
        customText: '<p>Hi {{firstName}}, this is our last note for now. We are here whenever you need us.</p>',
      },
    ],
  },
];

/**
 * Enrollments in the welcome sequence: patient i, days since enrollment, the runs of positions 0, 2, 4
 * (sent, or skipped with a reason), and, for those still going, the next step and when it is due.
 */
const ENROLLMENTS: {
  i: number;
  enrolledHoursAgo: number;
  runs: [number, 'sent' | 'skipped', string | null][];
  next: { position: number; inHours: number } | null;
}[] = [
  {
    i: 1,
    enrolledHoursAgo: 30 * 24,
    runs: [
      [0, 'sent', null],
      [2, 'sent', null],
      [4, 'sent', null],
    ],
    next: null,
  },
  {
    i: 2,
    enrolledHoursAgo: 25 * 24,
    runs: [
      [0, 'sent', null],
      [2, 'skipped', 'sms_opted_out'],
      [4, 'sent', null],
    ],
    next: null,
  },
  {
    i: 3,
    enrolledHoursAgo: 15 * 24,
    runs: [
      [0, 'sent', null],
      [2, 'sent', null],
      [4, 'sent', null],
    ],
    next: null,
  },
  {
    i: 4,
    enrolledHoursAgo: 4 * 24,
    runs: [
      [0, 'sent', null],
      [2, 'sent', null],
    ],
    next: { position: 4, inHours: 3 * 24 },
  },
  { i: 5, enrolledHoursAgo: 24, runs: [[0, 'sent', null]], next: { position: 2, inHours: 24 } },
  { i: 6, enrolledHoursAgo: 2, runs: [[0, 'sent', null]], next: { position: 2, inHours: 46 } },
];
/** When each message position of the welcome sequence runs, in hours after enrollment. */
const RUN_OFFSET_HOURS: Record<number, number> = { 0: 0, 2: 48, 4: 48 + 120 };

export async function seedSequences(db: Database, now: Date): Promise<void> {
  const at = (msFromNow: number) => new Date(now.getTime() + msFromNow);
  const clinicNames = new Map(
    (
      await db
        .select({ id: clinics.id, name: clinics.name })
        .from(clinics)
        .where(inArray(clinics.id, [...LIVE_DEMO_CLINICS]))
    ).map((c) => [c.id, c.name]),
  );

  const templateRows: (typeof messageTemplates.$inferInsert)[] = [];
  const sequenceRows: (typeof sequences.$inferInsert)[] = [];
  const stepRows: (typeof sequenceSteps.$inferInsert)[] = [];
  for (const [c, clinicId] of LIVE_DEMO_CLINICS.entries()) {
    for (const tpl of TEMPLATES) {
      templateRows.push({
        id: seedTemplateId(c, tpl.n),
        clinicId,
        name: tpl.name,
        description: tpl.description,
        type: tpl.type,
        subject: tpl.subject,
        body: tpl.body,
        category: tpl.category,
        mergeFields: extractMergeFields(tpl.subject, tpl.body),
        isActive: true,
        version: 1,
        createdBy: null,
        deletedAt: null,
        createdAt: at(-60 * DAY),
        updatedAt: at(-60 * DAY),
      });
    }
    for (const seq of SEQUENCES) {
      sequenceRows.push({
        id: seedSequenceId(c, seq.n),
        clinicId,
        name: seq.name,
        description: seq.description,
        status: seq.status,
        triggerEvent: seq.trigger,
        triggerConfig: seq.status === 'active' ? { since: at(-45 * DAY).toISOString() } : {},
        createdBy: null,
        createdAt: at(-50 * DAY + seq.n * HOUR),
        updatedAt: at(-45 * DAY),
      });
      seq.steps.forEach((step, position) => {
        const custom = step.type !== 'delay' && step.template === undefined;
        stepRows.push({
          id: stepId(c, seq.n, position),
          clinicId,
          sequenceId: seedSequenceId(c, seq.n),
          position,
          type: step.type,
          timeSeconds: step.timeSeconds ?? null,
          useCustomText: custom,
          templateId: step.template ? seedTemplateId(c, step.template) : null,
          customText: step.customText ?? null,
          customSubject: step.customSubject ?? null,
          createdAt: at(-50 * DAY),
        });
      });
    }
  }
  await db
    .insert(messageTemplates)
    .values(templateRows)
    .onConflictDoUpdate({
      target: messageTemplates.id,
      set: refresh([
        'name',
        'description',
        'type',
        'subject',
        'body',
        'category',
        'mergeFields',
        'isActive',
        'deletedAt',
        'createdAt',
        'updatedAt',
      ]),
    });
  await db
    .insert(sequences)
    .values(sequenceRows)
    .onConflictDoUpdate({
      target: sequences.id,
      set: refresh(['name', 'description', 'status', 'triggerEvent', 'triggerConfig', 'createdAt', 'updatedAt']),
    });
  // Steps a developer put in place of the demo ones give way to them (positions are unique per sequence).
  const seededSequenceIds = sequenceRows.map((s) => s.id!);
  await db.delete(sequenceSteps).where(
    and(
      inArray(sequenceSteps.sequenceId, seededSequenceIds),
      notInArray(
        sequenceSteps.id,
        stepRows.map((s) => s.id!),
      ),
    ),
  );
  await db
    .insert(sequenceSteps)
    .values(stepRows)
    .onConflictDoUpdate({
      target: sequenceSteps.id,
      set: refresh(['position', 'type', 'timeSeconds', 'useCustomText', 'templateId', 'customText', 'customSubject']),
    });

  // Enrollments, their runs and messages are history: inserted once, never reset (the sweep moves them on).
  const patientIds = LIVE_DEMO_CLINICS.flatMap((_, c) => ENROLLMENTS.map((e) => seedPatientId(c, e.i)));
  const people = new Map((await db.select().from(patients).where(inArray(patients.id, patientIds))).map((p) => [p.id, p]));
  const enrollmentRows: (typeof sequenceEnrollments.$inferInsert)[] = [];
  const messageRows: { enrollmentId: string; row: typeof messages.$inferInsert }[] = [];
  const runRows: (typeof sequenceStepRuns.$inferInsert)[] = [];
  for (const [c, clinicId] of LIVE_DEMO_CLINICS.entries()) {
    const welcome = SEQUENCES.find((s) => s.n === WELCOME)!;
    for (const e of ENROLLMENTS) {
      const person = people.get(seedPatientId(c, e.i));
      if (!person) continue;
      const enrolledAt = at(-e.enrolledHoursAgo * HOUR);
      const lastRunAt = new Date(enrolledAt.getTime() + RUN_OFFSET_HOURS[e.runs[e.runs.length - 1]![0]]! * HOUR);
      enrollmentRows.push({
        id: enrollmentId(c, e.i),
        clinicId,
        sequenceId: seedSequenceId(c, WELCOME),
        patientId: person.id,
        status: e.next ? 'active' : 'completed',
        nextStepPosition: e.next ? e.next.position : welcome.steps.length,
        nextRunAt: e.next ? at(e.next.inHours * HOUR) : null,
        enrolledAt,
        completedAt: e.next ? null : lastRunAt,
        updatedAt: lastRunAt,
      });
      for (const [position, outcome, reason] of e.runs) {
        const step = welcome.steps[position]!;
        const ranAt = new Date(enrolledAt.getTime() + RUN_OFFSET_HOURS[position]! * HOUR);
        let message: string | null = null;
        if (outcome === 'sent') {
          const template = TEMPLATES.find((tpl) => tpl.n === step.template)!;
          const values = {
            firstName: person.firstName,
            lastName: person.lastName,
            email: person.email,
            clinicName: clinicNames.get(clinicId) ?? '',
          };
          const channel = step.type as 'email' | 'sms';
          const to = channel === 'email' ? person.email : person.phoneNumber;
          if (to) {
            message = messageId(c, e.i, position);
            messageRows.push({
              enrollmentId: enrollmentId(c, e.i),
              row: {
                id: message,
                clinicId,
                channel,
                kind: 'sequence',
                toAddress: to,
                subject: template.subject ? renderMergeFields(template.subject, values) : null,
                body: renderMergeFields(template.body, values, { html: channel === 'email' }),
                format: channel === 'email' ? 'html' : 'text',
                patientId: person.id,
                status: 'sent',
                provider: 'development',
                providerMessageId: `dev_seed_${message}`,
                sentAt: ranAt,
                createdAt: ranAt,
              },
            });
          }
        }
        runRows.push({
          id: runId(c, e.i, position),
          clinicId,
          sequenceId: seedSequenceId(c, WELCOME),
          enrollmentId: enrollmentId(c, e.i),
          stepPosition: position,
          stepType: step.type,
          outcome: message || outcome === 'skipped' ? outcome : 'skipped',
          reason: message || outcome === 'skipped' ? reason : 'no_phone',
          messageId: message,
          createdAt: ranAt,
        });
      }
    }
  }
  if (enrollmentRows.length) await db.insert(sequenceEnrollments).values(enrollmentRows).onConflictDoNothing();
  // Runs and messages only for the demo enrollments that exist (a developer's own enrollment of the same patient wins).
  const present = new Set(
    (
      await db
        .select({ id: sequenceEnrollments.id })
        .from(sequenceEnrollments)
        .where(
          inArray(
            sequenceEnrollments.id,
            enrollmentRows.map((e) => e.id!),
          ),
        )
    ).map((e) => e.id),
  );
  const sent = messageRows.filter((m) => present.has(m.enrollmentId)).map((m) => m.row);
  if (sent.length) await db.insert(messages).values(sent).onConflictDoNothing();
  const runs = runRows.filter((r) => present.has(r.enrollmentId));
  if (runs.length) await db.insert(sequenceStepRuns).values(runs).onConflictDoNothing();
}
