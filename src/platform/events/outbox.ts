import { AsyncLocalStorage } from 'node:async_hooks';
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
 * invented). Delivery fans it out to the subscribed endpoints later, off the request path: the
 * request (or run) the write happens in is marked (`trackOutboxWrites`), and src/app.ts kicks delivery
 * right after the answer of every request that wrote an event. No route declares that it emits events.
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
  const mark = marks.getStore();
  if (mark) mark.written = true;
  return row!.id;
}

/** Whether anything run under it wrote an outbox event (the transaction may since have rolled back). */
export interface OutboxWriteMark {
  written: boolean;
}

// Workers run with nodejs_compat (wrangler.toml), which provides AsyncLocalStorage in workerd too.
const marks = new AsyncLocalStorage<OutboxWriteMark>();

/**
 * Runs `work` with a fresh mark that every `recordOutboxEvent` inside it (however deep, across awaits)
 * sets. src/app.ts runs each request under one and kicks delivery when it is set.
 */
export async function trackOutboxWrites<T>(work: () => Promise<T>): Promise<{ result: T; written: boolean }> {
  const mark: OutboxWriteMark = { written: false };
  const result = await marks.run(mark, work);
  return { result, written: mark.written };
}
