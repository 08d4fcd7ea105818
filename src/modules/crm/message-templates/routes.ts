import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { checkImage, imageUploadForm, MAX_IMAGE_BYTES, withDeclaredSizeCheck } from '../../catalog';
import {
  createMessageTemplateBody,
  deletedMessageTemplate,
  listMessageTemplatesQuery,
  messageTemplate,
  templateImageResult,
  updateMessageTemplateBody,
} from './schemas';
import {
  createMessageTemplate,
  deleteMessageTemplate,
  duplicateMessageTemplate,
  getMessageTemplate,
  listMessageTemplates,
  updateMessageTemplate,
  uploadTemplateImage,
} from './service';

const tags = ['CRM message templates'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/message-templates',
  operationId: 'listMessageTemplates',
  tags,
  summary: "List the clinic's message templates, newest first (deleted ones are not listed)",
  request: { query: listMessageTemplatesQuery },
  responses: { 200: jsonContent(pagedBody(messageTemplate), 'Message templates') },
});

const create = defineRoute(write, {
  method: 'post',
  path: '/api/v1/message-templates',
  operationId: 'createMessageTemplate',
  recordedValues: ['type', 'isActive'],
  tags,
  summary: 'Create an email or SMS template (version 1; mergeFields derived from subject and body)',
  request: { body: jsonBody(createMessageTemplateBody) },
  responses: { 201: jsonContent(successBody(messageTemplate), 'Created') },
});

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/message-templates/{id}',
  operationId: 'getMessageTemplate',
  tags,
  summary: 'Get a message template (deleted ones answer 404)',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(messageTemplate), 'The template') },
});

const update = defineRoute(write, {
  method: 'put',
  path: '/api/v1/message-templates/{id}',
  operationId: 'updateMessageTemplate',
  recordedValues: ['type', 'isActive'],
  tags,
  summary: 'Update a message template (partial; version +1, mergeFields derived again)',
  request: { params: idParam(), body: jsonBody(updateMessageTemplateBody) },
  responses: {
    200: jsonContent(successBody(messageTemplate), 'Updated'),
    409: jsonContent(errorBody, 'CONFLICT: type changed while sequence steps use the template'),
  },
});

const remove = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/message-templates/{id}',
  operationId: 'deleteMessageTemplate',
  tags,
  summary: 'Delete a message template (soft: it answers 404 afterwards)',
  request: { params: idParam() },
  responses: {
    200: jsonContent(successBody(deletedMessageTemplate), 'Deleted'),
    409: jsonContent(errorBody, 'CONFLICT: a step of an active or paused sequence uses the template'),
  },
});

const duplicate = defineRoute(write, {
  method: 'post',
  path: '/api/v1/message-templates/{id}/duplicate',
  operationId: 'duplicateMessageTemplate',
  tags,
  summary: 'Copy a message template as "<name> (copy)", version 1',
  request: { params: idParam() },
  responses: { 201: jsonContent(successBody(messageTemplate), 'The copy') },
});

const uploadRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/message-templates/upload-image',
  operationId: 'uploadMessageTemplateImage',
  tags,
  summary: 'Upload an image to embed in template bodies',
  description:
    'multipart/form-data, required field image: PNG, JPEG, WebP or GIF (type read from the bytes; SVG refused with 400), at most 5 MiB (413). ' +
    'Stores the file (purpose template_image) and answers its url for <img src="..."> in an email body. No template is changed. docs/crm-sequences.md.',
  request: {
    body: {
      content: { 'multipart/form-data': { schema: imageUploadForm } },
      required: true,
      description: 'multipart/form-data with one file field, image.',
    },
  },
  responses: {
    201: jsonContent(successBody(templateImageResult), 'Stored; data.url is the image url'),
    413: jsonContent(errorBody, `PAYLOAD_TOO_LARGE: the image is over ${MAX_IMAGE_BYTES} bytes (5 MiB).`),
    415: jsonContent(errorBody, 'UNSUPPORTED_MEDIA_TYPE: the body is not multipart/form-data.'),
  },
});
withDeclaredSizeCheck(uploadRoute);

export const messageTemplateRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listMessageTemplates(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(create, async (c) => {
    const created = await createMessageTemplate(handlerContext(c), c.req.valid('json'));
    return c.json(ok(created, 'Message template created'), 201);
  })
  // Declared before /{id} routes so "upload-image" is never taken for an id.
  .openapi(uploadRoute, async (c) => {
    const image = await checkImage(c.req.valid('form').image);
    return c.json(ok(await uploadTemplateImage(handlerContext(c), image), 'Image stored'), 201);
  })
  .openapi(get, async (c) => c.json(ok(await getMessageTemplate(handlerContext(c), c.req.valid('param').id)), 200))
  .openapi(update, async (c) => {
    const updated = await updateMessageTemplate(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(updated, 'Message template updated'), 200);
  })
  .openapi(remove, async (c) => {
    const deleted = await deleteMessageTemplate(handlerContext(c), c.req.valid('param').id);
    return c.json(ok(deleted, 'Message template deleted'), 200);
  })
  .openapi(duplicate, async (c) => {
    const copy = await duplicateMessageTemplate(handlerContext(c), c.req.valid('param').id);
    return c.json(ok(copy, 'Message template duplicated'), 201);
  });
