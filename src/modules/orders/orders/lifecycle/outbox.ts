import type { Queryable } from '../../../../platform/db/client';
import { isWebhookEvent } from '../../../../platform/events/names';
import { recordOutboxEvent } from '../../../../platform/events/outbox';

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
 * applyPlatformEvent for every transition; only the spec's webhook events ("Events") are recorded, so
 * lab, no-show and concluded transitions are not.
 */
export async function writeLifecycleOutboxEvent(tx: Queryable, clinicId: string, event: LifecycleOutboxEvent): Promise<void> {
  if (!isWebhookEvent(event.name)) return;
  await recordOutboxEvent(tx, clinicId, event.name, { orderId: event.orderId, orderEventId: event.orderEventId }, event.occurredAt);
}
