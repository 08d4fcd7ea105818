// Recover (docs/webhooks.md, "Recover"): one new delivery for every event of a window the endpoint is
// subscribed to and has neither received nor has waiting, with the event's original idempotency key.
import { and, eq, isNull, sql } from 'drizzle-orm';
import { webhookEndpoints } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import { rowsOf } from '../../../../platform/db/sql';
import { invalidField, notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { EVENT_RETENTION_DAYS, keptSince } from '../../events/service';
import type { RecoverBody } from './schemas';

/**
 * Queues the window's missing deliveries for the endpoint and returns how many. The window is
 * `[since, until]` (until defaults to now; both inclusive), `since` within the 30 days events are kept
 * and not in the future, `until` not before `since`. An event counts when it is the clinic's, of a name
 * the endpoint is subscribed to now, created no earlier than the endpoint, already fanned out (an event
 * not yet fanned out gets its delivery from the fan-out), and the endpoint has no delivery of it that
 * succeeded or is still waiting (pending or held): so the same call twice queues nothing the second
 * time, and a recover never doubles a retry in progress. The new delivery is pending and due at once
 * (held when the endpoint is off: it goes out when it is turned on), `replay_of` its latest earlier
 * delivery of the event (null when it never had one), its idempotency key that delivery's (the event
 * id). One statement, under the endpoint's row lock, so two calls at once do not both queue an event.
 */
export async function recoverDeliveries(ctx: HandlerContext, endpointId: string, body: RecoverBody): Promise<{ queued: number }> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const since = new Date(body.since);
  const until = body.until ? new Date(body.until) : now;
  if (since.getTime() > now.getTime()) throw invalidField('body.since', 'must not be in the future');
  if (since.getTime() < keptSince(now).getTime()) {
    throw invalidField('body.since', `must be within the last ${EVENT_RETENTION_DAYS} days (events are kept ${EVENT_RETENTION_DAYS} days)`);
  }
  if (until.getTime() < since.getTime()) throw invalidField('body.until', 'must not be before since');
  if (!isUuid(endpointId)) throw notFound('Webhook endpoint');
  const end = until.getTime() > now.getTime() ? now : until;
  const at = now.toISOString();

  const queued = await db.transaction(async (tx) => {
    const [endpoint] = await tx
      .select({ id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.clinicId, clinicId), isNull(webhookEndpoints.deletedAt)))
      .for('update');
    if (!endpoint) throw notFound('Webhook endpoint');
    const rows = await rowsOf<{ id: string }>(
      tx,
      sql`
      insert into webhook_deliveries
        (clinic_id, endpoint_id, outbox_event_id, event_type, idempotency_key, status, next_attempt_at, replay_of, created_at)
      select o.clinic_id, e.id, o.id, o.event_type, coalesce(last.idempotency_key, o.id::text),
        case when e.is_active then 'pending' else 'held' end,
        case when e.is_active then ${at}::timestamptz end,
        last.id, ${at}::timestamptz
      from webhook_endpoints e
      join outbox_events o
        on o.clinic_id = e.clinic_id and o.event_type = any(e.events) and o.created_at >= e.created_at
      left join lateral (
        select d.id, d.idempotency_key from webhook_deliveries d
        where d.endpoint_id = e.id and d.clinic_id = e.clinic_id and d.outbox_event_id = o.id
        order by d.created_at desc, d.id desc
        limit 1
      ) last on true
      where e.id = ${endpointId} and e.clinic_id = ${clinicId} and e.deleted_at is null
        and o.dispatched_at is not null
        and o.created_at >= ${since.toISOString()}::timestamptz
        and o.created_at <= ${end.toISOString()}::timestamptz
        and not exists (
          select 1 from webhook_deliveries w
          where w.endpoint_id = e.id and w.clinic_id = e.clinic_id and w.outbox_event_id = o.id
            and w.status in ('succeeded', 'pending', 'held')
        )
      order by o.created_at, o.id
      returning id`,
    );
    return rows.length;
  });
  return { queued };
}
