import { z } from '@hono/zod-openapi';
import { safeString, text } from '../../../platform/http/strings';
import { pathId } from '../../../platform/http/ids';
import { pageQuery } from '../../../platform/http/pagination';

const iso = () => z.string().datetime();
const uuidText = () => safeString().max(100);

export const createRefundBody = z
  .object({
    orderId: uuidText().openapi({ format: 'uuid', description: "One of the clinic's orders (unknown, malformed and other clinics' ids: 404).", example: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10' }),
    reason: text().trim().min(1).max(500).openapi({ description: 'Why the order is refunded (1-500 characters).', example: 'Patient changed their mind' }),
  })
  .strict()
  .openapi('CreateRefundRequest');

export const refundBody = z
  .object({
    id: z.string().uuid(),
    orderId: z.string().uuid(),
    orderNumber: z.string(),
    amount: z.number().openapi({ description: "Refunded to the patient: the order's total, US dollars (full refunds only)." }),
    clinicDebit: z.number().openapi({ description: "Taken from the clinic's balance: the brand amount it received for the order, US dollars." }),
    status: z.string().openapi({ example: 'succeeded' }),
    processorRefundId: z.string().nullable().openapi({ description: "The payment processor's refund id (re_...)." }),
    reason: z.string().nullable(),
    refundRequestId: z.string().uuid().nullable().openapi({ description: 'The refund request it approved, if any.' }),
    createdAt: iso(),
  })
  .openapi('Refund');
export type RefundData = z.infer<typeof refundBody>;

export const REFUND_REQUEST_STATUSES = ['pending', 'approved', 'denied'] as const;

export const refundRequestQuery = pageQuery.extend({
  status: z.enum(REFUND_REQUEST_STATUSES).optional().openapi({ description: 'Only requests in this status. Without it: pending first, then the rest, newest first within each.' }),
});
export type RefundRequestQuery = z.infer<typeof refundRequestQuery>;

export const refundRequestRow = z
  .object({
    id: z.string().uuid(),
    orderId: z.string().uuid(),
    orderNumber: z.string(),
    orderStatus: z.string(),
    amount: z.number().openapi({ description: "The order's total, US dollars (what approving refunds)." }),
    orderCreatedAt: iso(),
    refundableUntil: iso().openapi({ description: 'orderCreatedAt + 30 days: approving later answers 400 REFUND_WINDOW_CLOSED.' }),
    status: z.enum(REFUND_REQUEST_STATUSES),
    reason: z.string().nullable(),
    reviewNotes: z.string().nullable(),
    decidedAt: iso().nullable(),
    createdAt: iso(),
    patient: z.object({ id: z.string().uuid(), firstName: z.string(), lastName: z.string(), email: z.string() }).nullable(),
    refundId: z.string().uuid().nullable().openapi({ description: 'The refund issued by approving it; null otherwise.' }),
  })
  .openapi('RefundRequest');
export type RefundRequestData = z.infer<typeof refundRequestRow>;

export const decideParams = z.object({
  id: pathId('id'),
  action: z.enum(['approve', 'deny']).openapi({ param: { name: 'action', in: 'path' }, description: 'approve (issues the refund) or deny; anything else is 400 naming path.action.', example: 'approve' }),
});

export const decideBody = z
  .object({ reviewNotes: text().trim().min(1).max(2000).openapi({ description: 'Recorded on the request (1-2000 characters).', example: 'Approved: shipment lost' }) })
  .strict()
  .openapi('DecideRefundRequest');

export const decideResult = z
  .object({ request: refundRequestRow, refund: z.union([refundBody, z.null()]).openapi({ description: 'The refund an approval issued; null for deny.' }) })
  .openapi('RefundRequestDecision');
