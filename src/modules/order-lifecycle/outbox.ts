import type { Queryable } from '../../platform/db/client';

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
 * WEBHOOKS HOOK — the webhooks issue writes the outbox_events row for `event` here, with `tx`, so the
 * event is recorded in the same transaction as the transition (payloads carry ids only). Called by
 * createOrder and applyPlatformEvent for every transition; today it only filters to webhook events.
 */
export async function writeLifecycleOutboxEvent(tx: Queryable, clinicId: string, event: LifecycleOutboxEvent): Promise<void> {
  if (!WEBHOOK_EVENT_NAMES.has(event.name)) return;
  void tx;
  void clinicId;
  // TODO(webhooks): insert into outbox_events (clinic_id, event_name, payload { orderId }, ...) here.
}
