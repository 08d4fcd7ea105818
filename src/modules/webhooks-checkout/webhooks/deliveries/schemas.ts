import { z } from '@hono/zod-openapi';
import { WEBHOOK_DELIVERY_STATUSES } from '../../../../../drizzle/schema';
import { WEBHOOK_EVENTS } from '../../../../platform/events/names';
import { pathId } from '../../../../platform/values/ids';

export const deliveryParams = z.object({ id: pathId('id'), deliveryId: pathId('deliveryId') });

export const webhookDelivery = z
  .object({
    id: z.string().uuid(),
    event: z.enum(WEBHOOK_EVENTS).openapi({ example: 'order.created' }),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).openapi({
      description:
        'pending (waiting for its next attempt), held (created while its endpoint was off: not attempted until it is turned on, then pending), succeeded, or failed (retry schedule exhausted, or its endpoint was deleted).',
    }),
    attempts: z.number().int().openapi({ description: 'HTTP attempts made so far (at most 8).' }),
    lastResponseStatus: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'HTTP status of the last attempt; null before the first or after a timeout or network error.' }),
    createdAt: z.string().datetime(),
    lastAttemptAt: z.string().datetime().nullable(),
    nextAttemptAt: z.string().datetime().nullable().openapi({ description: 'When the next attempt is due (pending only).' }),
    succeededAt: z.string().datetime().nullable(),
    idempotencyKey: z.string().openapi({
      description:
        'X-Service-Idempotency-Key and webhook-id: the event id (GET /api/v1/events/{id}), the same across retries, replays and endpoints.',
      example: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10',
    }),
    replayOf: z.string().uuid().nullable().openapi({ description: 'The delivery this one replays, if any.' }),
  })
  .openapi('WebhookDelivery');
export type WebhookDeliveryView = z.infer<typeof webhookDelivery>;
