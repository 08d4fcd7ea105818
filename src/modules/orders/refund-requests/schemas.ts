import { z } from '@hono/zod-openapi';
import { REFUND_REQUEST_STATUSES } from '../../../../drizzle/schema';
import { pageQuery } from '../../../platform/http/pagination';
import { timestamp } from '../../../platform/values/fields';
import { pathId } from '../../../platform/values/ids';
import { text } from '../../../platform/values/strings';
import { orderStatus } from '../orders/schemas';
import { refundBody } from '../refunds/schemas';

export { REFUND_REQUEST_STATUSES };

export const refundRequestQuery = pageQuery.extend({
  status: z
    .enum(REFUND_REQUEST_STATUSES)
    .optional()
    .openapi({ description: 'Only requests in this status. Without it: pending first, then the rest, newest first within each.' }),
});

export type RefundRequestQuery = z.infer<typeof refundRequestQuery>;

export const refundRequestRow = z
  .object({
    id: z.string().uuid(),
    orderId: z.string().uuid(),
    orderNumber: z.string(),
    orderStatus,
    amount: z.number().openapi({ description: "The order's total, US dollars (what approving refunds)." }),
    orderCreatedAt: timestamp(),
    refundableUntil: timestamp().openapi({ description: 'orderCreatedAt + 30 days: approving later answers 400 REFUND_WINDOW_CLOSED.' }),
    status: z.enum(REFUND_REQUEST_STATUSES),
    reason: z.string().nullable(),
    reviewNotes: z.string().nullable(),
    decidedAt: timestamp().nullable(),
    createdAt: timestamp(),
    patient: z.object({ id: z.string().uuid(), firstName: z.string(), lastName: z.string(), email: z.string() }).nullable(),
    refundId: z.string().uuid().nullable().openapi({ description: 'The refund issued by approving it; null otherwise.' }),
  })
  .openapi('RefundRequest');

export type RefundRequestData = z.infer<typeof refundRequestRow>;

export const decideParams = z.object({
  id: pathId('id'),
  action: z.enum(['approve', 'deny']).openapi({
    param: { name: 'action', in: 'path' },
    description: 'approve (issues the refund) or deny; anything else is 400 naming path.action.',
    example: 'approve',
  }),
});

export const decideBody = z
  .object({
    reviewNotes: text()
      .trim()
      .min(1)
      .max(2000)
      .openapi({ description: 'Recorded on the request (1-2000 characters).', example: 'Approved: shipment lost' }),
  })
  .strict()
  .openapi('DecideRefundRequest');

export const decideResult = z
  .object({
    request: refundRequestRow,
    refund: z.union([refundBody, z.null()]).openapi({ description: 'The refund an approval issued; null for deny.' }),
  })
  .openapi('RefundRequestDecision');
