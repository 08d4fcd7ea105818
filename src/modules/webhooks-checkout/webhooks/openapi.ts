import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../../../platform/context';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../../platform/events/names';

/** The object ids each event's `data` carries (ids only, never patient details). */
const DATA_IDS: Record<WebhookEvent, string[]> = {
  'session.completed': ['sessionId', 'orderId'],
  'payment.succeeded': ['orderId', 'orderEventId'],
  'payment.failed': ['orderId', 'orderEventId'],
  'order.created': ['orderId', 'orderEventId'],
  'order.placed': ['orderId', 'orderEventId'],
  'order.cancelled': ['orderId', 'orderEventId'],
  'order.doctor_approved': ['orderId', 'orderEventId'],
  'order.doctor_denied': ['orderId', 'orderEventId'],
  'order.sent_to_pharmacy': ['orderId', 'orderEventId'],
  'order.shipped': ['orderId', 'orderEventId'],
  'order.delivered': ['orderId', 'orderEventId'],
  'shipment.updated': ['orderId', 'orderEventId'],
  'intake.started': ['formSessionId', 'formId', 'programId'],
  'intake.abandoned': ['formSessionId', 'formId', 'programId'],
  'appointment.scheduled': ['orderId', 'orderEventId'],
  'appointment.cancelled': ['orderId', 'orderEventId'],
  'contact.unsubscribed': ['contactId'],
};

/** The few data fields that are not ids: what changed, never who (no patient details). */
const DATA_EXTRA: Partial<Record<WebhookEvent, Record<string, z.ZodTypeAny>>> = {
  'contact.unsubscribed': {
    channels: z.enum(['email', 'sms', 'email,sms']).openapi({ description: 'The channels the contact opted out of with this change.' }),
  },
};

/** The example values of DATA_EXTRA's fields, for test sends. */
const DATA_EXTRA_EXAMPLES: Partial<Record<WebhookEvent, Record<string, unknown>>> = {
  'contact.unsubscribed': { channels: 'email' },
};

/**
 * An example `data` of the event's documented shape, for a test send: a fresh random uuid for each id
 * (they name no real object) and an example value for the other fields.
 */
export function exampleEventData(event: WebhookEvent): Record<string, unknown> {
  return { ...Object.fromEntries(DATA_IDS[event].map((key) => [key, crypto.randomUUID()])), ...DATA_EXTRA_EXAMPLES[event] };
}

const SIGNATURE_HEADERS = z.object({
  'x-service-signature': z.string().openapi({
    description:
      // In code spans: the reference page renders descriptions as Markdown, which drops a bare <placeholder> as an HTML tag.
      'The signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, one `v1=` per active secret (docs/webhooks.md).',
  }),
  'x-service-event': z.string().openapi({ description: 'The event name.' }),
  'x-service-delivery-id': z.string().openapi({ description: 'New for every attempt.' }),
  'x-service-idempotency-key': z.string().openapi({
    description:
      "The event id (the body's id, GET /api/v1/events/{id}): the same across retries, replays and endpoints; drop duplicates by it.",
  }),
  'webhook-id': z.string().openapi({ description: 'Standard Webhooks: the idempotency key (the event id).' }),
  'webhook-timestamp': z.string().openapi({ description: 'Standard Webhooks: unix seconds.' }),
  'webhook-signature': z
    .string()
    .openapi({ description: 'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>">`, space-separated.' }),
});

const camel = (event: string) => event.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase());

/**
 * Every event the API sends, in the OpenAPI 3.1 `webhooks` section: the body each attempt POSTs (ids
 * only) and the headers that sign it. A 2xx within 5 seconds acknowledges it.
 */
export function registerWebhookEvents(app: OpenAPIHono<AppEnv>): void {
  for (const event of WEBHOOK_EVENTS) {
    const data = z.object({
      ...Object.fromEntries(DATA_IDS[event].map((key) => [key, z.string().uuid().nullable()])),
      ...DATA_EXTRA[event],
    });
    const body = z.object({
      id: z.string().uuid().openapi({ description: 'The event id (the outbox row).' }),
      type: z.literal(event),
      createdAt: z.string().datetime(),
      data,
      test: z.literal(true).optional().openapi({ description: 'Present (true) only on a test send, whose ids name no real object.' }),
    });
    app.openAPIRegistry.registerWebhook({
      method: 'post',
      path: event,
      operationId: `webhook${camel(event).replace(/^\w/, (c) => c.toUpperCase())}`,
      summary: `${event} (sent to endpoints subscribed to it)`,
      tags: ['Webhook events'],
      security: [],
      request: { headers: SIGNATURE_HEADERS, body: { content: { 'application/json': { schema: body } }, required: true } },
      responses: {
        200: { description: 'Any 2xx within 5 seconds acknowledges the delivery; anything else is retried (docs/webhooks.md).' },
      },
    });
  }
}
