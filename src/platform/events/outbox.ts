import { outboxEvents } from '../../../drizzle/schema';
import type { Queryable } from '../db/client';
import type { WebhookEvent } from './names';

/**
 * The ids-only payload of an event: which objects it is about (orderId, sessionId, contactId...).
 * Never names, emails, addresses, products or anything else about a patient.
 */
export type OutboxPayload = Record<string, string | null>;

/**
 * Records an event in the transactional outbox. Call it with the transaction that makes the change
 * the event reports, so the event exists exactly when the change does (nothing lost, nothing
 * invented). Delivery fans it out to the subscribed endpoints later, off the request path.
 */
export async function recordOutboxEvent(
  tx: Queryable,
  clinicId: string,
  eventType: WebhookEvent,
  payload: OutboxPayload,
  occurredAt?: Date,
): Promise<string> {
  const [row] = await tx
    .insert(outboxEvents)
    .values({ clinicId, eventType, payload, ...(occurredAt ? { createdAt: occurredAt } : {}) })
    .returning({ id: outboxEvents.id });
  return row!.id;
}
