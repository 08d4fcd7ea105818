import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { createRefundBody, processorErrors, refundBody } from './schemas';
import { refundOrder } from './service';

const tags = ['Payouts and refunds'];

const create = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/refunds',
    operationId: 'createRefund',
    tags,
    summary: "Fully refund one of the clinic's orders (30-day window, balance check, once per order)",
    description:
      "Full refund only (the order's total back to the patient; the brand amount taken from the clinic's balance). 404 for an unknown, malformed or other clinic's orderId; 409 ALREADY_REFUNDED, 409 ORDER_NOT_PAID, 400 REFUND_WINDOW_CLOSED (more than 30 days after the order), 400 INSUFFICIENT_BALANCE. docs/payouts-and-refunds.md.",
    request: { body: jsonBody(createRefundBody) },
    responses: {
      201: jsonContent(successBody(refundBody), 'The refund'),
      404: jsonContent(errorBody, "Unknown, malformed or other clinic's orderId"),
      409: jsonContent(errorBody, 'ALREADY_REFUNDED or ORDER_NOT_PAID'),
      ...processorErrors,
    },
  },
);

export const refundRoutes = new OpenAPIHono<AppEnv>().openapi(create, async (c) => {
  const refund = await refundOrder(handlerContext(c), c.req.valid('json'));
  return c.json(ok(refund, 'Order refunded'), 201);
});
