import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import {
  createSequenceBody,
  listSequencesQuery,
  manualTriggerBody,
  manualTriggerResult,
  replaceStepsBody,
  sequence,
  updateSequenceBody,
} from './schemas';
import { createSequence, getSequence, listSequences, replaceSequenceSteps, triggerManually, updateSequence } from './service';

const tags = ['CRM sequences'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/sequences',
  operationId: 'listSequences',
  tags,
  summary: "List the clinic's sequences, newest first, each with its steps and analytics",
  request: { query: listSequencesQuery },
  responses: { 200: jsonContent(pagedBody(sequence), 'Sequences') },
});

const create = defineRoute(write, {
  method: 'post',
  path: '/api/v1/sequences',
  operationId: 'createSequence',
  recordedValues: ['triggerEvent'],
  tags,
  summary: 'Create a sequence (status draft, no steps)',
  request: { body: jsonBody(createSequenceBody, { triggerEvent: 'tag_added' }) },
  responses: { 201: jsonContent(successBody(sequence), 'Created, in draft') },
});

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/sequences/{id}',
  operationId: 'getSequence',
  tags,
  summary: 'Get a sequence with its steps and analytics (enrolled, active, completed, sent, skipped...)',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(sequence), 'The sequence') },
});

const update = defineRoute(write, {
  method: 'put',
  path: '/api/v1/sequences/{id}',
  operationId: 'updateSequence',
  recordedValues: ['status', 'triggerEvent'],
  tags,
  summary: 'Update a sequence: name, description, trigger, and status (activate, pause, resume, archive)',
  description:
    'Status moves: draft -> active; active <-> paused; draft, active or paused -> archived. Any other move answers 409 ILLEGAL_TRANSITION, ' +
    'as does any change to an archived sequence. Activating needs at least one step whose templates all still exist (409 CONFLICT). ' +
    'Archiving cancels the enrollments in progress. docs/crm-sequences.md.',
  request: { params: idParam(), body: jsonBody(updateSequenceBody, { triggerEvent: 'tag_added' }) },
  responses: {
    200: jsonContent(successBody(sequence), 'Updated'),
    409: jsonContent(
      errorBody,
      'ILLEGAL_TRANSITION: a status move not allowed, or the sequence is archived; CONFLICT: activation without steps or with a deleted template',
    ),
  },
});

const replaceSteps = defineRoute(write, {
  method: 'put',
  path: '/api/v1/sequences/{id}/steps',
  operationId: 'replaceSequenceSteps',
  tags,
  summary: 'Replace all steps of a draft or paused sequence',
  description:
    "The steps run in the order given. delay: timeSeconds > 0. email / sms: templateId of one of the clinic's own templates of the same type " +
    "(another clinic's or an unknown template answers the same 400), or useCustomText with customText (and customSubject for email). " +
    'An active sequence answers 409 (pause it first); enrollments in progress continue at their position with the new steps. docs/crm-sequences.md.',
  request: {
    params: idParam(),
    body: jsonBody(replaceStepsBody, {
      steps: [
        {
          type: 'delay',
          timeSeconds: 86_400,
          useCustomText: undefined,
          templateId: undefined,
          customText: undefined,
          customSubject: undefined,
        },
        { type: 'email', useCustomText: false, timeSeconds: undefined, customText: undefined, customSubject: undefined },
      ],
    }),
  },
  responses: {
    200: jsonContent(successBody(sequence), 'The sequence with its new steps'),
    409: jsonContent(errorBody, 'CONFLICT: the sequence is active (pause it first) or archived'),
  },
});

const manual = defineRoute(write, {
  method: 'post',
  path: '/api/v1/sequence-triggers/manual',
  operationId: 'triggerSequenceManually',
  tags,
  summary: 'Enroll one contact (userId), or every contact with a tag (tag), in an active sequence',
  description:
    'Exactly one of userId and tag (400 otherwise). The sequence must be active (409). An unknown or other-clinic sequence, contact or tag answers 404. ' +
    'Contacts already enrolled in the sequence (also those who completed it) are not enrolled again; the first step runs on the next sweep.',
  request: { body: jsonBody(manualTriggerBody, { tag: undefined }) },
  responses: {
    201: jsonContent(successBody(manualTriggerResult), 'Enrolled'),
    404: jsonContent(errorBody, 'Unknown, malformed or other-clinic sequence, contact or tag.'),
    409: jsonContent(errorBody, 'CONFLICT: the sequence is not active'),
  },
});

export const sequenceRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listSequences(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(create, async (c) => c.json(ok(await createSequence(handlerContext(c), c.req.valid('json')), 'Sequence created'), 201))
  .openapi(get, async (c) => c.json(ok(await getSequence(handlerContext(c), c.req.valid('param').id)), 200))
  .openapi(update, async (c) => {
    const updated = await updateSequence(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(updated, 'Sequence updated'), 200);
  })
  .openapi(replaceSteps, async (c) => {
    const updated = await replaceSequenceSteps(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(updated, 'Sequence steps replaced'), 200);
  })
  .openapi(manual, async (c) => {
    const result = await triggerManually(handlerContext(c), c.req.valid('json'));
    return c.json(ok(result, result.enrolled ? 'Enrolled' : 'Already enrolled'), 201);
  });
