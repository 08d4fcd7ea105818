import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { deprecated, LEGACY_TREATMENTS } from '../../../platform/http/deprecation';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { badRequest } from '../../../platform/values/errors';
import { idParam } from '../../../platform/values/ids';
import { checkImageField, MAX_IMAGE_BYTES, withDeclaredSizeCheck } from '../../catalog';
import {
  brandTreatment,
  brandTreatmentBody,
  createTreatmentBody,
  logoUploadForm,
  logoUploadQuery,
  removedBrandTreatment,
  treatment,
  treatmentLogoResult,
  updateTreatmentBody,
} from './schemas';
import {
  addBrandTreatment,
  createTreatment,
  getTreatment,
  listBrandTreatments,
  listTreatments,
  removeBrandTreatment,
  removeTreatmentLogo,
  setTreatmentLogo,
  updateTreatment,
} from './service';

const tags = ['Treatments (legacy)'];
/** Every operation here is deprecated, with one schedule (docs/api-conventions.md, "Deprecation policy"). */
const legacy = deprecated(LEGACY_TREATMENTS);
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;
const treatmentNotFound = jsonContent(errorBody, "Treatment not found: unknown, or another clinic's.");

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/treatments',
  operationId: 'listTreatments',
  tags,
  ...legacy,
  summary: "List the clinic's treatments, oldest first",
  request: { query: pageQuery },
  responses: { 200: jsonContent(pagedBody(treatment), 'Treatments') },
});

const create = defineRoute(write, {
  method: 'post',
  path: '/api/v1/treatments',
  operationId: 'createTreatment',
  recordedValues: ['brandColor', 'productsPrice', 'isActive'],
  tags,
  ...legacy,
  summary: 'Create a treatment (its slug comes from the name, unique in the clinic)',
  request: { body: jsonBody(createTreatmentBody) },
  responses: {
    201: jsonContent(successBody(treatment), 'Created'),
    409: jsonContent(errorBody, 'CONFLICT: no free slug could be found under concurrent creations; retry'),
  },
});

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/treatments/{id}',
  operationId: 'getTreatment',
  tags,
  ...legacy,
  summary: "Get one of the clinic's treatments",
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(treatment), 'The treatment') },
});

const update = defineRoute(write, {
  method: 'put',
  path: '/api/v1/treatments/{id}',
  operationId: 'updateTreatment',
  recordedValues: ['brandColor', 'productsPrice', 'isActive'],
  tags,
  ...legacy,
  summary: 'Update a treatment (only the fields sent change)',
  request: { params: idParam(), body: jsonBody(updateTreatmentBody) },
  responses: { 200: jsonContent(successBody(treatment), 'Updated') },
});

const listBrand = defineRoute(read, {
  method: 'get',
  path: '/api/v1/brand-treatments',
  operationId: 'listBrandTreatments',
  tags,
  ...legacy,
  summary: 'List the treatments the brand offers (its selections), newest first',
  request: { query: pageQuery },
  responses: { 200: jsonContent(pagedBody(brandTreatment), 'Brand treatments') },
});

const addBrand = defineRoute(write, {
  method: 'post',
  path: '/api/v1/brand-treatments',
  operationId: 'addBrandTreatment',
  tags,
  ...legacy,
  summary: "Select one of the clinic's treatments for the brand",
  request: { body: jsonBody(brandTreatmentBody) },
  responses: {
    201: jsonContent(successBody(brandTreatment), 'Selected'),
    404: treatmentNotFound,
    409: jsonContent(errorBody, 'CONFLICT: the treatment is already selected'),
  },
});

const removeBrand = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/brand-treatments',
  operationId: 'removeBrandTreatment',
  tags,
  ...legacy,
  summary: 'Stop offering a treatment (deletes the selection)',
  request: { body: jsonBody(brandTreatmentBody) },
  responses: {
    200: jsonContent(successBody(removedBrandTreatment), 'Removed'),
    404: jsonContent(errorBody, "Brand treatment not found: the treatment is not selected, unknown, or another clinic's."),
  },
});

const uploadLogoRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/treatment/{id}/upload-logo',
  operationId: 'uploadTreatmentLogo',
  tags,
  ...legacy,
  summary: "Upload or remove a treatment's logo",
  description:
    'multipart/form-data with the file field logo (PNG, JPEG, WebP or GIF by its bytes, SVG refused; at most 5 MiB, 413 above) sets the logo; ' +
    'removeLogo=true (a form field, or the query parameter with no body) clears it. A logo together with removeLogo=true, or neither, is a 400. ' +
    'Other content types (JSON included) answer 415. docs/treatments.md.',
  request: {
    params: idParam(),
    query: logoUploadQuery,
    body: {
      // The example sends a logo: with removeLogo=true as well it would be a 400.
      content: { 'multipart/form-data': { schema: logoUploadForm, example: { removeLogo: undefined } } },
      required: false,
      description:
        'multipart/form-data (or application/x-www-form-urlencoded for removeLogo alone) with the field logo, or removeLogo=true.',
    },
  },
  responses: {
    200: jsonContent(successBody(treatmentLogoResult), "Stored (or removed); data.logoUrl is the treatment's logo now"),
    413: jsonContent(errorBody, `PAYLOAD_TOO_LARGE: the logo is over ${MAX_IMAGE_BYTES} bytes (5 MiB).`),
    415: jsonContent(errorBody, 'UNSUPPORTED_MEDIA_TYPE: the body is not a form.'),
  },
});
withDeclaredSizeCheck(uploadLogoRoute);

export const treatmentRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listTreatments(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(create, async (c) => {
    return c.json(ok(await createTreatment(handlerContext(c), c.req.valid('json')), 'Treatment created'), 201);
  })
  .openapi(get, async (c) => {
    return c.json(ok(await getTreatment(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(update, async (c) => {
    const updated = await updateTreatment(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(updated, 'Treatment updated'), 200);
  })
  .openapi(listBrand, async (c) => {
    const { data, pagination } = await listBrandTreatments(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(addBrand, async (c) => {
    const added = await addBrandTreatment(handlerContext(c), c.req.valid('json').treatmentId);
    return c.json(ok(added, 'Treatment selected'), 201);
  })
  .openapi(removeBrand, async (c) => {
    const removed = await removeBrandTreatment(handlerContext(c), c.req.valid('json').treatmentId);
    return c.json(ok(removed, 'Treatment removed from the brand'), 200);
  })
  .openapi(uploadLogoRoute, async (c) => {
    const ctx = handlerContext(c);
    const { id } = c.req.valid('param');
    const form = c.req.valid('form') as { logo?: File; removeLogo?: 'true' | 'false' };
    const query = c.req.valid('query');
    if (form.removeLogo !== undefined && query.removeLogo !== undefined && form.removeLogo !== query.removeLogo) {
      throw badRequest('Invalid input: removeLogo differs between the form and the query');
    }
    const remove = (form.removeLogo ?? query.removeLogo) === 'true';
    if (form.logo) {
      if (remove) throw badRequest('Invalid body: send either a logo or removeLogo=true, not both');
      const image = await checkImageField(form.logo, 'logo');
      return c.json(ok(await setTreatmentLogo(ctx, id, image), 'Treatment logo stored'), 200);
    }
    if (remove) return c.json(ok(await removeTreatmentLogo(ctx, id), 'Treatment logo removed'), 200);
    throw badRequest('Invalid body: send multipart/form-data with the file field logo, or removeLogo=true');
  });
