import { z } from '@hono/zod-openapi';
import { isWebhookEvent, WEBHOOK_EVENTS } from '../../../platform/events/names';
import { safeString } from '../../../platform/values/strings';
import { MAX_WEBHOOK_URL_LENGTH } from './url-policy';

/** Rotation grace period: default 24 hours, at most 24 hours, 0 ends the previous secret at once. */
export const DEFAULT_GRACE_PERIOD_SECONDS = 86_400;
export const MAX_GRACE_PERIOD_SECONDS = 86_400;

const url = safeString()
  .trim()
  .min(1)
  .max(MAX_WEBHOOK_URL_LENGTH)
  .openapi({
    description: `https URL of the receiver, at most ${MAX_WEBHOOK_URL_LENGTH} characters, port 443 or 8443; a host name, never an IP address; no credentials, no fragment; a name that resolves only to public addresses (never a private, loopback, link-local, CGNAT, multicast or metadata address; checked again before every delivery) and is not a local name (docs/webhooks.md). Stored as normalised by the URL parser.`,
    example: 'https://example.com/webhooks/service',
  });

const events = z
  // Declared as the enumeration (typed clients get the names); checked below with a message naming the unknown ones.
  .array(
    safeString()
      .max(100)
      .openapi({ enum: [...WEBHOOK_EVENTS] }),
  )
  .min(1)
  .max(WEBHOOK_EVENTS.length * 2)
  .superRefine((names, ctx) => {
    const unknown = [...new Set(names.filter((name) => !isWebhookEvent(name)))];
    if (unknown.length) {
      ctx.addIssue({ code: 'custom', message: `unknown event names: ${unknown.map((n) => JSON.stringify(n)).join(', ')}` });
    }
  })
  .openapi({
    description: `At least one of: ${WEBHOOK_EVENTS.join(', ')}. Duplicates are ignored (stored once).`,
    example: ['order.created', 'payment.succeeded'],
  });

export const createWebhookBody = z.object({ url, events }).strict().openapi('CreateWebhookRequest');
export type CreateWebhookBody = z.infer<typeof createWebhookBody>;

export const updateWebhookBody = z
  .object({
    isActive: z.boolean().optional().openapi({
      description:
        'true turns the endpoint (back) on: consecutiveFailures goes to 0 and its pending deliveries go out at once. false turns it off: deliveries wait, none is dropped.',
    }),
    url: url.optional(),
    events: events.optional(),
  })
  .strict()
  .refine((body) => body.isActive !== undefined || body.url !== undefined || body.events !== undefined, {
    message: 'send at least one of isActive, url, events',
  })
  .openapi('UpdateWebhookRequest');
export type UpdateWebhookBody = z.infer<typeof updateWebhookBody>;

export const rotateSecretBody = z
  .object({
    gracePeriodSeconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_GRACE_PERIOD_SECONDS)
      .default(DEFAULT_GRACE_PERIOD_SECONDS)
      .openapi({
        description: `How long the previous secret keeps signing next to the new one (0 to ${MAX_GRACE_PERIOD_SECONDS}; default ${DEFAULT_GRACE_PERIOD_SECONDS} = 24 hours; 0 ends it at once).`,
        example: 3600,
      }),
  })
  .strict()
  .openapi('RotateWebhookSecretRequest');

export const webhookEndpoint = z
  .object({
    id: z.string().uuid(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    isActive: z
      .boolean()
      .openapi({ description: 'false after 10 consecutive failed attempts (or a PATCH): nothing is sent until it is on again.' }),
    lastTriggeredAt: z.string().datetime().nullable().openapi({ description: 'The last delivery attempt to this endpoint.' }),
    consecutiveFailures: z.number().int().openapi({ description: 'Failed attempts in a row; any success resets it.' }),
    createdAt: z.string().datetime(),
  })
  .openapi('WebhookEndpoint');
export type WebhookEndpoint = z.infer<typeof webhookEndpoint>;

const secret = z.string().openapi({
  description: 'The signing secret: whsec_ followed by base64 of 32 random bytes. Returned only by this call; store it now.',
  example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6Lm4Q1gJ5Ag=',
});

export const createdWebhook = webhookEndpoint.extend({ secret }).openapi('CreatedWebhookEndpoint');

export const rotatedSecret = webhookEndpoint
  .extend({
    secret,
    previousSecretExpiresAt: z.string().datetime().nullable().openapi({
      description: 'Until when the previous secret still signs next to the new one (null: there was none).',
    }),
  })
  .openapi('RotatedWebhookSecret');

export const deletedWebhook = z.object({ id: z.string().uuid() }).openapi('DeletedWebhookEndpoint');
