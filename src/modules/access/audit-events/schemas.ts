import { z } from '@hono/zod-openapi';
import { pageQuery } from '../../../platform/http/pagination';
import { dateTime } from '../../../platform/values/dates';
import { safeString } from '../../../platform/values/strings';

const filter = (description: string, example: string) => safeString().trim().min(1).max(200).optional().openapi({ description, example });

const range = {
  createdGte: dateTime()
    .optional()
    .openapi({ description: 'Events at or after this instant (ISO 8601 with a zone).', example: '2030-01-01T00:00:00Z' }),
  createdLte: dateTime()
    .optional()
    .openapi({ description: 'Events at or before this instant (ISO 8601 with a zone).', example: '2030-01-31T23:59:59Z' }),
};

const rangeInOrder = (q: { createdGte?: string; createdLte?: string }, ctx: z.RefinementCtx) => {
  if (q.createdGte && q.createdLte && q.createdGte > q.createdLte)
    ctx.addIssue({ code: 'custom', path: ['createdLte'], message: 'must not be before createdGte' });
};

export const listAuditEventsQuery = pageQuery
  .extend({
    actorId: filter("The acting key's id, user's id, or system job's name.", '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10'),
    action: filter('An action, e.g. coupon.updated or patient_data.read.', 'coupon.updated'),
    targetType: filter('The kind of resource acted on, e.g. coupon or order.', 'coupon'),
    targetId: filter("The resource's id.", '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10'),
    ...range,
  })
  .superRefine(rangeInOrder);
export type ListAuditEventsQuery = z.infer<typeof listAuditEventsQuery>;

export const exportAuditEventsQuery = z.object(range).superRefine(rangeInOrder);
export type ExportAuditEventsQuery = z.infer<typeof exportAuditEventsQuery>;

const change = z
  .object({
    old: z.unknown().optional().openapi({ description: 'The value before the write, where it was read.' }),
    new: z.unknown().optional().openapi({ description: 'The value written.' }),
    redacted: z.literal(true).optional().openapi({ description: 'Patient data or a secret: the field is named, its values are not kept.' }),
  })
  .openapi('AuditChange');

export const auditEvent = z
  .object({
    id: z.string().openapi({
      description: "The event's id in its clinic: its place in the clinic's chain (seq), as a string. Ids of two clinics may be equal.",
      example: '42',
    }),
    seq: z.number().int().openapi({ description: "The event's place in the clinic's hash chain, from 1.", example: 42 }),
    createdAt: z.string().datetime(),
    actor: z.object({
      kind: z.enum(['key', 'user', 'system']),
      id: z.string(),
      label: z.string().nullable().openapi({ description: "The key's prefix or the user's email." }),
    }),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    requestId: z.string().nullable(),
    action: z.string().openapi({ example: 'coupon.updated' }),
    route: z.string().nullable().openapi({ example: '/api/v1/coupons/{id}' }),
    targetType: z.string().openapi({ example: 'coupon' }),
    targetId: z.string().nullable(),
    changes: z.record(z.string(), change),
    prevHash: z.string(),
    hash: z.string(),
  })
  .openapi('AuditEvent');
export type AuditEvent = z.infer<typeof auditEvent>;

export const chainCheck = z
  .object({
    intact: z.boolean(),
    checked: z.number().int().openapi({ description: 'Rows checked (up to and including the first broken one).' }),
    brokenAt: z
      .object({ id: z.string(), seq: z.number().int() })
      .nullable()
      .openapi({ description: 'The first row that breaks the chain, or null.' }),
  })
  .openapi('AuditChainCheck');
