import type { Queryable } from '../../platform/db/client';
import { isWebhookEvent } from '../../platform/webhooks/events';
import { recordOutboxEvent } from '../../platform/webhooks/outbox';

/** The lifecycle events the spec names as webhook events ("Events"); lab and no-show/concluded events are not. */
export const WEBHOOK_EVENT_NAMES: ReadonlySet<string> = new Set([
  'order.created', 'order.cancelled', 'order.doctor_approved', 'order.doctor_denied', 'order.sent_to_pharmacy',
  'order.shipped', 'order.delivered', 'shipment.updated', 'payment.succeeded', 'payment.failed',
  'appointment.scheduled', 'appointment.cancelled',
]);

export interface LifecycleOutboxEvent {
  name: string;
  orderId: string;
  /** The order_events row written by the same transition. */
  orderEventId: string;
  occurredAt: Date;
}

/**
 * Writes the outbox event of a lifecycle transition with `tx`, so it is recorded in the same
 * transaction as the transition. The payload carries ids only. Called by createOrder and
 * applyPlatformEvent for every transition; lab, no-show and concluded events are not webhook events.
 */
export async function writeLifecycleOutboxEvent(tx: Queryable, clinicId: string, event: LifecycleOutboxEvent): Promise<void> {
  if (!WEBHOOK_EVENT_NAMES.has(event.name) || !isWebhookEvent(event.name)) return;
  await recordOutboxEvent(tx, clinicId, event.name, { orderId: event.orderId, orderEventId: event.orderEventId }, event.occurredAt);
}
