import { z } from '@hono/zod-openapi';
import { WEBHOOK_DELIVERY_STATUSES } from '../../../../../drizzle/schema';
import { WEBHOOK_EVENTS } from '../../../../platform/events/names';
import { pageQuery } from '../../../../platform/http/pagination';
import { dateTime } from '../../../../platform/values/dates';
import { pathId } from '../../../../platform/values/ids';
import { ATTEMPT_ERRORS } from './send-attempt';

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
    test: z.boolean().openapi({
      description: 'A test send (POST /api/v1/webhooks/{id}/test): one attempt with an example body, never retried or replayed.',
    }),
  })
  .openapi('WebhookDelivery');
export type WebhookDeliveryView = z.infer<typeof webhookDelivery>;

export const listDeliveriesQuery = pageQuery.extend({
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional().openapi({ description: 'Only deliveries in this status.' }),
  event: z.enum(WEBHOOK_EVENTS).optional().openapi({ description: 'Only deliveries of this event name.', example: 'order.created' }),
  createdGte: dateTime()
    .optional()
    .openapi({ description: 'Only deliveries created at or after this time (ISO 8601 with a zone).', example: '2026-01-01T00:00:00Z' }),
  createdLte: dateTime()
    .optional()
    .openapi({ description: 'Only deliveries created at or before this time (ISO 8601 with a zone).', example: '2026-01-31T23:59:59Z' }),
});
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuery>;

export const webhookAttempt = z
  .object({
    id: z.string().uuid().openapi({ description: 'The attempt id: the X-Service-Delivery-Id header it was sent with.' }),
    attemptNumber: z.number().int().openapi({ description: '1 for the first attempt of the delivery.' }),
    attemptedAt: z.string().datetime(),
    responseStatus: z.number().int().nullable().openapi({ description: "The receiver's HTTP status; null when it gave none." }),
    durationMs: z.number().int().openapi({ description: 'From sending to the answer (0 when nothing was sent).' }),
    error: z
      .enum(ATTEMPT_ERRORS)
      .nullable()
      .openapi({
        description:
          'Why it failed, null on success: timeout (no answer within 5 s), connection_refused (no connection: refused, unreachable, or a URL we refuse to call), ' +
          'dns (the name has no address, resolves to an address we do not call, or could not be checked), tls, ' +
          'invalid_response (connected, but no usable HTTP answer), http_status (answered, not 2xx).',
      }),
    errorDetail: z.string().nullable().openapi({ description: 'The failure in words (e.g. "HTTP 500", "timeout after 5000 ms").' }),
    responseBody: z
      .string()
      .nullable()
      .openapi({ description: "The first 1 KiB of the receiver's answer, as text; null when it gave none (or before this was kept)." }),
  })
  .openapi('WebhookAttempt');
export type WebhookAttemptView = z.infer<typeof webhookAttempt>;

export const testSendBody = z
  .object({
    event: z.enum(WEBHOOK_EVENTS).openapi({ description: 'The event name to send an example of.', example: 'order.created' }),
  })
  .strict()
  .openapi('WebhookTestSendRequest');

export const testSendResult = z
  .object({ delivery: webhookDelivery, attempt: webhookAttempt })
  .openapi('WebhookTestSendResult', { description: 'The test delivery as listed, and its one attempt (status, duration, error).' });

export const recoverBody = z
  .object({
    since: dateTime().openapi({
      description: 'Start of the window (inclusive): within the last 30 days (events are kept 30 days), not in the future.',
      example: '2026-01-01T00:00:00Z',
    }),
    until: dateTime()
      .optional()
      .openapi({ description: 'End of the window (inclusive), not before since; default now.', example: '2026-01-02T00:00:00Z' }),
  })
  .strict()
  .openapi('WebhookRecoverRequest');
export type RecoverBody = z.infer<typeof recoverBody>;

export const recoverResult = z
  .object({
    queued: z.number().int().openapi({
      description:
        'New deliveries queued: one per event of the window the endpoint is subscribed to with no delivery that succeeded or is waiting (pending, held). 0 when called again.',
    }),
  })
  .openapi('WebhookRecoverResult');
