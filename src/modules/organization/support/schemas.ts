import { z } from '@hono/zod-openapi';
import {
  CONVERSATION_STATUSES,
  MESSAGE_AUTHOR_TYPES,
  SUPPORT_TEAMS,
  SUPPORT_TICKET_STATUSES,
  USER_ROLES,
} from '../../../../drizzle/schema';
import { pageQuery } from '../../../platform/http/pagination';
import { safeString, text } from '../../../platform/values/strings';

export const MAX_MESSAGE_LENGTH = 10_000;
export const MAX_TITLE_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 10_000;

const messageText = () =>
  text()
    .trim()
    .min(1)
    .max(MAX_MESSAGE_LENGTH)
    .openapi({
      description: `1-${MAX_MESSAGE_LENGTH} characters; line breaks allowed.`,
      example: 'Thanks, we have updated your shipping address.',
    });

const authorFields = {
  authorType: z.enum(MESSAGE_AUTHOR_TYPES).openapi({
    description:
      "patient (the patient of the conversation), staff (a user of the clinic), api_key (sent through this API), platform (the platform's support team).",
  }),
  authorUserId: z.string().uuid().nullable().openapi({ description: 'The staff user who wrote it (staff only); null otherwise.' }),
  authorName: z
    .string()
    .nullable()
    .openapi({ description: "The staff user's or the patient's name; null for api_key and platform messages." }),
};

// --- conversations ---

export const conversationMessage = z
  .object({
    id: z.string().uuid(),
    ...authorFields,
    message: z.string(),
    isInternalNote: z.boolean().openapi({ description: "true: a note for the clinic's staff only, never shown to the patient." }),
    createdAt: z.string().datetime(),
  })
  .openapi('ConversationMessage');
export type ConversationMessage = z.infer<typeof conversationMessage>;

export const conversation = z
  .object({
    id: z.string().uuid(),
    subject: z.string().nullable(),
    status: z.enum(CONVERSATION_STATUSES),
    patient: z.object({ id: z.string().uuid(), firstName: z.string(), lastName: z.string() }).nullable().openapi({
      description:
        "The clinic's patient the conversation is with (name only; null if the patient was deleted). Read contact details from the customer record.",
    }),
    lastMessageAt: z.string().datetime().nullable().openapi({ description: 'Last message that is not an internal note.' }),
    resolvedAt: z.string().datetime().nullable(),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
    messages: z.array(conversationMessage).openapi({ description: 'Every message, internal notes included (flagged), oldest first.' }),
  })
  .openapi('Conversation');
export type Conversation = z.infer<typeof conversation>;

export const postConversationMessageBody = z
  .object({
    message: messageText(),
    isInternalNote: z
      .boolean()
      .default(false)
      .openapi({ description: 'true: visible to staff only; it does not reopen a resolved conversation. Default false.' }),
  })
  .strict()
  .openapi('PostConversationMessageRequest');
export type PostConversationMessageBody = z.infer<typeof postConversationMessageBody>;

export const postedConversationMessage = conversationMessage
  .extend({
    conversationId: z.string().uuid(),
    conversationStatus: z
      .enum(CONVERSATION_STATUSES)
      .openapi({ description: 'After the message: a reply (not a note) reopens a resolved conversation.' }),
  })
  .openapi('PostedConversationMessage');
export type PostedConversationMessage = z.infer<typeof postedConversationMessage>;

// --- tickets ---

export const ticketMessage = z
  .object({ id: z.string().uuid(), ...authorFields, message: z.string(), createdAt: z.string().datetime() })
  .openapi('SupportTicketMessage');
export type TicketMessage = z.infer<typeof ticketMessage>;

const assignedUser = z
  .object({ id: z.string().uuid(), firstName: z.string(), lastName: z.string() })
  .nullable()
  .openapi({ description: 'The clinic staff user following the ticket (GET /support/users); null when none.' });

const ticketFields = {
  id: z.string().uuid(),
  title: z.string(),
  description: z.string(),
  status: z
    .enum(SUPPORT_TICKET_STATUSES)
    .openapi({ description: 'open, in_progress, waiting_on_customer, resolved or closed (docs/support.md).' }),
  assignedTeam: z.enum(SUPPORT_TEAMS).openapi({ description: 'The platform team handling it: support, billing, technical or clinical.' }),
  assignedUser,
  messageCount: z.number().int(),
  lastMessageAt: z.string().datetime().nullable(),
  resolvedAt: z.string().datetime().nullable(),
  createdAt: z.string().datetime(),
  updatedAt: z.string().datetime(),
};

export const ticketSummary = z.object(ticketFields).openapi('SupportTicketSummary');
export type TicketSummary = z.infer<typeof ticketSummary>;

export const ticket = z
  .object({ ...ticketFields, messages: z.array(ticketMessage).openapi({ description: 'Oldest first.' }) })
  .openapi('SupportTicket');
export type Ticket = z.infer<typeof ticket>;

export const listTicketsQuery = pageQuery.extend({
  status: z.enum(SUPPORT_TICKET_STATUSES).optional().openapi({ description: 'Only tickets in this status.' }),
});
export type ListTicketsQuery = z.infer<typeof listTicketsQuery>;

const titleField = safeString().trim().min(1).max(MAX_TITLE_LENGTH).openapi({ example: 'Payout did not arrive' });
const descriptionField = text()
  .trim()
  .min(1)
  .max(MAX_DESCRIPTION_LENGTH)
  .openapi({ example: 'The payout of March 3 is not in our bank account yet.' });

export const createTicketBody = z
  .object({
    title: titleField,
    description: descriptionField,
    assignedTeam: z.enum(SUPPORT_TEAMS).default('support').openapi({ description: 'Default support.' }),
  })
  .strict()
  .openapi('CreateSupportTicketRequest');
export type CreateTicketBody = z.infer<typeof createTicketBody>;

export const updateTicketBody = z
  .object({
    title: titleField,
    description: descriptionField,
    assignedTeam: z.enum(SUPPORT_TEAMS, { error: `must be one of ${SUPPORT_TEAMS.join(', ')}` }),
    status: z.enum(SUPPORT_TICKET_STATUSES, { error: `must be one of ${SUPPORT_TICKET_STATUSES.join(', ')}` }),
    assignedUserId: z
      .string()
      .uuid('must be a uuid')
      .nullable()
      .openapi({ description: 'An active staff user of the clinic (GET /support/users), or null to unassign. An addition to the spec.' }),
  })
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must contain at least one field' })
  .openapi('UpdateSupportTicketRequest', {
    description: 'A partial update: only the fields sent change. A closed ticket cannot be edited (409).',
  });
export type UpdateTicketBody = z.infer<typeof updateTicketBody>;

export const postTicketMessageBody = z.object({ message: messageText() }).strict().openapi('PostSupportTicketMessageRequest');
export type PostTicketMessageBody = z.infer<typeof postTicketMessageBody>;

export const postedTicketMessage = ticketMessage
  .extend({
    ticketId: z.string().uuid(),
    ticketStatus: z
      .enum(SUPPORT_TICKET_STATUSES)
      .openapi({ description: 'After the message: waiting_on_customer moves to in_progress, resolved reopens as open.' }),
  })
  .openapi('PostedSupportTicketMessage');
export type PostedTicketMessage = z.infer<typeof postedTicketMessage>;

export const assignableUser = z
  .object({ id: z.string().uuid(), firstName: z.string(), lastName: z.string(), email: z.string(), role: z.enum(USER_ROLES) })
  .openapi('SupportAssignableUser');
export type AssignableUser = z.infer<typeof assignableUser>;
