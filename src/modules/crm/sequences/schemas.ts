import { z } from '@hono/zod-openapi';
import { SEQUENCE_STATUSES, SEQUENCE_STEP_TYPES } from '../../../../drizzle/schema';
import { pageQuery } from '../../../platform/http/pagination';
import { isUuid } from '../../../platform/values/ids';
import { findRefusedCharacter, plainLine, plainText, safeString, text } from '../../../platform/values/strings';
import { bodyMarkupProblem, MAX_EMAIL_BODY, MAX_SMS_BODY, MAX_TEMPLATE_SUBJECT } from '../message-templates/schemas';

/** What enrolls contacts (docs/crm-sequences.md, "Triggers"). */
export const SEQUENCE_TRIGGER_EVENTS = ['manual', 'contact_created', 'tag_added'] as const;
export type SequenceTriggerEvent = (typeof SEQUENCE_TRIGGER_EVENTS)[number];

export const MAX_SEQUENCE_NAME = 200;
export const MAX_SEQUENCE_DESCRIPTION = 1_000;
export const MAX_STEPS = 50;
/** A delay step waits at most this long (365 days). */
export const MAX_DELAY_SECONDS = 365 * 86_400;

// Lower-cased: PostgreSQL answers uuids in lower case, and lookups compare them as text.
const uuidString = (description: string) =>
  safeString()
    .max(100)
    .refine(isUuid, { message: 'must be a uuid' })
    .transform((id) => id.toLowerCase())
    .openapi({ format: 'uuid', description, example: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10' });

const name = plainLine().trim().min(1).max(MAX_SEQUENCE_NAME).openapi({ example: 'New patient welcome' });
const description = plainText().trim().max(MAX_SEQUENCE_DESCRIPTION).nullable().openapi({ example: 'Three touches in the first week' });
const triggerEvent = z.enum(SEQUENCE_TRIGGER_EVENTS).openapi({
  description:
    'manual: contacts are enrolled with POST /sequence-triggers/manual only. contact_created: every contact (patient) created while the sequence is active or paused is enrolled. ' +
    'tag_added: every contact given the tag triggerTagId while the sequence is active or paused is enrolled. Manual enrollment works for every trigger.',
  example: 'manual',
});
const triggerTagId = uuidString("tag_added only (and required there): one of the clinic's tags.").nullable();

export const createSequenceBody = z
  .object({
    name,
    description: description.optional().default(null),
    triggerEvent,
    triggerTagId: triggerTagId.optional().default(null),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.triggerEvent === 'tag_added' && !body.triggerTagId)
      ctx.addIssue({ code: 'custom', path: ['triggerTagId'], message: 'is required when triggerEvent is tag_added' });
    if (body.triggerEvent !== 'tag_added' && body.triggerTagId)
      ctx.addIssue({ code: 'custom', path: ['triggerTagId'], message: 'is only allowed when triggerEvent is tag_added' });
  })
  .openapi('CreateSequenceRequest');
export type CreateSequenceBody = z.infer<typeof createSequenceBody>;

export const updateSequenceBody = z
  .object({
    name,
    description,
    status: z.enum(SEQUENCE_STATUSES).openapi({
      description:
        'draft -> active; active <-> paused; draft, active or paused -> archived (final). Activating needs at least one step, every template of which still exists (409 otherwise).',
      example: 'active',
    }),
    triggerEvent,
    triggerTagId,
  })
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must contain at least one field' })
  .openapi('UpdateSequenceRequest', {
    description:
      'A partial update (name, description, status, trigger); the merged trigger is validated as a whole. Archived sequences cannot be changed.',
  });
export type UpdateSequenceBody = z.infer<typeof updateSequenceBody>;

export const stepInput = z
  .object({
    type: z
      .enum(SEQUENCE_STEP_TYPES)
      .openapi({ description: 'delay: wait timeSeconds; email / sms: send a template or custom text.', example: 'delay' }),
    timeSeconds: z
      .number()
      .int()
      .max(MAX_DELAY_SECONDS)
      .nullable()
      .optional()
      .openapi({
        description: `delay steps only: seconds to wait, 1 to ${MAX_DELAY_SECONDS} (365 days).`,
        example: 86_400,
      }),
    useCustomText: z
      .boolean()
      .optional()
      .default(false)
      .openapi({ description: 'email / sms: true sends customText (and customSubject) instead of a template.' }),
    templateId: uuidString("email / sms without custom text: one of the clinic's own templates, of the same type as the step.")
      .nullable()
      .optional(),
    customText: text()
      .max(MAX_EMAIL_BODY)
      .nullable()
      .optional()
      .openapi({
        description: `useCustomText only: the message (email: HTML with only the allowed markup, at most ${MAX_EMAIL_BODY} characters; sms: plain text, at most ${MAX_SMS_BODY}). Merge fields work as in templates; no other template expressions.`,
      }),
    customSubject: plainLine({ mergeFields: true })
      .trim()
      .max(MAX_TEMPLATE_SUBJECT)
      .nullable()
      .optional()
      .openapi({ description: 'useCustomText email steps only (and required there): plain text (no HTML markup), may hold merge fields.' }),
  })
  .strict()
  .superRefine((step, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    const present = (value: unknown) => value !== undefined && value !== null;
    if (step.type === 'delay') {
      if (!present(step.timeSeconds) || (step.timeSeconds as number) <= 0)
        problem('timeSeconds', 'delay steps need timeSeconds greater than 0');
      if (step.useCustomText) problem('useCustomText', 'is only for email and sms steps');
      for (const field of ['templateId', 'customText', 'customSubject'] as const) {
        if (present(step[field])) problem(field, 'is only for email and sms steps');
      }
      return;
    }
    if (present(step.timeSeconds)) problem('timeSeconds', 'is only for delay steps (add a delay step before this one to wait)');
    if (step.useCustomText) {
      if (present(step.templateId)) problem('templateId', 'must be absent when useCustomText is true');
      if (!step.customText?.trim()) problem('customText', 'is required when useCustomText is true');
      else if (step.type === 'sms' && step.customText.length > MAX_SMS_BODY)
        problem('customText', `must be at most ${MAX_SMS_BODY} characters for an sms step`);
      else if (!findRefusedCharacter(step.customText, true)) {
        const markup = bodyMarkupProblem(step.type, step.customText);
        if (markup) problem('customText', markup);
      }
      if (step.type === 'email' && !step.customSubject) problem('customSubject', 'is required for an email step with custom text');
      if (step.type === 'sms' && present(step.customSubject)) problem('customSubject', 'is only for email steps (SMS has no subject)');
    } else {
      if (!present(step.templateId)) problem('templateId', 'is required for an email or sms step unless useCustomText is true');
      if (present(step.customText)) problem('customText', 'is only used when useCustomText is true');
      if (present(step.customSubject)) problem('customSubject', 'is only used when useCustomText is true');
    }
  })
  .openapi('SequenceStepInput');
export type StepInput = z.infer<typeof stepInput>;

export const replaceStepsBody = z
  .object({
    steps: z
      .array(stepInput)
      .max(MAX_STEPS)
      .openapi({ description: `The new steps in order (at most ${MAX_STEPS}); they replace all current ones.` }),
  })
  .strict()
  .openapi('ReplaceSequenceStepsRequest');
export type ReplaceStepsBody = z.infer<typeof replaceStepsBody>;

export const listSequencesQuery = pageQuery.extend({
  status: z.enum(SEQUENCE_STATUSES).optional().openapi({ description: 'Only sequences in this status.' }),
});
export type ListSequencesQuery = z.infer<typeof listSequencesQuery>;

export const sequenceStep = z
  .object({
    id: z.string().uuid(),
    position: z.number().int().openapi({ description: 'From 0, in the order the steps run.' }),
    type: z.enum(SEQUENCE_STEP_TYPES),
    timeSeconds: z.number().int().nullable(),
    useCustomText: z.boolean(),
    templateId: z.string().uuid().nullable(),
    customText: z.string().nullable(),
    customSubject: z.string().nullable(),
  })
  .openapi('SequenceStep');
export type SequenceStep = z.infer<typeof sequenceStep>;

export const sequenceAnalytics = z
  .object({
    enrolled: z.number().int().openapi({ description: 'Contacts ever enrolled.' }),
    active: z.number().int().openapi({ description: 'Enrollments still going through the steps.' }),
    completed: z.number().int(),
    cancelled: z.number().int().openapi({ description: 'Enrollments stopped by archiving the sequence.' }),
    sent: z.number().int().openapi({ description: 'Message steps sent.' }),
    skipped: z.number().int().openapi({ description: 'Message steps skipped (contact opted out, or no address).' }),
    failed: z.number().int().openapi({ description: 'Message steps that could not be sent (e.g. their template was deleted).' }),
  })
  .openapi('SequenceAnalytics');
export type SequenceAnalytics = z.infer<typeof sequenceAnalytics>;

export const sequence = z
  .object({
    id: z.string().uuid(),
    clinicId: z.string().uuid(),
    name: z.string(),
    description: z.string().nullable(),
    status: z.enum(SEQUENCE_STATUSES),
    isActive: z.boolean().openapi({ description: 'status is active.' }),
    trigger: z
      .object({ event: z.enum(SEQUENCE_TRIGGER_EVENTS), tagId: z.string().uuid().nullable() })
      .openapi({ description: 'What enrolls contacts; tagId for tag_added.' }),
    steps: z.array(sequenceStep),
    analytics: sequenceAnalytics,
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('Sequence');
export type Sequence = z.infer<typeof sequence>;

export const manualTriggerBody = z
  .object({
    sequenceId: safeString().max(100).openapi({ format: 'uuid', description: 'An active sequence of the clinic.' }),
    userId: safeString()
      .max(100)
      .optional()
      .openapi({ format: 'uuid', description: 'A contact (patient) of the clinic. Send exactly one of userId and tag.' }),
    tag: safeString().max(100).optional().openapi({
      format: 'uuid',
      description: 'A tag id of the clinic: every contact with the tag is enrolled. Send exactly one of userId and tag.',
    }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.userId === undefined) === (body.tag === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'send exactly one of userId and tag' });
    }
  })
  .openapi('ManualSequenceTriggerRequest');
export type ManualTriggerBody = z.infer<typeof manualTriggerBody>;

export const manualTriggerResult = z
  .object({
    sequenceId: z.string().uuid(),
    enrolled: z.number().int().openapi({ description: 'Contacts enrolled now (their first step runs on the next sweep).' }),
    alreadyEnrolled: z
      .number()
      .int()
      .openapi({ description: 'Targets already enrolled in this sequence (at any time, also completed), left as they are.' }),
  })
  .openapi('ManualSequenceTriggerResult');
