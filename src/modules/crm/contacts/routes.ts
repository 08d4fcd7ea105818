import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { deliverSoon } from '../../../platform/providers/messaging';
import { idParam } from '../../../platform/values/ids';
import { csvTooLarge, importContacts } from './import';
import {
  CSV_FRAMING_ALLOWANCE_BYTES,
  contact,
  createContactBody,
  importContactsForm,
  importResult,
  listContactsQuery,
  MAX_CSV_BYTES,
  updateContactBody,
} from './schemas';
import { createContact, listContacts, updateContact } from './service';

const tags = ['CRM contacts and tags'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;
const emailTaken = jsonContent(errorBody, 'CONFLICT: another contact of the clinic has this email (ignoring case)');

const list = defineRoute(
  { ...read, patientData: { targetType: 'contact' } },
  {
    method: 'get',
    path: '/api/v1/contacts',
    operationId: 'listContacts',
    tags,
    summary: "List the clinic's contacts (its patients), newest first, with their tags and last contact date",
    request: { query: listContactsQuery },
    responses: { 200: jsonContent(pagedBody(contact), 'Contacts') },
  },
);

const create = defineRoute(write, {
  method: 'post',
  path: '/api/v1/contacts',
  operationId: 'createContact',
  tags,
  summary: 'Create a contact: provisions a patient of the clinic and sends them a welcome email',
  description:
    "The welcome email (kind welcome, in the clinic's name) is recorded in the same transaction as the contact and delivered after it " +
    'commits (docs/messaging.md). Emails are unique in the clinic ignoring case (409).',
  request: { body: jsonBody(createContactBody) },
  responses: { 201: jsonContent(successBody(contact), 'Created'), 409: emailTaken },
});

// Opting out records contact.unsubscribed (webhook delivery is kicked after the answer, src/app.ts).
const update = defineRoute(write, {
  method: 'put',
  path: '/api/v1/contacts/{id}',
  operationId: 'updateContact',
  tags,
  summary: 'Update a contact (only the fields sent change); opting out emits contact.unsubscribed',
  description:
    'emailOptedOut or smsOptedOut going from false to true sets optOutDate and records the contact.unsubscribed event (ids only). ' +
    'Opting back in emits nothing; optOutDate becomes null once neither channel is opted out (docs/crm-contacts.md).',
  request: { params: idParam(), body: jsonBody(updateContactBody) },
  responses: { 200: jsonContent(successBody(contact), 'Updated'), 409: emailTaken },
});

/**
 * The CSV size limit before the body is read: a declared Content-Length above it is refused at once,
 * a body without one is counted while it streams and refused as soon as it passes the limit. After
 * the route's guard, so 401/403 come first.
 */
const csvBodyLimit: MiddlewareHandler<AppEnv> = bodyLimit({
  maxSize: MAX_CSV_BYTES + CSV_FRAMING_ALLOWANCE_BYTES,
  onError: () => {
    throw csvTooLarge();
  },
});

const importRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/contacts/import',
  operationId: 'importContacts',
  tags,
  summary: 'Import contacts from a CSV file (multipart field csv, at most 5 MiB)',
  description:
    'Header columns firstname, lastname, email and optional phonenumber, in any order and case (others are ignored); RFC 4180 quoting ' +
    '(commas, quotes and line breaks inside quoted fields), a UTF-8 byte order mark and CRLF line endings are handled. Rows whose email is ' +
    'already a contact, or repeats an earlier row, are skipped; invalid rows are listed in errors with their line and a redacted email; ' +
    'valid rows are inserted in one transaction. Imported contacts get no welcome email. docs/crm-contacts.md.',
  request: {
    body: {
      content: { 'multipart/form-data': { schema: importContactsForm } },
      required: true,
      description: 'multipart/form-data with one file field, csv.',
    },
  },
  responses: {
    200: jsonContent(successBody(importResult), 'The import result'),
    413: jsonContent(errorBody, `PAYLOAD_TOO_LARGE: the file is over ${MAX_CSV_BYTES} bytes (5 MiB).`),
    415: jsonContent(errorBody, 'UNSUPPORTED_MEDIA_TYPE: the body is not multipart/form-data.'),
  },
});
{
  const route = importRoute as { middleware?: MiddlewareHandler<AppEnv> | MiddlewareHandler<AppEnv>[] };
  route.middleware = [...([] as MiddlewareHandler<AppEnv>[]).concat(route.middleware ?? []), csvBodyLimit];
}

export const contactRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listContacts(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(create, async (c) => {
    const ctx = handlerContext(c);
    const { contact: created, message } = await createContact(ctx, c.req.valid('json'));
    deliverSoon(ctx, [message.id]);
    return c.json(ok(created, 'Contact created; welcome email sent'), 201);
  })
  .openapi(update, async (c) => {
    const updated = await updateContact(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(updated, 'Contact updated'), 200);
  })
  .openapi(importRoute, async (c) => {
    const { csv } = c.req.valid('form');
    if (csv instanceof Blob && csv.size > MAX_CSV_BYTES) throw csvTooLarge();
    const bytes = csv instanceof Blob ? new Uint8Array(await csv.arrayBuffer()) : new TextEncoder().encode(csv);
    const result = await importContacts(handlerContext(c), bytes);
    return c.json(ok(result, `Imported ${result.imported} contact(s)`), 200);
  });
