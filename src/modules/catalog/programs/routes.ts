import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { programsOverview } from './overview';
import { programProductRoutes } from './products/routes';
import {
  createProgramBody,
  listProgramsQuery,
  overview,
  program,
  syncAllResult,
  syncResult,
  syncStatus as syncStatusSchema,
  updateProgramBody,
  windDownConflict,
} from './schemas';
import { createProgram, deleteProgram, duplicateProgram, getProgram, listPrograms, updateProgram } from './service';
import { syncAllPrograms, syncProgram, syncStatus } from './sync';
import { programTitrationProtocolRoutes } from './titration-protocols/routes';

const tags = ['Programs'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;
const programBody = (description: string) => jsonContent(successBody(program), description);

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/programs',
  operationId: 'listPrograms',
  tags,
  summary: "List the clinic's programs (retired ones only with state=retired)",
  request: { query: listProgramsQuery },
  responses: { 200: jsonContent(pagedBody(program), 'Programs, newest first, each with its products and counts') },
});

const create = defineRoute(write, {
  method: 'post',
  path: '/api/v1/programs',
  operationId: 'createProgram',
  recordedValues: ['isActive', 'isFeatured', 'nonMedicalServiceFee', 'accentColor', 'state'],
  tags,
  summary: 'Create a program (from scratch, or derived from a program template)',
  request: { body: jsonBody(createProgramBody) },
  responses: {
    201: programBody('Created'),
    409: jsonContent(errorBody, 'CONFLICT: customSlug already used by another program of the clinic'),
  },
});

const getOverview = defineRoute(read, {
  method: 'get',
  path: '/api/v1/programs/overview',
  operationId: 'getProgramsOverview',
  tags,
  summary: 'Program counts, patients, estimated monthly billing and net, and items needing attention',
  responses: { 200: jsonContent(successBody(overview), 'Overview') },
});

const syncAll = defineRoute(write, {
  method: 'post',
  path: '/api/v1/programs/sync-all',
  operationId: 'syncAllPrograms',
  tags,
  summary: 'Re-apply its template to every template-derived program that is not retired',
  responses: { 200: jsonContent(successBody(syncAllResult), 'Synced programs') },
});

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/programs/{id}',
  operationId: 'getProgram',
  tags,
  summary: 'One program (retired ones included)',
  request: { params: idParam() },
  responses: { 200: programBody('The program') },
});

const update = defineRoute(write, {
  method: 'put',
  path: '/api/v1/programs/{id}',
  operationId: 'updateProgram',
  recordedValues: ['isActive', 'isFeatured', 'nonMedicalServiceFee', 'accentColor', 'state'],
  tags,
  summary: 'Update program fields and, with productPricing, the clinic fee overrides',
  request: { params: idParam(), body: jsonBody(updateProgramBody) },
  responses: {
    200: programBody('The updated program; re-read GET /programs/{id}/products for prices'),
    409: jsonContent(errorBody, 'CONFLICT: customSlug already used, or a retired program offered again'),
  },
});

const remove = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/programs/{id}',
  operationId: 'deleteProgram',
  tags,
  summary: 'Delete a program, or retire it when work is in flight; refused while patients are enrolled',
  request: { params: idParam() },
  responses: {
    200: programBody('Removed (the program as it was) or retired (state retired, isActive false); the message says which'),
    409: jsonContent(windDownConflict, 'WINDDOWN_CONSENT_REQUIRED: patients are enrolled; data.patients is their count'),
  },
});

const duplicate = defineRoute(write, {
  method: 'post',
  path: '/api/v1/programs/{id}/duplicate',
  operationId: 'duplicateProgram',
  tags,
  summary: 'Deep copy of the program, its products and fees and its titration attachments, as a draft',
  request: { params: idParam() },
  responses: { 201: programBody('The copy') },
});

const sync = defineRoute(write, {
  method: 'post',
  path: '/api/v1/programs/{id}/sync',
  operationId: 'syncProgram',
  tags,
  summary: 'Re-apply the template to one derived program (products and base fees; clinic overrides stay)',
  request: { params: idParam() },
  responses: {
    200: jsonContent(successBody(syncResult), 'Synced'),
    409: jsonContent(errorBody, 'CONFLICT: not derived from a template, or retired'),
  },
});

const getSyncStatus = defineRoute(read, {
  method: 'get',
  path: '/api/v1/programs/{id}/sync-status',
  operationId: 'getProgramSyncStatus',
  tags,
  summary: 'Whether the program is behind its template version',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(syncStatusSchema), 'Sync status') },
});

/** Static paths (overview, sync-all) are registered before /programs/{id}. */
export const programRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const ctx = handlerContext(c);
    const { data, pagination } = await listPrograms(ctx, c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(create, async (c) => {
    return c.json(ok(await createProgram(handlerContext(c), c.req.valid('json')), 'Program created'), 201);
  })
  .openapi(getOverview, async (c) => {
    return c.json(ok(await programsOverview(handlerContext(c))), 200);
  })
  .openapi(syncAll, async (c) => {
    return c.json(ok(await syncAllPrograms(handlerContext(c)), 'Programs synced'), 200);
  })
  .openapi(get, async (c) => {
    return c.json(ok(await getProgram(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(update, async (c) => {
    return c.json(ok(await updateProgram(handlerContext(c), c.req.valid('param').id, c.req.valid('json')), 'Program updated'), 200);
  })
  .openapi(remove, async (c) => {
    const ctx = handlerContext(c);
    const { outcome, program: answered } = await deleteProgram(ctx, c.req.valid('param').id);
    const message =
      outcome === 'deleted' ? 'Program deleted' : 'Program retired: no longer offered to new patients; work in flight continues';
    return c.json(ok(answered, message), 200);
  })
  .openapi(duplicate, async (c) => {
    return c.json(ok(await duplicateProgram(handlerContext(c), c.req.valid('param').id), 'Program duplicated'), 201);
  })
  .openapi(sync, async (c) => {
    return c.json(ok(await syncProgram(handlerContext(c), c.req.valid('param').id), 'Program synced'), 200);
  })
  .openapi(getSyncStatus, async (c) => {
    return c.json(ok(await syncStatus(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .route('/', programProductRoutes)
  .route('/', programTitrationProtocolRoutes);
