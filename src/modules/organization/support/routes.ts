import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { getConversation, postConversationMessage, resolveConversation } from './conversations';
import {
  assignableUser,
  conversation,
  createTicketBody,
  listTicketsQuery,
  postConversationMessageBody,
  postedConversationMessage,
  postedTicketMessage,
  postTicketMessageBody,
  ticket,
  ticketSummary,
  updateTicketBody,
} from './schemas';
import { createTicket, getTicket, listAssignableUsers, listTickets, postTicketMessage, updateTicket } from './tickets';

const conversationTags = ['Support conversations'];
const ticketTags = ['Support tickets'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;
const closedTicket = jsonContent(errorBody, 'CONFLICT: the ticket is closed and cannot be changed');

const getConversationRoute = defineRoute(read, {
  method: 'get',
  path: '/api/v1/conversations/{id}',
  operationId: 'getConversation',
  tags: conversationTags,
  summary: "A conversation with one of the clinic's patients, with every message (internal notes flagged)",
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(conversation), 'The conversation') },
});

const postConversationMessageRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/conversations/{id}/messages',
  operationId: 'postConversationMessage',
  recordedValues: ['isInternalNote'],
  tags: conversationTags,
  summary: 'Reply in a conversation, or add an internal note (staff only)',
  request: { params: idParam(), body: jsonBody(postConversationMessageBody) },
  responses: { 201: jsonContent(successBody(postedConversationMessage), 'Message added') },
});

const resolveConversationRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/conversations/{id}/resolve',
  operationId: 'resolveConversation',
  tags: conversationTags,
  summary: 'Mark a conversation resolved (a resolved one answers the same 200)',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(conversation), 'Resolved') },
});

const listTicketsRoute = defineRoute(read, {
  method: 'get',
  path: '/api/v1/support/tickets',
  operationId: 'listSupportTickets',
  tags: ticketTags,
  summary: "The clinic's support tickets, newest first",
  request: { query: listTicketsQuery },
  responses: { 200: jsonContent(pagedBody(ticketSummary), 'Tickets') },
});

const createTicketRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/support/tickets',
  operationId: 'createSupportTicket',
  recordedValues: ['assignedTeam'],
  tags: ticketTags,
  summary: "Open a support ticket with the platform's support team (an addition to the spec)",
  request: { body: jsonBody(createTicketBody) },
  responses: { 201: jsonContent(successBody(ticket), 'Created (status open)') },
});

const getTicketRoute = defineRoute(read, {
  method: 'get',
  path: '/api/v1/support/tickets/{id}',
  operationId: 'getSupportTicket',
  tags: ticketTags,
  summary: 'A support ticket with its messages',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(ticket), 'The ticket') },
});

const postTicketMessageRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/support/tickets/{id}/messages',
  operationId: 'postSupportTicketMessage',
  tags: ticketTags,
  summary: 'Add a message to a ticket',
  request: { params: idParam(), body: jsonBody(postTicketMessageBody) },
  responses: { 201: jsonContent(successBody(postedTicketMessage), 'Message added'), 409: closedTicket },
});

const updateTicketRoute = defineRoute(write, {
  method: 'put',
  path: '/api/v1/support/tickets/{id}',
  operationId: 'updateSupportTicket',
  recordedValues: ['assignedTeam', 'status'],
  tags: ticketTags,
  summary: 'Update a ticket: title, description, assigned team, status, assigned user (only the fields sent change)',
  request: { params: idParam(), body: jsonBody(updateTicketBody) },
  responses: { 200: jsonContent(successBody(ticket), 'Updated'), 409: closedTicket },
});

const assignableUsersRoute = defineRoute(read, {
  method: 'get',
  path: '/api/v1/support/users',
  operationId: 'listSupportAssignableUsers',
  tags: ticketTags,
  summary: "Users assignable to tickets: the clinic's active staff",
  responses: { 200: jsonContent(successBody(z.array(assignableUser)), 'Active staff users, oldest first') },
});

export const supportRoutes = new OpenAPIHono<AppEnv>()
  .openapi(getConversationRoute, async (c) => {
    return c.json(ok(await getConversation(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(postConversationMessageRoute, async (c) => {
    const message = await postConversationMessage(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(message, message.isInternalNote ? 'Internal note added' : 'Message sent'), 201);
  })
  .openapi(resolveConversationRoute, async (c) => {
    return c.json(ok(await resolveConversation(handlerContext(c), c.req.valid('param').id), 'Conversation resolved'), 200);
  })
  .openapi(listTicketsRoute, async (c) => {
    const { data, pagination } = await listTickets(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(createTicketRoute, async (c) => {
    return c.json(ok(await createTicket(handlerContext(c), c.req.valid('json')), 'Ticket created'), 201);
  })
  .openapi(getTicketRoute, async (c) => {
    return c.json(ok(await getTicket(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(postTicketMessageRoute, async (c) => {
    const message = await postTicketMessage(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(message, 'Message added'), 201);
  })
  .openapi(updateTicketRoute, async (c) => {
    return c.json(ok(await updateTicket(handlerContext(c), c.req.valid('param').id, c.req.valid('json')), 'Ticket updated'), 200);
  })
  .openapi(assignableUsersRoute, async (c) => {
    return c.json(ok(await listAssignableUsers(handlerContext(c))), 200);
  });
