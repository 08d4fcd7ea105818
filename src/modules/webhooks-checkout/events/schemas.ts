import { z } from '@hono/zod-openapi';
import { WEBHOOK_DELIVERY_STATUSES } from '../../../../drizzle/schema';
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from '../../../platform/events/names';
import { pageQuery } from '../../../platform/http/pagination';
import { dateTime } from '../../../platform/values/dates';

/** `type` as given: repeated (`type=a&type=b`), comma-separated (`type=a,b`), or both. */
const eventTypes = z
  .union([z.string(), z.array(z.string())])
  .transform((value) =>
    (Array.isArray(value) ? value : [value])
      .flatMap((part) => part.split(','))
      .map((name) => name.trim())
      .filter((name) => name.length > 0),
  )
  .pipe(
    z
      .array(z.string().max(100))
      .max(WEBHOOK_EVENTS.length * 2)
      .superRefine((names, ctx) => {
        const unknown = [...new Set(names.filter((name) => !isWebhookEvent(name)))];
        if (unknown.length) {
          ctx.addIssue({ code: 'custom', message: `unknown event names: ${unknown.map((n) => JSON.stringify(n)).join(', ')}` });
        }
      })
      .transform((names) => [...new Set(names)] as WebhookEvent[]),
  )
  .openapi({
    param: { style: 'form', explode: true },
    description: `Only events of these names: repeat the parameter or separate names with commas. One of: ${WEBHOOK_EVENTS.join(', ')}.`,
    example: 'order.created',
  });

export const listEventsQuery = pageQuery.extend({
  type: eventTypes.optional(),
  createdGte: dateTime()
    .optional()
    .openapi({ description: 'Only events created at or after this instant.', example: '2026-01-01T00:00:00Z' }),
  createdLte: dateTime()
    .optional()
    .openapi({ description: 'Only events created at or before this instant.', example: '2026-01-31T23:59:59Z' }),
});
export type ListEventsQuery = z.infer<typeof listEventsQuery>;

const eventFields = {
  id: z.string().uuid().openapi({
    description: "The event id: the body's `id` and every delivery's X-Service-Idempotency-Key / webhook-id (de-duplicate by it).",
  }),
  type: z.enum(WEBHOOK_EVENTS).openapi({ description: 'The event name.', example: 'order.created' }),
  createdAt: z.string().datetime(),
  data: z.record(z.string(), z.unknown()).openapi({
    description: "The event's data exactly as delivered: ids of the objects it is about (never patient details).",
    example: { orderId: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10', orderEventId: '5f0c2d1e-8a7b-4c3d-9e2f-1a0b9c8d7e6f' },
  }),
};

export const webhookEventSummary = z.object(eventFields).openapi('WebhookEventSummary');
export type WebhookEventSummaryView = z.infer<typeof webhookEventSummary>;

export const eventEndpointDelivery = z
  .object({
    endpointId: z.string().uuid(),
    subscribed: z.boolean().openapi({ description: "Whether the endpoint's events include this event's name now." }),
    delivered: z.boolean().openapi({ description: 'Whether any delivery of this event to the endpoint (replays included) succeeded.' }),
    deliveredAt: z.string().datetime().nullable().openapi({ description: 'When it first succeeded; null if it has not.' }),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).nullable().openapi({
      description:
        "The status of the endpoint's latest delivery of this event (pending, held, succeeded, failed); null: none (not subscribed, or created after the event).",
    }),
  })
  .openapi('WebhookEventEndpoint');

export const webhookEvent = z
  .object({
    ...eventFields,
    endpoints: z
      .array(eventEndpointDelivery)
      .openapi({ description: 'Every endpoint of the clinic (deleted ones excepted), oldest first.' }),
  })
  .openapi('WebhookEvent');
export type WebhookEventView = z.infer<typeof webhookEvent>;
