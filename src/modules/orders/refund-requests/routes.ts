import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { processorErrors } from '../refunds/schemas';
import { decideBody, decideParams, decideResult, refundRequestQuery, refundRequestRow } from './schemas';
import { decideRefundRequest, listRefundRequests } from './service';

const tags = ['Payouts and refunds'];

const list = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/refund-requests',
    operationId: 'listRefundRequests',
    tags,
    summary: "Patients' refund requests: pending first, then decided ones, newest first (paged; status filter)",
    request: { query: refundRequestQuery },
    responses: { 200: jsonContent(pagedBody(refundRequestRow), 'Refund requests') },
  },
);

const decide = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/refund-requests/{id}/{action}',
    operationId: 'decideRefundRequest',
    recordedValues: ['action'],
    tags,
    summary: 'Approve (issues the refund under the POST /refunds rules) or deny a pending refund request',
    description:
      'action is approve or deny (anything else: 400 naming path.action). A request already decided: 409 REFUND_REQUEST_ALREADY_DECIDED. When the refund is refused (window, balance, already refunded), the request stays pending. docs/payouts-and-refunds.md.',
    request: { params: decideParams, body: jsonBody(decideBody) },
    responses: {
      200: jsonContent(successBody(decideResult), 'The decided request and, for approve, the refund'),
      409: jsonContent(errorBody, 'REFUND_REQUEST_ALREADY_DECIDED, ALREADY_REFUNDED or ORDER_NOT_PAID'),
      ...processorErrors,
    },
  },
);

export const refundRequestRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listRefundRequests(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(decide, async (c) => {
    const { id, action } = c.req.valid('param');
    const result = await decideRefundRequest(handlerContext(c), id, action, c.req.valid('json').reviewNotes);
    return c.json(ok(result, action === 'approve' ? 'Refund request approved; the order was refunded' : 'Refund request denied'), 200);
  });
