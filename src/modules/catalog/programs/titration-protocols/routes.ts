import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { jsonBody, jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { defineRoute } from '../../../../platform/http/route';
import { idParam } from '../../../../platform/values/ids';
import { programAndAttachmentParams } from '../schemas';
import { attachTitrationBody, titrationAttachment, updateTitrationBody } from './schemas';
import { attachProtocol, detachProtocol, listAttachments, updateAttachment } from './service';

const tags = ['Programs'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;

const listTitration = defineRoute(read, {
  method: 'get',
  path: '/api/v1/programs/{id}/titration-protocols',
  operationId: 'listProgramTitrationProtocols',
  tags,
  summary: 'Titration protocols attached to the program, by position',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(z.array(titrationAttachment)), 'Attachments') },
});

const attach = defineRoute(write, {
  method: 'post',
  path: '/api/v1/programs/{id}/titration-protocols',
  operationId: 'attachProgramTitrationProtocol',
  recordedValues: ['flatFee', 'allowedBillingMonths', 'position'],
  tags,
  summary: 'Attach a shared titration protocol to the program',
  request: { params: idParam(), body: jsonBody(attachTitrationBody) },
  responses: { 201: jsonContent(successBody(titrationAttachment), 'Attached') },
});

const updateTitration = defineRoute(write, {
  method: 'put',
  path: '/api/v1/programs/{id}/titration-protocols/{attachmentId}',
  operationId: 'updateProgramTitrationProtocol',
  recordedValues: ['flatFee', 'allowedBillingMonths', 'position'],
  tags,
  summary: "Change an attachment's flat fee, billing months or position",
  request: { params: programAndAttachmentParams, body: jsonBody(updateTitrationBody) },
  responses: { 200: jsonContent(successBody(titrationAttachment), 'Updated') },
});

const detach = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/programs/{id}/titration-protocols/{attachmentId}',
  operationId: 'detachProgramTitrationProtocol',
  tags,
  summary: 'Detach a titration protocol from the program',
  request: { params: programAndAttachmentParams },
  responses: { 200: jsonContent(successBody(titrationAttachment), 'Detached (the attachment as it was)') },
});

export const programTitrationProtocolRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listTitration, async (c) => {
    return c.json(ok(await listAttachments(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(attach, async (c) => {
    const ctx = handlerContext(c);
    return c.json(ok(await attachProtocol(ctx, c.req.valid('param').id, c.req.valid('json')), 'Titration protocol attached'), 201);
  })
  .openapi(updateTitration, async (c) => {
    const ctx = handlerContext(c);
    const { id, attachmentId } = c.req.valid('param');
    return c.json(ok(await updateAttachment(ctx, id, attachmentId, c.req.valid('json')), 'Attachment updated'), 200);
  })
  .openapi(detach, async (c) => {
    const ctx = handlerContext(c);
    const { id, attachmentId } = c.req.valid('param');
    return c.json(ok(await detachProtocol(ctx, id, attachmentId), 'Titration protocol detached'), 200);
  });
