import { and, desc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { messageTemplates, sequenceSteps, sequences } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { forClinic } from '../../../platform/db/scoped';
import { pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { conflict, invalidFields, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { type CheckedImage, storeImage } from '../../catalog';
import { extractMergeFields } from './merge-fields';
import {
  bodyMarkupProblem,
  COPY_SUFFIX,
  type CreateMessageTemplateBody,
  type ListMessageTemplatesQuery,
  MAX_TEMPLATE_NAME,
  type MessageTemplate,
  templateProblems,
  type UpdateMessageTemplateBody,
} from './schemas';

type TemplateRow = typeof messageTemplates.$inferSelect;
const RESOURCE = 'Message template';

/** The clinic's templates that are not deleted (a deleted template answers 404 everywhere). */
export const liveTemplates = (db: Queryable, clinicId: string, ...conditions: SQL[]) =>
  forClinic(db, clinicId).where(messageTemplates, isNull(messageTemplates.deletedAt), ...conditions);

/** The API's template, field by field. */
export function toMessageTemplate(row: TemplateRow): MessageTemplate {
  return {
    id: row.id,
    clinicId: row.clinicId,
    name: row.name,
    description: row.description,
    type: row.type,
    subject: row.subject,
    body: row.body,
    category: row.category,
    mergeFields: row.mergeFields,
    isActive: row.isActive,
    version: row.version,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const invalid = (problems: { path: string; message: string }[]) => {
  return invalidFields(problems.map((p) => ({ field: `body.${p.path}`, message: p.message })));
};

export async function listMessageTemplates({ db, clinicId }: HandlerContext, query: ListMessageTemplatesQuery) {
  const filters = query.type ? [eq(messageTemplates.type, query.type)] : [];
  const rows = await db
    .select({ template: messageTemplates, total: totalCount() })
    .from(messageTemplates)
    .where(liveTemplates(db, clinicId, ...filters))
    .orderBy(desc(messageTemplates.createdAt), desc(messageTemplates.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () =>
    forClinic(db, clinicId).count(messageTemplates, isNull(messageTemplates.deletedAt), ...filters),
  );
  return { data: page.rows.map((r) => toMessageTemplate(r.template)), pagination: page.pagination };
}

export async function getMessageTemplate({ db, clinicId }: HandlerContext, id: string): Promise<MessageTemplate> {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await db
    .select()
    .from(messageTemplates)
    .where(liveTemplates(db, clinicId, eq(messageTemplates.id, id)))
    .limit(1);
  if (!row) throw notFound(RESOURCE);
  return toMessageTemplate(row);
}

export async function createMessageTemplate(ctx: HandlerContext, body: CreateMessageTemplateBody): Promise<MessageTemplate> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const row = await forClinic(db, clinicId).insert(messageTemplates, {
    name: body.name,
    description: body.description,
    type: body.type,
    subject: body.type === 'sms' ? null : body.subject,
    body: body.body,
    category: body.category,
    mergeFields: extractMergeFields(body.subject, body.body),
    isActive: body.isActive,
    version: 1,
    // Made with an API key: no staff user behind it.
    createdBy: null,
    createdAt: now,
    updatedAt: now,
  });
  return toMessageTemplate(row);
}

/** Steps of any sequence (not archived) that use the template; `statuses` narrows the sequences. */
async function stepsUsing(db: Queryable, clinicId: string, templateId: string, statuses: string[]) {
  return db
    .select({ sequenceId: sequences.id, name: sequences.name, status: sequences.status })
    .from(sequenceSteps)
    .innerJoin(sequences, and(eq(sequences.id, sequenceSteps.sequenceId), eq(sequences.clinicId, sequenceSteps.clinicId)))
    .where(
      and(eq(sequenceSteps.clinicId, clinicId), eq(sequenceSteps.templateId, templateId), inArray(sequences.status, statuses as never[])),
    )
    .limit(5);
}

/**
 * A partial update, merged and validated as a whole. Every update moves version up by one and derives
 * mergeFields again. The row is locked while merged, so concurrent updates each get their own version.
 */
export async function updateMessageTemplate(ctx: HandlerContext, id: string, body: UpdateMessageTemplateBody): Promise<MessageTemplate> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(messageTemplates)
      .where(liveTemplates(tx, clinicId, eq(messageTemplates.id, id)))
      .for('update');
    if (!current) throw notFound(RESOURCE);
    const type = body.type ?? current.type;
    // Switching to sms drops the subject (SMS has none) unless one is sent, which is then refused.
    const subject = body.subject !== undefined ? body.subject : type === 'sms' ? null : current.subject;
    const merged = { type, subject, body: body.body ?? current.body };
    const problems = templateProblems(merged);
    if (problems.length) throw invalid(problems);
    if (type !== current.type) {
      const used = await stepsUsing(tx, clinicId, id, ['draft', 'active', 'paused', 'archived']);
      if (used.length) {
        throw conflict(
          'CONFLICT',
          `The template's type cannot change while sequence steps use it (sequence ${used[0]!.sequenceId}); duplicate it instead`,
        );
      }
    }
    const [updated] = await tx
      .update(messageTemplates)
      .set({
        name: body.name ?? current.name,
        description: body.description !== undefined ? body.description : current.description,
        category: body.category !== undefined ? body.category : current.category,
        isActive: body.isActive ?? current.isActive,
        type,
        subject,
        body: merged.body,
        mergeFields: extractMergeFields(subject, merged.body),
        version: sql`${messageTemplates.version} + 1`,
        updatedAt: now,
      })
      .where(and(eq(messageTemplates.clinicId, clinicId), eq(messageTemplates.id, id)))
      .returning();
    return toMessageTemplate(updated!);
  });
}

/**
 * Soft delete. Refused (409) while a step of an active or paused sequence uses the template: those
 * sequences would otherwise fail to send. Steps of draft and archived sequences may keep pointing at
 * a deleted template (a draft cannot be activated until its steps are changed). The template row is
 * locked first; activating a sequence and replacing steps lock the templates they check (FOR SHARE),
 * so a delete and an activation cannot pass each other.
 */
export async function deleteMessageTemplate(ctx: HandlerContext, id: string) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ id: messageTemplates.id })
      .from(messageTemplates)
      .where(liveTemplates(tx, clinicId, eq(messageTemplates.id, id)))
      .for('update');
    if (!current) throw notFound(RESOURCE);
    const used = await stepsUsing(tx, clinicId, id, ['active', 'paused']);
    if (used.length) {
      throw conflict(
        'CONFLICT',
        `The template is used by the ${used[0]!.status} sequence ${used[0]!.sequenceId}; replace its steps or archive it first`,
      );
    }
    await tx
      .update(messageTemplates)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(eq(messageTemplates.clinicId, clinicId), eq(messageTemplates.id, id)));
    return { id, deleted: true as const };
  });
}

