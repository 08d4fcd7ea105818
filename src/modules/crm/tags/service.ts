import { and, desc, eq, type SQL } from 'drizzle-orm';
import { patients, patientTags, tags } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { isUniqueViolation } from '../../../platform/db/errors';
import { forClinic } from '../../../platform/db/scoped';
import { pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import type { CreateTagBody, ListTagsQuery, Tag, TagAssignment, UpdateTagBody } from './schemas';

type TagRow = typeof tags.$inferSelect;

const RESOURCE = 'Tag';
const UNIQUE_NAME_INDEX = 'tags_clinic_id_name_key';

/** The API's tag, field by field (never a spread row). */
export function toTag(row: TagRow): Tag {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    category: row.category,
    color: row.color,
    clinicId: row.clinicId,
    isActive: row.isActive,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const nameTaken = (name: string) => conflict('CONFLICT', `A tag named "${name}" already exists (names are unique ignoring case)`);
const isDuplicateName = (error: unknown) => isUniqueViolation(error, UNIQUE_NAME_INDEX);

/** Tags of the clinic, newest first; category and isActive filter (the (clinic_id, category) index serves the first). */
export async function listTags({ db, clinicId }: HandlerContext, query: ListTagsQuery) {
  const conditions: SQL[] = [];
  if (query.category !== undefined) conditions.push(eq(tags.category, query.category));
  if (query.isActive !== undefined) conditions.push(eq(tags.isActive, query.isActive === 'true'));
  const scope = forClinic(db, clinicId);
  const rows = await db
    .select({ tag: tags, total: totalCount() })
    .from(tags)
    .where(scope.where(tags, ...conditions))
    .orderBy(desc(tags.createdAt), desc(tags.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => scope.count(tags, ...conditions));
  return { data: page.rows.map((r) => toTag(r.tag)), pagination: page.pagination };
}

export async function createTag(ctx: HandlerContext, body: CreateTagBody): Promise<Tag> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  try {
    const row = await forClinic(db, clinicId).insert(tags, {
      name: body.name,
      color: body.color.toLowerCase(),
      description: body.description || null,
      category: body.category,
      isActive: body.isActive,
      createdAt: now,
      updatedAt: now,
    });
    return toTag(row);
  } catch (error) {
    if (isDuplicateName(error)) throw nameTaken(body.name);
    throw error;
  }
}

export async function updateTag(ctx: HandlerContext, id: string, body: UpdateTagBody): Promise<Tag> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const changes: Partial<typeof tags.$inferInsert> = { updatedAt: now };
  if (body.name !== undefined) changes.name = body.name;
  if (body.color !== undefined) changes.color = body.color.toLowerCase();
  if (body.description !== undefined) changes.description = body.description || null;
  if (body.category !== undefined) changes.category = body.category;
  if (body.isActive !== undefined) changes.isActive = body.isActive;
  try {
    return toTag(await forClinic(db, clinicId).updateById(tags, id, changes, RESOURCE));
  } catch (error) {
    if (isDuplicateName(error)) throw nameTaken(body.name ?? '');
    throw error;
  }
}

/** Deletes the tag; its assignments go with it (patient_tags.tag_id cascades). Answers the tag as it was. */
export async function deleteTag({ db, clinicId }: HandlerContext, id: string): Promise<Tag> {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await db
    .delete(tags)
    .where(forClinic(db, clinicId).where(tags, eq(tags.id, id)))
    .returning();
  if (!row) throw notFound(RESOURCE);
  return toTag(row);
}

/**
 * Puts the tag on one of the clinic's contacts. Both rows are locked (FOR SHARE) so neither can be
 * deleted between the check and the insert. Idempotent: a second assignment changes nothing and
 * answers the first one's time with alreadyAssigned true. An inactive tag cannot be newly assigned.
 */
export async function assignTag(ctx: HandlerContext, tagId: string, userId: string): Promise<TagAssignment> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(tagId)) throw notFound(RESOURCE);
  return db.transaction(async (tx) => {
    const [found] = await tx
      .select({ id: tags.id, isActive: tags.isActive })
      .from(tags)
      .where(forClinic(tx, clinicId).where(tags, eq(tags.id, tagId)))
      .for('share');
    if (!found) throw notFound(RESOURCE);
    const contact = await lockContact(tx, clinicId, userId);
    if (!contact) throw notFound('Contact');
    const [inserted] = await tx
      .insert(patientTags)
      .values({ clinicId, tagId, patientId: userId, createdAt: now })
      .onConflictDoNothing({ target: [patientTags.tagId, patientTags.patientId] })
      .returning({ createdAt: patientTags.createdAt });
    if (inserted) {
      // Rolls the insert back: an inactive tag stays on the contacts that have it but gets no new ones.
      if (!found.isActive)
        throw conflict('CONFLICT', 'The tag is inactive; activate it (PUT /api/v1/tags/{id} { "isActive": true }) before assigning it');
      return { tagId, userId, assignedAt: inserted.createdAt.toISOString(), alreadyAssigned: false };
    }
    const [existing] = await tx
      .select({ createdAt: patientTags.createdAt })
      .from(patientTags)
      .where(and(eq(patientTags.tagId, tagId), eq(patientTags.patientId, userId)));
    return { tagId, userId, assignedAt: existing!.createdAt.toISOString(), alreadyAssigned: true };
  });
}

async function lockContact(tx: Queryable, clinicId: string, userId: string) {
  if (!isUuid(userId)) return undefined;
  const [row] = await tx
    .select({ id: patients.id })
    .from(patients)
    .where(forClinic(tx, clinicId).where(patients, eq(patients.id, userId)))
    .for('share');
  return row;
}

/** Takes the tag off the contact; 404 when the tag, the contact or the assignment does not exist in the clinic. */
export async function unassignTag({ db, clinicId }: HandlerContext, tagId: string, userId: string) {
  if (!isUuid(tagId) || !isUuid(userId)) throw notFound('Tag assignment');
  const [removed] = await db
    .delete(patientTags)
    .where(and(eq(patientTags.clinicId, clinicId), eq(patientTags.tagId, tagId), eq(patientTags.patientId, userId)))
    .returning({ tagId: patientTags.tagId });
  if (!removed) throw notFound('Tag assignment');
  return { tagId, userId, removed: true as const };
}
