import { z } from '@hono/zod-openapi';
import { REFUND_STATUSES } from '../../../../drizzle/schema';
import { errorBody, jsonContent } from '../../../platform/http/envelope';
import { timestamp } from '../../../platform/values/fields';
import { safeString, text } from '../../../platform/values/strings';

const uuidText = () => safeString().max(100);

export const createRefundBody = z
  .object({
    orderId: uuidText().openapi({
      format: 'uuid',
      description: "One of the clinic's orders (unknown, malformed and other clinics' ids: 404).",
      example: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10',
    }),
    reason: text()
      .trim()
      .min(1)
      .max(500)
      .openapi({ description: 'Why the order is refunded (1-500 characters).', example: 'Patient changed their mind' }),
  })
  .strict()
  .openapi('CreateRefundRequest');

export const refundBody = z
  .object({
    id: z.string().uuid(),
    orderId: z.string().uuid(),
    orderNumber: z.string(),
    amount: z.number().openapi({ description: "Refunded to the patient: the order's total, US dollars (full refunds only)." }),
    clinicDebit: z
      .number()
      .openapi({ description: "Taken from the clinic's balance: the brand amount it received for the order, US dollars." }),
    status: z.enum(REFUND_STATUSES).openapi({ description: 'Refunds are issued synchronously: succeeded today.', example: 'succeeded' }),
    processorRefundId: z.string().nullable().openapi({ description: "The payment processor's refund id (re_...)." }),
    reason: z.string().nullable(),
    refundRequestId: z.string().uuid().nullable().openapi({ description: 'The refund request it approved, if any.' }),
    createdAt: timestamp(),
  })
  .openapi('Refund');
export type RefundData = z.infer<typeof refundBody>;

/** The processor's refusals of a refund, answered by POST /refunds and by approving a refund request. */
export const processorErrors = {
  502: jsonContent(errorBody, 'PAYMENT_PROCESSOR_ERROR: the processor refused the refund; nothing was stored'),
  503: jsonContent(errorBody, 'PAYMENT_PROCESSOR_UNAVAILABLE (Retry-After) or the database is unavailable; nothing was stored'),
};
