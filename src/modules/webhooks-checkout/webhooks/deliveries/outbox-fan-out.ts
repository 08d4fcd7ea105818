import { asc, isNull, sql } from 'drizzle-orm';
import { outboxEvents } from '../../../../../drizzle/schema';
import type { Database } from '../../../../platform/db/client';

/** Outbox rows fanned out per transaction. */
export const DISPATCH_BATCH = 500;

/**
 * Fans undispatched outbox events out into one delivery per not-deleted endpoint of the event's clinic
 * subscribed to its name and created no later than the event (an endpoint receives what happens after
 * it exists, as with Stripe and Svix), and marks the events dispatched. An endpoint that is on gets it
 * `pending`, due at once; an endpoint that is off gets it `held` (listed, not attempted, no due time):
 * turning the endpoint on makes it pending, so nothing is dropped while an endpoint is off. The delivery
 * is created at the dispatcher's `now`, the same clock its attempts are stamped with. One transaction
 * per batch; rows another dispatcher holds are skipped (SKIP LOCKED), and the unique (endpoint, event)
 * index makes a second fan-out of the same event a no-op. Returns the deliveries created (held included).
 */
export async function dispatchOutbox(db: Database, now: Date, batchSize = DISPATCH_BATCH): Promise<number> {
  let created = 0;
  for (;;) {
    const { events, inserted } = await db.transaction(async (tx) => {
      const batch = await tx
        .select({ id: outboxEvents.id })
        .from(outboxEvents)
        .where(isNull(outboxEvents.dispatchedAt))
        .orderBy(asc(outboxEvents.createdAt))
        .limit(batchSize)
        .for('update', { skipLocked: true });
      if (batch.length === 0) return { events: 0, inserted: 0 };
      const ids = batch.map((row) => row.id);
      const idList = sql.join(
        ids.map((id) => sql`${id}::uuid`),
        sql`, `,
      );
      // idempotency_key = the event id (GET /api/v1/events/{id}): the same for every endpoint, across
      // retries and replays (also the webhook-id), so a receiver merging polling and webhooks de-duplicates.
      const at = now.toISOString();
      const result = await tx.execute(sql`
        insert into webhook_deliveries (clinic_id, endpoint_id, outbox_event_id, event_type, idempotency_key, status, next_attempt_at, created_at)
        select o.clinic_id, e.id, o.id, o.event_type, o.id::text,
          case when e.is_active then 'pending' else 'held' end,
          case when e.is_active then ${at}::timestamptz end,
          ${at}::timestamptz
        from outbox_events o
        join webhook_endpoints e
          on e.clinic_id = o.clinic_id and e.deleted_at is null and o.event_type = any(e.events)
          and o.created_at >= e.created_at
        where o.id in (${idList})
        on conflict (endpoint_id, outbox_event_id) where replay_of is null do nothing
        returning id`);
      await tx.execute(sql`update outbox_events set dispatched_at = ${at}::timestamptz where id in (${idList})`);
      const rows = (result as unknown as { rows?: unknown[] }).rows ?? (result as unknown as unknown[]);
      return { events: batch.length, inserted: Array.isArray(rows) ? rows.length : 0 };
    });
    created += inserted;
    if (events < batchSize) return created;
  }
}
