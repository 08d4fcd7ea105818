// The platform events that move an order (docs/order-lifecycle.md), as zod schemas: the development
// simulator validates its body with PLATFORM_EVENT; service callers (checkout, the seeder) build the
// same objects in code.
import { z } from '@hono/zod-openapi';
import { dateTime } from '../../../../platform/values/dates';
import { safeString, text } from '../../../../platform/values/strings';

/** What a shipment can be; 'delivered' is set only by order.delivered. */
export const SHIPMENT_STATUSES = ['label_created', 'in_transit', 'out_for_delivery', 'delivered', 'exception', 'returned'] as const;

/** Who caused an order event (order_events.actor_type). */
export const ACTOR_TYPES = ['patient', 'doctor', 'pharmacy', 'lab', 'carrier', 'processor', 'brand', 'system'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

const label = (max = 100) => safeString().trim().min(1).max(max);
const reason = () => text().trim().min(1).max(500);
const carrierFields = { carrier: label(), trackingNumber: label() };
const trackingUrl = () => safeString().trim().max(500).url().nullable().optional();

const only = <N extends string>(name: N) => z.object({ event: z.literal(name) }).strict();

export const PLATFORM_EVENT = z.discriminatedUnion('event', [
  only('payment.succeeded')
    .extend({ processorPaymentId: label(200).optional() })
    .strict(),
  only('payment.failed').extend({ failureReason: reason() }).strict(),
  only('order.doctor_approved'),
  only('order.doctor_denied').extend({ reason: reason().optional() }).strict(),
  only('order.sent_to_pharmacy'),
  only('order.shipped')
    .extend({ ...carrierFields, trackingUrl: trackingUrl() })
    .strict(),
  only('shipment.updated')
    .extend({
      status: z.enum(SHIPMENT_STATUSES).exclude(['delivered']),
      carrier: label().optional(),
      trackingNumber: label().optional(),
      trackingUrl: trackingUrl(),
    })
    .strict(),
  only('order.delivered'),
  only('order.cancelled').extend({ reason: reason().optional() }).strict(),
  only('appointment.scheduled').extend({ scheduledAt: dateTime() }).strict(),
  only('appointment.no_show'),
  only('appointment.concluded'),
  only('appointment.cancelled'),
  only('lab.kit_shipped').extend(carrierFields).strict(),
  only('lab.kit_delivered'),
  only('lab.sample_shipped').extend(carrierFields).strict(),
  only('lab.sample_received'),
  only('lab.results_available'),
]);

export type PlatformEvent = z.infer<typeof PLATFORM_EVENT>;
export type PlatformEventName = PlatformEvent['event'];
export const PLATFORM_EVENT_NAMES = PLATFORM_EVENT.options.map((o) => o.shape.event.value) as PlatformEventName[];
