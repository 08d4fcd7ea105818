import { z } from '@hono/zod-openapi';
import { amount } from '../../../../platform/values/money';
import { safeString } from '../../../../platform/values/strings';
import { money } from '../products/schemas';

const billingMonths = z
  .array(z.number().int().min(1).max(12))
  .min(1)
  .max(12)
  .refine((months) => new Set(months).size === months.length, { message: 'must not repeat a month' })
  .openapi({ description: 'Billing intervals (months, 1–12) patients may choose, each once.', example: [1, 3] });

const position = z.number().int().min(0).max(10_000).openapi({ example: 0 });

const flatFee = amount().openapi({ type: 'number', description: 'Dollars.', example: 25 });

export const attachTitrationBody = z
  .object({
    titrationProtocolId: safeString().uuid(),
    flatFee: flatFee.default(0),
    allowedBillingMonths: billingMonths.default([1]),
    position: position.optional().openapi({ description: 'Default: after the last attachment.' }),
  })
  .strict()
  .openapi('AttachTitrationProtocolRequest');

export type AttachTitrationBody = z.infer<typeof attachTitrationBody>;

export const updateTitrationBody = z
  .object({ flatFee: flatFee.optional(), allowedBillingMonths: billingMonths.optional(), position: position.optional() })
  .strict()
  .openapi('UpdateTitrationAttachmentRequest');

export type UpdateTitrationBody = z.infer<typeof updateTitrationBody>;

export const titrationAttachment = z
  .object({
    id: z.string().uuid(),
    programId: z.string().uuid(),
    titrationProtocolId: z.string().uuid(),
    titrationProtocol: z.object({ id: z.string().uuid(), name: z.string(), maxLevel: z.number().int() }),
    flatFee: money('Dollars.'),
    allowedBillingMonths: z.array(z.number().int()),
    position: z.number().int(),
    createdAt: z.string().datetime(),
  })
  .openapi('ProgramTitrationAttachment');

export type TitrationAttachment = z.infer<typeof titrationAttachment>;
