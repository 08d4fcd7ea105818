import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { jsonBody, jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { pagedBody } from '../../../../platform/http/pagination';
import { defineRoute } from '../../../../platform/http/route';
import { illegal, read, tags, write } from '../access';
import { docIdParam, listTaxDocumentsQuery, rejectTaxDocumentBody, taxDocument } from './schemas';
import { listTaxDocuments, rejectTaxDocument, verifyTaxDocument } from './service';

const listTaxDocs = defineRoute(read, {
  method: 'get',
  path: '/api/v1/affiliate-program/tax-documents',
  operationId: 'listAffiliateTaxDocuments',
  tags,
  summary: "List the affiliates' tax documents, newest submission first",
  request: { query: listTaxDocumentsQuery },
  responses: { 200: jsonContent(pagedBody(taxDocument), 'Tax documents') },
});

const verify = defineRoute(write, {
  method: 'post',
  path: '/api/v1/affiliate-program/tax-documents/{docId}/verify',
  operationId: 'verifyAffiliateTaxDocument',
  tags,
  summary: 'Verify a pending tax document',
  request: { params: docIdParam },
  responses: { 200: jsonContent(successBody(taxDocument), 'The verified document'), 409: illegal('the document is not pending') },
});

const reject = defineRoute(write, {
  method: 'post',
  path: '/api/v1/affiliate-program/tax-documents/{docId}/reject',
  operationId: 'rejectAffiliateTaxDocument',
  tags,
  summary: 'Reject a pending tax document, with a reason',
  request: { params: docIdParam, body: jsonBody(rejectTaxDocumentBody) },
  responses: { 200: jsonContent(successBody(taxDocument), 'The rejected document'), 409: illegal('the document is not pending') },
});

export const taxDocumentRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listTaxDocs, async (c) => {
    const { data, pagination } = await listTaxDocuments(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(verify, async (c) => {
    return c.json(ok(await verifyTaxDocument(handlerContext(c), c.req.valid('param').docId), 'Tax document verified'), 200);
  })
  .openapi(reject, async (c) => {
    const rejected = await rejectTaxDocument(handlerContext(c), c.req.valid('param').docId, c.req.valid('json').reason);
    return c.json(ok(rejected, 'Tax document rejected'), 200);
  });
