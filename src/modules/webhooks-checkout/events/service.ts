// The events API (docs/webhooks.md, "Events API"): the outbox's events of the last 30 days, read back
// as they were delivered, and per endpoint whether each was delivered.
import { and, desc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import { outboxEvents, type WebhookDeliveryStatus } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { rowsOf } from '../../../platform/db/sql';
import type { WebhookEvent } from '../../../platform/events/names';
import { pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { isoOrNull } from '../../../platform/values/dates';
import { notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import type { ListEventsQuery, WebhookEventSummaryView, WebhookEventView } from './schemas';

/** How long events are kept and readable; the retention sweep deletes older ones. */
export const EVENT_RETENTION_DAYS = 30;
const EVENT_RETENTION_MS = EVENT_RETENTION_DAYS * 86_400_000;

/** The oldest instant an event may have and still be read (older ones answer 404, swept or not). */
export const keptSince = (now: Date) => new Date(now.getTime() - EVENT_RETENTION_MS);

const RESOURCE = 'Event';

const toSummary = (row: { id: string; eventType: string; createdAt: Date; payload: Record<string, unknown> }): WebhookEventSummaryView => ({
  id: row.id,
  // The outbox stores only WebhookEvent names (recordOutboxEvent types the insert).
  type: row.eventType as WebhookEvent,
  createdAt: row.createdAt.toISOString(),
  data: row.payload,
});

/** The clinic's events of the last 30 days, newest first, filtered by name and creation time; one statement. */
export async function listEvents(ctx: HandlerContext, query: ListEventsQuery) {
  const { db, clinicId } = ctx;
  const where = and(
    eq(outboxEvents.clinicId, clinicId),
    gte(outboxEvents.createdAt, keptSince(ctx.now())),
    query.type?.length ? inArray(outboxEvents.eventType, query.type) : undefined,
    query.createdGte ? gte(outboxEvents.createdAt, new Date(query.createdGte)) : undefined,
    query.createdLte ? lte(outboxEvents.createdAt, new Date(query.createdLte)) : undefined,
  );
  const rows = await db
    .select({
      id: outboxEvents.id,
      eventType: outboxEvents.eventType,
      createdAt: outboxEvents.createdAt,
      payload: outboxEvents.payload,
      total: totalCount(),
    })
    .from(outboxEvents)
    .where(where)
    .orderBy(desc(outboxEvents.createdAt), desc(outboxEvents.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, async () => {
    const [counted] = await db.select({ total: sql<number>`cast(count(*) as integer)` }).from(outboxEvents).where(where);
    return counted?.total ?? 0;
  });
  return { data: page.rows.map(toSummary), pagination: page.pagination };
}

interface EventRow {
  id: string;
  eventType: string;
  createdAt: Date | string;
  payload: Record<string, unknown>;
  endpoints: { endpointId: string; subscribed: boolean; deliveredAt: string | null; status: WebhookDeliveryStatus | null }[];
}

/**
 * One event of the clinic, kept (under 30 days old), with every not-deleted endpoint of the clinic and
 * its delivery of the event; one statement. Another clinic's, an unknown, a malformed and an expired
 * id answer the same 404.
 */
export async function getEvent(ctx: HandlerContext, id: string): Promise<WebhookEventView> {
  const { db, clinicId } = ctx;
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await rowsOf<EventRow>(
    db,
    sql`
      select o.id, o.event_type as "eventType", o.created_at as "createdAt", o.payload,
        coalesce((
          select json_agg(json_build_object(
            'endpointId', e.id,
            'subscribed', o.event_type = any(e.events),
            'deliveredAt', (
              select min(d.succeeded_at) from webhook_deliveries d
              where d.clinic_id = o.clinic_id and d.outbox_event_id = o.id and d.endpoint_id = e.id and d.status = 'succeeded'),
            'status', (
              select d.status from webhook_deliveries d
              where d.clinic_id = o.clinic_id and d.outbox_event_id = o.id and d.endpoint_id = e.id
              order by d.created_at desc, d.id desc limit 1)
          ) order by e.created_at, e.id)
          from webhook_endpoints e where e.clinic_id = o.clinic_id and e.deleted_at is null
        ), '[]'::json) as endpoints
      from outbox_events o
      where o.id = ${id} and o.clinic_id = ${clinicId} and o.created_at >= ${keptSince(ctx.now()).toISOString()}::timestamptz`,
  );
  if (!row) throw notFound(RESOURCE);
  return {
    ...toSummary({ ...row, createdAt: new Date(row.createdAt) }),
    endpoints: row.endpoints.map((e) => ({
      endpointId: e.endpointId,
      subscribed: e.subscribed,
      delivered: e.deliveredAt !== null,
      deliveredAt: isoOrNull(e.deliveredAt === null ? null : new Date(e.deliveredAt)),
      status: e.status,
    })),
  };
}
