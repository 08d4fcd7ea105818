import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { formGlobalProduct, linkFormBody, unlinkedForm, unlinkFormBody } from './schemas';
import { linkFormGlobalProduct, listFormGlobalProducts, unlinkFormGlobalProduct } from './service';

const tags = ['Forms'];

const list = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/forms/global-products',
    operationId: 'listFormGlobalProducts',
    tags,
    summary: "List which global product each of the clinic's forms is for, newest link first",
    request: { query: pageQuery },
    responses: { 200: jsonContent(pagedBody(formGlobalProduct), 'Links, with the form and product names') },
  },
);

const link = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/forms/global-products',
    operationId: 'linkFormGlobalProduct',
    tags,
    summary: "Link one of the clinic's forms (questionnaires) to a global product",
    description:
      'A form is linked to one global product at most: linking a linked form answers 409 (unlink it first). docs/forms-and-intake.md.',
    request: { body: jsonBody(linkFormBody) },
    responses: {
      201: jsonContent(successBody(formGlobalProduct), 'Linked'),
      404: jsonContent(errorBody, "Form not found (unknown, or another clinic's questionnaire) or Global product not found"),
      409: jsonContent(errorBody, 'CONFLICT: the form is already linked to a global product'),
    },
  },
);

const unlink = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'delete',
    path: '/api/v1/forms/global-products',
    operationId: 'unlinkFormGlobalProduct',
    tags,
    summary: "Remove the global-product link of one of the clinic's forms",
    request: { body: jsonBody(unlinkFormBody) },
    responses: {
      200: jsonContent(successBody(unlinkedForm), 'Unlinked'),
      404: jsonContent(errorBody, "Form link not found: the form is not linked, unknown, or another clinic's"),
    },
  },
);

export const formRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listFormGlobalProducts(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(link, async (c) => {
    return c.json(ok(await linkFormGlobalProduct(handlerContext(c), c.req.valid('json')), 'Form linked'), 201);
  })
  .openapi(unlink, async (c) => {
    const removed = await unlinkFormGlobalProduct(handlerContext(c), c.req.valid('json').formId);
    return c.json(ok(removed, 'Form unlinked'), 200);
  });
