/** Every event the API delivers (spec, "Events"); endpoints subscribe to a subset by name. */
export const WEBHOOK_EVENTS = [
  'session.completed',
  'payment.succeeded',
  'payment.failed',
  'order.created',
  'order.placed',
  'order.cancelled',
  'order.doctor_approved',
  'order.doctor_denied',
  'order.sent_to_pharmacy',
  'order.shipped',
  'order.delivered',
  'shipment.updated',
  'intake.started',
  'intake.abandoned',
  'appointment.scheduled',
  'appointment.cancelled',
  'contact.unsubscribed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const KNOWN: ReadonlySet<string> = new Set(WEBHOOK_EVENTS);
export const isWebhookEvent = (name: string): name is WebhookEvent => KNOWN.has(name);
