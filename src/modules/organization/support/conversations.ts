import { and, eq, sql } from 'drizzle-orm';
import { conversationMessages, conversations, patients } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { forClinic } from '../../../platform/db/scoped';
import { notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import type { Conversation, ConversationMessage, PostConversationMessageBody, PostedConversationMessage } from './schemas';
import { apiKeyMessageFields, iso, isoOrNull, type MessageJson, messageFields } from './views';

const RESOURCE = 'Conversation';

/**
 * The conversation, its patient's name and every message (with its author's name) in one query:
 * the conversation by id and clinic, the patient joined by id and clinic, the messages as a correlated
 * json_agg on conversation_messages_conversation_id_created_at_idx.
 */
export async function getConversation(ctx: HandlerContext, id: string): Promise<Conversation> {
  return readConversation(ctx.db, ctx.clinicId, id);
}

async function readConversation(db: Queryable, clinicId: string, id: string): Promise<Conversation> {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await db
    .select({
      id: conversations.id,
      subject: conversations.subject,
      status: conversations.status,
      lastMessageAt: conversations.lastMessageAt,
      resolvedAt: conversations.resolvedAt,
      createdAt: conversations.createdAt,
      updatedAt: conversations.updatedAt,
      patientId: patients.id,
      patientFirstName: patients.firstName,
      patientLastName: patients.lastName,
      messages: sql<(MessageJson & Pick<ConversationMessage, 'isInternalNote'>)[]>`coalesce((
        select json_agg(json_build_object(
          'id', m."id", 'authorType', m."author_type", 'authorUserId', m."author_user_id",
          'authorName', case
            when m."author_type" = 'staff' and u."id" is not null then u."first_name" || ' ' || u."last_name"
            when m."author_type" = 'patient' and "patients"."id" is not null then "patients"."first_name" || ' ' || "patients"."last_name"
          end,
          'message', m."body", 'isInternalNote', m."is_internal_note", 'createdAt', m."created_at") order by m."created_at", m."id")
        from "conversation_messages" m
        left join "users" u on u."id" = m."author_user_id" and u."clinic_id" = m."clinic_id"
        where m."conversation_id" = "conversations"."id" and m."clinic_id" = "conversations"."clinic_id"), '[]'::json)`,
    })
    .from(conversations)
    .leftJoin(patients, and(eq(patients.id, conversations.patientId), eq(patients.clinicId, conversations.clinicId)))
    .where(forClinic(db, clinicId).where(conversations, eq(conversations.id, id)))
    .limit(1);
  if (!row) throw notFound(RESOURCE);
  return {
    id: row.id,
    subject: row.subject,
    status: row.status,
    patient: row.patientId ? { id: row.patientId, firstName: row.patientFirstName!, lastName: row.patientLastName! } : null,
    lastMessageAt: isoOrNull(row.lastMessageAt),
    resolvedAt: isoOrNull(row.resolvedAt),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    messages: row.messages.map((m) => ({ ...messageFields(m), isInternalNote: m.isInternalNote })),
  };
}

/**
 * Adds a message written through the API (authorType api_key). A reply (not an internal note) moves
 * lastMessageAt and reopens a resolved conversation; an internal note changes neither.
 */
export async function postConversationMessage(
  ctx: HandlerContext,
  id: string,
  body: PostConversationMessageBody,
): Promise<PostedConversationMessage> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ id: conversations.id, status: conversations.status })
      .from(conversations)
      .where(forClinic(tx, clinicId).where(conversations, eq(conversations.id, id)))
      .for('update');
    if (!current) throw notFound(RESOURCE);
    const [message] = await tx
      .insert(conversationMessages)
      .values({
        clinicId,
        conversationId: current.id,
        authorType: 'api_key',
        authorUserId: null,
        body: body.message,
        isInternalNote: body.isInternalNote,
        createdAt: now,
      })
      .returning();
    let status = current.status;
    if (!body.isInternalNote) {
      status = 'open';
      await tx
        .update(conversations)
        .set({ lastMessageAt: now, updatedAt: now, status: 'open', resolvedAt: null })
        .where(eq(conversations.id, current.id));
    }
    return {
      ...apiKeyMessageFields(message!),
      isInternalNote: message!.isInternalNote,
      conversationId: current.id,
      conversationStatus: status,
    };
  });
}

/** open -> resolved (resolvedAt set). Resolving a resolved conversation changes nothing and answers the same 200. */
export async function resolveConversation(ctx: HandlerContext, id: string): Promise<Conversation> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  return db.transaction(async (tx) => {
    await tx
      .update(conversations)
      .set({ status: 'resolved', resolvedAt: now, updatedAt: now })
      .where(forClinic(tx, clinicId).where(conversations, eq(conversations.id, id), eq(conversations.status, 'open')));
    return readConversation(tx, clinicId, id);
  });
}
