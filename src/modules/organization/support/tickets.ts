import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { type SupportTeam, type SupportTicketStatus, supportTicketMessages, supportTickets, users } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { forClinic } from '../../../platform/db/scoped';
import { pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { badRequest, conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import type {
  AssignableUser,
  CreateTicketBody,
  ListTicketsQuery,
  PostedTicketMessage,
  PostTicketMessageBody,
  Ticket,
  TicketSummary,
  UpdateTicketBody,
} from './schemas';
import { apiKeyMessageFields, iso, isoOrNull, type MessageJson, messageFields } from './views';

const RESOURCE = 'Support ticket';

// Correlated subqueries on support_ticket_messages_ticket_id_created_at_idx (qualified by hand: Drizzle
// leaves a single table's columns unqualified in a select list).
const ofThisTicket = sql.raw(`m."ticket_id" = "support_tickets"."id" and m."clinic_id" = "support_tickets"."clinic_id"`);
const messageCount = sql<number>`(select count(*)::int from "support_ticket_messages" m where ${ofThisTicket})`;
const lastMessageAt = sql<string | null>`(select max(m."created_at") from "support_ticket_messages" m where ${ofThisTicket})`;

const messagesJson = sql<MessageJson[]>`coalesce((
  select json_agg(json_build_object(
    'id', m."id", 'authorType', m."author_type", 'authorUserId', m."author_user_id",
    'authorName', case when m."author_type" = 'staff' and u."id" is not null then u."first_name" || ' ' || u."last_name" end,
    'message', m."body", 'createdAt', m."created_at") order by m."created_at", m."id")
  from "support_ticket_messages" m
  left join "users" u on u."id" = m."author_user_id" and u."clinic_id" = m."clinic_id"
  where ${ofThisTicket}), '[]'::json)`;

const summaryColumns = {
  id: supportTickets.id,
  title: supportTickets.title,
  description: supportTickets.description,
  status: supportTickets.status,
  assignedTeam: supportTickets.assignedTeam,
  resolvedAt: supportTickets.resolvedAt,
  createdAt: supportTickets.createdAt,
  updatedAt: supportTickets.updatedAt,
  assignedUserId: users.id,
  assignedFirstName: users.firstName,
  assignedLastName: users.lastName,
  messageCount,
  lastMessageAt,
};

interface SummaryRow {
  id: string;
  title: string;
  description: string;
  status: SupportTicketStatus;
  assignedTeam: SupportTeam;
  resolvedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  assignedUserId: string | null;
  assignedFirstName: string | null;
  assignedLastName: string | null;
  messageCount: number;
  lastMessageAt: string | null;
}

function toSummary(row: SummaryRow): TicketSummary {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    assignedTeam: row.assignedTeam,
    assignedUser: row.assignedUserId
      ? { id: row.assignedUserId, firstName: row.assignedFirstName!, lastName: row.assignedLastName! }
      : null,
    messageCount: row.messageCount,
    lastMessageAt: isoOrNull(row.lastMessageAt),
    resolvedAt: isoOrNull(row.resolvedAt),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** The assigned user is joined by id and clinic, so another clinic's user can never show. */
const assignedUserJoin = and(eq(users.id, supportTickets.assignedUserId), eq(users.clinicId, supportTickets.clinicId));

/** The clinic's tickets, newest first (support_tickets_clinic_id_created_at_idx), with the total, in one query. */
export async function listTickets(ctx: HandlerContext, query: ListTicketsQuery) {
  const { db, clinicId } = ctx;
  const status = query.status ? eq(supportTickets.status, query.status) : undefined;
  const rows = await db
    .select({ ...summaryColumns, total: totalCount() })
    .from(supportTickets)
    .leftJoin(users, assignedUserJoin)
    .where(forClinic(db, clinicId).where(supportTickets, status))
    .orderBy(desc(supportTickets.createdAt), desc(supportTickets.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => forClinic(db, clinicId).count(supportTickets, status));
  return { data: page.rows.map((r) => toSummary(r)), pagination: page.pagination };
}

/** One ticket with its messages, in one query. */
export async function getTicket(ctx: HandlerContext, id: string): Promise<Ticket> {
  return readTicket(ctx.db, ctx.clinicId, id);
}

async function readTicket(db: Queryable, clinicId: string, id: string): Promise<Ticket> {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await db
    .select({ ...summaryColumns, messages: messagesJson })
    .from(supportTickets)
    .leftJoin(users, assignedUserJoin)
    .where(forClinic(db, clinicId).where(supportTickets, eq(supportTickets.id, id)))
    .limit(1);
  if (!row) throw notFound(RESOURCE);
  return { ...toSummary(row), messages: row.messages.map(messageFields) };
}

/** Addition to the spec: the clinic opens a ticket (status open). */
export async function createTicket(ctx: HandlerContext, body: CreateTicketBody): Promise<Ticket> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const row = await forClinic(db, clinicId).insert(supportTickets, {
    title: body.title,
    description: body.description,
    assignedTeam: body.assignedTeam,
    status: 'open',
    createdAt: now,
    updatedAt: now,
  });
  const summary = toSummary({
    ...row,
    assignedUserId: null,
    assignedFirstName: null,
    assignedLastName: null,
    messageCount: 0,
    lastMessageAt: null,
  });
  return { ...summary, messages: [] };
}

/** The ticket, locked; callers have checked the id is a uuid. */
async function lockTicket(tx: Queryable, clinicId: string, id: string) {
  const [current] = await tx
    .select()
    .from(supportTickets)
    .where(forClinic(tx, clinicId).where(supportTickets, eq(supportTickets.id, id)))
    .for('update');
  if (!current) throw notFound(RESOURCE);
  if (current.status === 'closed') throw conflict('CONFLICT', 'The ticket is closed and cannot be changed; open a new ticket instead');
  return current;
}

/** What a message from the clinic does to the ticket's status (docs/support.md). */
const AFTER_CLINIC_MESSAGE: Partial<Record<SupportTicketStatus, SupportTicketStatus>> = {
  waiting_on_customer: 'in_progress',
  resolved: 'open',
};

/**
 * Adds the clinic's message (authorType api_key). A ticket waiting on the customer moves to in_progress;
 * a resolved one reopens (open); a closed one is a 409.
 */
export async function postTicketMessage(ctx: HandlerContext, id: string, body: PostTicketMessageBody): Promise<PostedTicketMessage> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  return db.transaction(async (tx) => {
    const current = await lockTicket(tx, clinicId, id);
    const [message] = await tx
      .insert(supportTicketMessages)
      .values({ clinicId, ticketId: current.id, authorType: 'api_key', authorUserId: null, body: body.message, createdAt: now })
      .returning();
    const status = AFTER_CLINIC_MESSAGE[current.status] ?? current.status;
    await tx
      .update(supportTickets)
      .set({ status, updatedAt: now, ...(status !== 'resolved' ? { resolvedAt: null } : {}) })
      .where(eq(supportTickets.id, current.id));
    return { ...apiKeyMessageFields(message!), ticketId: current.id, ticketStatus: status };
  });
}

/**
 * A partial update. Any status may be set on a ticket that is not closed; closed is final (every edit
 * of a closed ticket is a 409). resolvedAt is set when the ticket becomes resolved and cleared when it
 * leaves resolved (closing keeps it). assignedUserId must be an active staff user of the clinic.
 */
export async function updateTicket(ctx: HandlerContext, id: string, body: UpdateTicketBody): Promise<Ticket> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  return db.transaction(async (tx) => {
    const current = await lockTicket(tx, clinicId, id);
    if (body.assignedUserId) {
      const [user] = await tx
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.clinicId, clinicId), eq(users.id, body.assignedUserId), eq(users.isActive, true)))
        .limit(1);
      if (!user) throw badRequest('body.assignedUserId: must be an active staff user of the clinic (GET /api/v1/support/users)');
    }
    const changes: Partial<typeof supportTickets.$inferInsert> = { updatedAt: now };
    if (body.title !== undefined) changes.title = body.title;
    if (body.description !== undefined) changes.description = body.description;
    if (body.assignedTeam !== undefined) changes.assignedTeam = body.assignedTeam;
    if (body.assignedUserId !== undefined) changes.assignedUserId = body.assignedUserId;
    if (body.status !== undefined && body.status !== current.status) {
      changes.status = body.status;
      if (body.status === 'resolved') changes.resolvedAt = now;
      else if (body.status !== 'closed') changes.resolvedAt = null;
    }
    await tx.update(supportTickets).set(changes).where(eq(supportTickets.id, current.id));
    return readTicket(tx, clinicId, id);
  });
}

/** The clinic's active staff users, oldest first (users_clinic_id_created_at_idx). */
export async function listAssignableUsers(ctx: HandlerContext): Promise<AssignableUser[]> {
  const { db, clinicId } = ctx;
  const rows = await db
    .select({ id: users.id, firstName: users.firstName, lastName: users.lastName, email: users.email, role: users.role })
    .from(users)
    .where(and(eq(users.clinicId, clinicId), eq(users.isActive, true)))
    .orderBy(asc(users.createdAt), asc(users.id));
  return rows.map((r) => ({ id: r.id, firstName: r.firstName, lastName: r.lastName, email: r.email, role: r.role }));
}