/** "<name> (copy)", the name cut (never inside a surrogate pair) so the result fits MAX_TEMPLATE_NAME. */
export function copyName(name: string): string {
  let cut = name.slice(0, MAX_TEMPLATE_NAME - COPY_SUFFIX.length);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}${COPY_SUFFIX}`;
}

/** A copy named "<name> (copy)" (the name cut to fit the length limit), version 1, made by the key (createdBy null). */
export async function duplicateMessageTemplate(ctx: HandlerContext, id: string): Promise<MessageTemplate> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [source] = await db
    .select()
    .from(messageTemplates)
    .where(liveTemplates(db, clinicId, eq(messageTemplates.id, id)))
    .limit(1);
  if (!source) throw notFound(RESOURCE);
  // Bodies are checked when saved; this catches one saved before the markup rule, so no new row holds it.
  const markup = bodyMarkupProblem(source.type, source.body);
  if (markup) throw invalidFields([{ field: 'body', message: `${markup}; update the template before duplicating it` }], 'template');
  const copy = await forClinic(db, clinicId).insert(messageTemplates, {
    name: copyName(source.name),
    description: source.description,
    type: source.type,
    subject: source.subject,
    body: source.body,
    category: source.category,
    mergeFields: source.mergeFields,
    isActive: source.isActive,
    version: 1,
    createdBy: null,
    createdAt: now,
    updatedAt: now,
  });
  return toMessageTemplate(copy);
}

/** POST /message-templates/upload-image: stores the image (purpose template_image); the url is for embedding. */
export async function uploadTemplateImage(ctx: HandlerContext, image: CheckedImage) {
  const { upload } = await storeImage(ctx, ctx.clinicId, 'template_image', image, async () => null);
  return { url: upload.url, upload };
}
