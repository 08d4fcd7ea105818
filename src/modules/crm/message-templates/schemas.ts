import { z } from '@hono/zod-openapi';
import { MESSAGE_TEMPLATE_TYPES } from '../../../../drizzle/schema';
import { pageQuery } from '../../../platform/http/pagination';
import { htmlProblem, plainTextProblem } from '../../../platform/values/markup';
import { findRefusedCharacter, plainLine, plainText, text } from '../../../platform/values/strings';
import { storedImage } from '../../catalog';

/** Limits (docs/crm-sequences.md). */
export const MAX_TEMPLATE_NAME = 200;
export const MAX_TEMPLATE_SUBJECT = 300;
export const MAX_EMAIL_BODY = 50_000;
/** Ten SMS segments. */
export const MAX_SMS_BODY = 1_600;
export const MAX_TEMPLATE_DESCRIPTION = 1_000;
export const MAX_TEMPLATE_CATEGORY = 100;
export const COPY_SUFFIX = ' (copy)';

const fields = {
  name: plainLine().trim().min(1).max(MAX_TEMPLATE_NAME).openapi({ description: 'Plain text (no HTML markup).', example: 'Welcome email' }),
  type: z.enum(MESSAGE_TEMPLATE_TYPES).openapi({ description: 'email or sms.', example: 'email' }),
  subject: plainLine({ mergeFields: true })
    .trim()
    .min(1)
    .max(MAX_TEMPLATE_SUBJECT)
    .nullable()
    .openapi({
      description: `Email templates: required, at most ${MAX_TEMPLATE_SUBJECT} characters of plain text (no HTML markup), may hold merge fields. SMS templates have none (null or absent).`,
      example: 'Welcome to {{clinicName}}, {{firstName}}',
    }),
  body: text()
    .min(1)
    .max(MAX_EMAIL_BODY)
    .openapi({
      description: `Email: HTML, at most ${MAX_EMAIL_BODY} characters, with only the allowed elements and attributes (no script, style, event handlers or javascript: URLs; docs/api-conventions.md, "Markup in stored fields"). SMS: plain text (no HTML markup), at most ${MAX_SMS_BODY}. Merge fields in double braces ({{firstName}}, {{lastName}}, {{email}}, {{clinicName}}); no other template expressions.`,
      example: '<p>Hi {{firstName}}, welcome to {{clinicName}}.</p>',
    }),
  description: plainText().trim().max(MAX_TEMPLATE_DESCRIPTION).nullable().openapi({ example: 'Sent right after sign-up' }),
  category: plainLine().trim().max(MAX_TEMPLATE_CATEGORY).nullable().openapi({ example: 'onboarding' }),
  isActive: z.boolean().openapi({
    description: "The clinic's own flag (e.g. to hide a template in its tools); sequences using an inactive template keep sending it.",
  }),
};

type Shape = { type?: 'email' | 'sms'; subject?: string | null; body?: string };

/**
 * The markup rule of a message body (docs/api-conventions.md, "Markup in stored fields"): an email body
 * is rich HTML (the allow-list), an SMS body plain text; both may hold merge fields and nothing else in
 * braces. Checked on create, on the merged template of an update, on duplicate and again when sent.
 */
export function bodyMarkupProblem(type: 'email' | 'sms', body: string): string | null {
  return type === 'email' ? htmlProblem(body, { mergeFields: true }) : plainTextProblem(body, { mergeFields: true });
}

/** The rules between fields, for create and for the merged template of an update. */
export function templateProblems(t: Required<Shape>): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  // (A refused character is the body field's own 400 already.)
  const markup = findRefusedCharacter(t.body, true) ? null : bodyMarkupProblem(t.type, t.body);
  if (markup) problems.push({ path: 'body', message: markup });
  if (t.type === 'email' && !t.subject) problems.push({ path: 'subject', message: 'is required for an email template' });
  if (t.type === 'sms' && t.subject)
    problems.push({ path: 'subject', message: 'must be null or absent for an sms template (SMS has no subject)' });
  if (t.type === 'sms' && t.body.length > MAX_SMS_BODY)
    problems.push({ path: 'body', message: `must be at most ${MAX_SMS_BODY} characters for an sms template` });
  return problems;
}

export const createMessageTemplateBody = z
  .object({
    ...fields,
    subject: fields.subject.optional().default(null),
    description: fields.description.optional().default(null),
    category: fields.category.optional().default(null),
    isActive: fields.isActive.optional().default(true),
  })
  .strict()
  .superRefine((body, ctx) => {
    for (const p of templateProblems(body)) ctx.addIssue({ code: 'custom', path: [p.path], message: p.message });
  })
  .openapi('CreateMessageTemplateRequest');
export type CreateMessageTemplateBody = z.infer<typeof createMessageTemplateBody>;

export const updateMessageTemplateBody = z
  .object(fields)
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must contain at least one field' })
  .openapi('UpdateMessageTemplateRequest', {
    description:
      'A partial update: only the fields sent change; the merged template is validated as a whole. version goes up by one and mergeFields is derived again from subject and body. ' +
      'type may change only while no sequence step uses the template (409 otherwise); changing to sms clears the subject.',
  });
export type UpdateMessageTemplateBody = z.infer<typeof updateMessageTemplateBody>;

export const listMessageTemplatesQuery = pageQuery.extend({
  type: z.enum(MESSAGE_TEMPLATE_TYPES).optional().openapi({ description: 'Only templates of this type.' }),
});
export type ListMessageTemplatesQuery = z.infer<typeof listMessageTemplatesQuery>;

export const messageTemplate = z
  .object({
    id: z.string().uuid(),
    clinicId: z.string().uuid(),
    name: z.string(),
    description: z.string().nullable(),
    type: z.enum(MESSAGE_TEMPLATE_TYPES),
    subject: z.string().nullable(),
    body: z.string(),
    category: z.string().nullable(),
    mergeFields: z.array(z.string()).openapi({
      description: 'Every {{name}} token of subject and body, once each, in order of appearance.',
      example: ['clinicName', 'firstName'],
    }),
    isActive: z.boolean(),
    version: z.number().int().openapi({ description: '1 on creation, +1 on every update.' }),
    createdBy: z.string().uuid().nullable().openapi({ description: 'The staff user who made it; null when made with an API key.' }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('MessageTemplate');
export type MessageTemplate = z.infer<typeof messageTemplate>;

export const deletedMessageTemplate = z.object({ id: z.string().uuid(), deleted: z.literal(true) }).openapi('DeletedMessageTemplate');

export const templateImageResult = z
  .object({
    url: z.string().openapi({ description: 'The image url, to embed in a template body (`<img src="...">`).' }),
    upload: storedImage,
  })
  .openapi('TemplateImageResult');
