import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam, pathId } from '../../../platform/values/ids';
import { assignTagBody, createTagBody, listTagsQuery, removedTagAssignment, tag, tagAssignment, updateTagBody } from './schemas';
import { assignTag, createTag, deleteTag, listTags, unassignTag, updateTag } from './service';

const tags = ['CRM contacts and tags'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;
const nameTaken = jsonContent(errorBody, 'CONFLICT: another tag of the clinic has this name (ignoring case)');

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/tags',
  operationId: 'listTags',
  tags,
  summary: "List the clinic's tags, newest first (filters: category, isActive)",
  request: { query: listTagsQuery },
  responses: { 200: jsonContent(pagedBody(tag), 'Tags') },
});

const create = defineRoute(write, {
  method: 'post',
  path: '/api/v1/tags',
  operationId: 'createTag',
  recordedValues: ['color', 'isActive'],
  tags,
  summary: 'Create a tag',
  request: { body: jsonBody(createTagBody) },
  responses: { 201: jsonContent(successBody(tag), 'Created'), 409: nameTaken },
});

const update = defineRoute(write, {
  method: 'put',
  path: '/api/v1/tags/{id}',
  operationId: 'updateTag',
  recordedValues: ['color', 'isActive'],
  tags,
  summary: 'Update a tag (only the fields sent change)',
  request: { params: idParam(), body: jsonBody(updateTagBody) },
  responses: { 200: jsonContent(successBody(tag), 'Updated'), 409: nameTaken },
});

const remove = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/tags/{id}',
  operationId: 'deleteTag',
  tags,
  summary: 'Delete a tag; it is taken off every contact that had it',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(tag), 'Deleted: the tag as it was') },
});

const assign = defineRoute(write, {
  method: 'post',
  path: '/api/v1/tags/{id}/assign',
  operationId: 'assignTag',
  tags,
  summary: 'Put the tag on a contact (idempotent: assigning it again answers 201 with alreadyAssigned true)',
  request: { params: idParam(), body: jsonBody(assignTagBody) },
  responses: {
    201: jsonContent(successBody(tagAssignment), 'Assigned (or already assigned)'),
    404: jsonContent(errorBody, "Unknown, malformed or other-clinic tag, or userId is not one of the clinic's contacts"),
    409: jsonContent(errorBody, 'CONFLICT: the tag is inactive (existing assignments stay; new ones are refused)'),
  },
});

const unassign = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/tags/{id}/assign/{userId}',
  operationId: 'unassignTag',
  tags,
  summary: 'Take the tag off a contact',
  request: { params: z.object({ id: pathId('id'), userId: pathId('userId') }) },
  responses: {
    200: jsonContent(successBody(removedTagAssignment), 'Removed'),
    404: jsonContent(errorBody, "The contact does not have the tag, or the tag or contact is unknown, malformed or another clinic's"),
  },
});

export const tagRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listTags(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(create, async (c) => c.json(ok(await createTag(handlerContext(c), c.req.valid('json')), 'Tag created'), 201))
  .openapi(update, async (c) => {
    const updated = await updateTag(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(updated, 'Tag updated'), 200);
  })
  .openapi(remove, async (c) => c.json(ok(await deleteTag(handlerContext(c), c.req.valid('param').id), 'Tag deleted'), 200))
  .openapi(assign, async (c) => {
    const result = await assignTag(handlerContext(c), c.req.valid('param').id, c.req.valid('json').userId);
    return c.json(ok(result, result.alreadyAssigned ? 'Tag already assigned' : 'Tag assigned'), 201);
  })
  .openapi(unassign, async (c) => {
    const { id, userId } = c.req.valid('param');
    return c.json(ok(await unassignTag(handlerContext(c), id, userId), 'Tag removed'), 200);
  });
