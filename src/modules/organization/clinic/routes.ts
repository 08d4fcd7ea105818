// The clinic profile, its slug and its logo (docs/organization.md, "Clinic").
import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { checkLogo, logoMultipartBody, logoUploadErrors, withDeclaredSizeCheck } from './logo-upload';
import { clinicProfile, logoResult, slugAvailability, slugParam, updateClinicBody } from './schemas';
import { getClinic, isSlugAvailable, setClinicLogo, updateClinic } from './service';

const tags = ['Organization and clinic'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/clinic',
  operationId: 'getClinic',
  tags,
  summary: 'The clinic profile',
  responses: { 200: jsonContent(successBody(clinicProfile), 'The clinic') },
});

const update = defineRoute(write, {
  method: 'put',
  path: '/api/v1/clinic/{id}',
  operationId: 'updateClinic',
  tags,
  summary: 'Update the clinic profile (only the fields sent change)',
  description:
    "{id} must be the key's own clinic; any other id (malformed included) answers 404. A slug another clinic has, or one the platform reserves, answers 409.",
  request: { params: idParam(), body: jsonBody(updateClinicBody) },
  responses: {
    200: jsonContent(successBody(clinicProfile), 'Updated'),
    409: jsonContent(errorBody, 'CONFLICT: the slug is taken by another clinic or reserved'),
  },
});

const checkSlug = defineRoute(read, {
  method: 'get',
  path: '/api/v1/clinic/check-slug/{slug}',
  operationId: 'checkClinicSlug',
  tags,
  summary: 'Whether a slug is available to the clinic',
  description:
    "At top level: { success, available }. A slug that is not well-formed answers 400. The clinic's own current slug is available; reserved slugs are not. " +
    'The path overlaps POST /clinic/{id}/upload-logo (the specification has both): GET /clinic/check-slug/upload-logo checks the slug "upload-logo". ' +
    'The methods differ, so no request matches both (docs/api-conventions.md, "Overlapping paths").',
  'x-path-overlap': {
    path: '/api/v1/clinic/{id}/upload-logo',
    methods: ['post'],
    note: 'The same URL can match both paths; the methods differ, so a request reaches exactly one operation.',
  },
  request: { params: slugParam },
  responses: { 200: jsonContent(slugAvailability, 'available true or false') },
});

const uploadForClinic = withDeclaredSizeCheck(
  defineRoute(write, {
    method: 'post',
    path: '/api/v1/clinic/{id}/upload-logo',
    operationId: 'uploadClinicLogo',
    tags,
    summary: "Upload the clinic logo (the {id} is ignored: always the key's clinic)",
    description:
      'multipart/form-data, required file field logo: PNG, JPEG, WebP or GIF (type read from the bytes; SVG refused with 400), at most 5 MiB (413). ' +
      "Stores the file and sets the clinic's logoUrl. The path id is ignored, as the specification says: the logo is always the key's own clinic's. Same as POST /api/v1/upload/logo. " +
      'The path overlaps GET /clinic/check-slug/{slug} (the specification has both): POST /clinic/check-slug/upload-logo is this operation. ' +
      'The methods differ, so no request matches both (docs/api-conventions.md, "Overlapping paths").',
    'x-path-overlap': {
      path: '/api/v1/clinic/check-slug/{slug}',
      methods: ['get'],
      note: 'The same URL can match both paths; the methods differ, so a request reaches exactly one operation.',
    },
    request: { params: idParam(), body: logoMultipartBody },
    responses: { 200: jsonContent(successBody(logoResult), "Stored; data.logoUrl is the clinic's logo now"), ...logoUploadErrors },
  }),
);

const upload = withDeclaredSizeCheck(
  defineRoute(write, {
    method: 'post',
    path: '/api/v1/upload/logo',
    operationId: 'uploadLogo',
    tags,
    summary: 'Upload the clinic logo',
    description:
      "multipart/form-data, required file field logo (PNG, JPEG, WebP or GIF by its bytes, at most 5 MiB). Stores the file and sets the clinic's logoUrl.",
    request: { body: logoMultipartBody },
    responses: { 200: jsonContent(successBody(logoResult), "Stored; data.logoUrl is the clinic's logo now"), ...logoUploadErrors },
  }),
);

export const clinicRoutes = new OpenAPIHono<AppEnv>()
  .openapi(get, async (c) => {
    return c.json(ok(await getClinic(handlerContext(c))), 200);
  })
  .openapi(checkSlug, async (c) => {
    const available = await isSlugAvailable(handlerContext(c), c.req.valid('param').slug);
    return c.json({ success: true as const, message: available ? 'The slug is available' : 'The slug is taken', available }, 200);
  })
  .openapi(update, async (c) => {
    const clinic = await updateClinic(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(clinic, 'Clinic updated'), 200);
  })
  .openapi(uploadForClinic, async (c) => {
    const image = await checkLogo(c.req.valid('form').logo);
    return c.json(ok(await setClinicLogo(handlerContext(c), image), 'Clinic logo stored'), 200);
  })
  .openapi(upload, async (c) => {
    const image = await checkLogo(c.req.valid('form').logo);
    return c.json(ok(await setClinicLogo(handlerContext(c), image), 'Clinic logo stored'), 200);
  });
