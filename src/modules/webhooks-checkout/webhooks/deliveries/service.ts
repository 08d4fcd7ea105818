import { and, asc, desc, eq, gte, isNull, lte, sql } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import type { WebhookEvent } from '../../../../platform/events/names';
import { pageOffset, pagination } from '../../../../platform/http/pagination';
import { isoOrNull } from '../../../../platform/values/dates';
import { badRequest, notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import type { ListDeliveriesQuery, WebhookAttemptView, WebhookDeliveryView } from './schemas';
import type { AttemptError } from './send-attempt';

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export function toDeliveryView(
  row: Pick<
    DeliveryRow,
    | 'id'
    | 'eventType'
    | 'status'
    | 'attempts'
    | 'lastResponseStatus'
    | 'createdAt'
    | 'lastAttemptAt'
    | 'nextAttemptAt'
    | 'succeededAt'
    | 'idempotencyKey'
    | 'replayOf'
    | 'isTest'
  >,
): WebhookDeliveryView {
  return {
    id: row.id,
    // The outbox stores only WebhookEvent names (src/platform/events/outbox.ts types the insert).
    event: row.eventType as WebhookEvent,
    status: row.status,
    attempts: row.attempts,
    lastResponseStatus: row.lastResponseStatus,
    createdAt: row.createdAt.toISOString(),
    lastAttemptAt: isoOrNull(row.lastAttemptAt),
    nextAttemptAt: row.status === 'pending' ? isoOrNull(row.nextAttemptAt) : null,
    succeededAt: isoOrNull(row.succeededAt),
    idempotencyKey: row.idempotencyKey,
    replayOf: row.replayOf,
    test: row.isTest,
  };
}

type AttemptRow = typeof webhookAttempts.$inferSelect;

export function toAttemptView(
  row: Pick<AttemptRow, 'id' | 'attemptNumber' | 'createdAt' | 'responseStatus' | 'durationMs' | 'error' | 'errorKind' | 'responseBody'>,
): WebhookAttemptView {
  return {
    id: row.id,
    attemptNumber: row.attemptNumber,
    attemptedAt: row.createdAt.toISOString(),
    responseStatus: row.responseStatus,
    durationMs: row.durationMs,
    // The column's check constraint holds it to ATTEMPT_ERRORS.
    error: row.errorKind as AttemptError | null,
    errorDetail: row.error,
    responseBody: row.responseBody,
  };
}

const ENDPOINT = 'Webhook endpoint';
const endpointOf = (clinicId: string, endpointId: string) =>
  and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.clinicId, clinicId), isNull(webhookEndpoints.deletedAt));

/**
 * The endpoint's deliveries, newest first, in one query: the endpoint row left-joined to its
 * deliveries, so "no such endpoint" (no row) and "no deliveries" (one row of nulls) differ. Only a
 * page past the end needs a second query, to tell those apart.
 */
export async function listDeliveries(ctx: HandlerContext, endpointId: string, query: ListDeliveriesQuery) {
  const { db, clinicId } = ctx;
  if (!isUuid(endpointId)) throw notFound(ENDPOINT);
  if (query.createdGte && query.createdLte && query.createdLte < query.createdGte) {
    throw badRequest('query.createdLte: must not be before createdGte');
  }
  // The filters are part of the join: an endpoint with no matching delivery still gives its one row.
  const matching = and(
    eq(webhookDeliveries.endpointId, webhookEndpoints.id),
    eq(webhookDeliveries.clinicId, clinicId),
    query.status ? eq(webhookDeliveries.status, query.status) : undefined,
    query.event ? eq(webhookDeliveries.eventType, query.event) : undefined,
    query.createdGte ? gte(webhookDeliveries.createdAt, new Date(query.createdGte)) : undefined,
    query.createdLte ? lte(webhookDeliveries.createdAt, new Date(query.createdLte)) : undefined,
  );
  const rows = await db
    .select({
      id: webhookDeliveries.id,
      eventType: webhookDeliveries.eventType,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      lastResponseStatus: webhookDeliveries.lastResponseStatus,
      createdAt: webhookDeliveries.createdAt,
      lastAttemptAt: webhookDeliveries.lastAttemptAt,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
      succeededAt: webhookDeliveries.succeededAt,
      idempotencyKey: webhookDeliveries.idempotencyKey,
      replayOf: webhookDeliveries.replayOf,
      isTest: webhookDeliveries.isTest,
      total: sql<number>`cast(count(${webhookDeliveries.id}) over() as integer)`,
    })
    .from(webhookEndpoints)
    .leftJoin(webhookDeliveries, matching)
    .where(endpointOf(clinicId, endpointId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  if (rows.length === 0) {
    if (query.page === 1) throw notFound(ENDPOINT);
    const [found] = await db
      .select({ total: sql<number>`cast(count(${webhookDeliveries.id}) as integer)` })
      .from(webhookEndpoints)
      .leftJoin(webhookDeliveries, matching)
      .where(endpointOf(clinicId, endpointId))
      .groupBy(webhookEndpoints.id);
    if (!found) throw notFound(ENDPOINT);
    return { data: [], pagination: pagination(query, found.total) };
  }
  const deliveries = rows.filter((row): row is typeof row & { id: string } => row.id !== null);
  return {
    data: deliveries.map((row) => toDeliveryView(row as Parameters<typeof toDeliveryView>[0])),
    pagination: pagination(query, rows[0]!.total),
  };
}

/**
 * A new pending delivery of the same outbox event to the same endpoint, due now, with the same
 * idempotency key, replay_of pointing at the original. Any status may be replayed; the endpoint must
 * be the clinic's and not deleted (an endpoint that is off keeps the replay pending until it is on).
 */
export async function replayDelivery(ctx: HandlerContext, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(endpointId) || !isUuid(deliveryId)) throw notFound('Webhook delivery');
  const [original] = await db
    .select({ delivery: webhookDeliveries })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.clinicId, clinicId), endpointOf(clinicId, endpointId)))
    .limit(1);
  if (!original) throw notFound('Webhook delivery');
  const source = original.delivery;
  if (source.isTest || !source.outboxEventId) {
    throw badRequest('deliveryId: a test delivery cannot be replayed; send another test (POST /api/v1/webhooks/{id}/test)');
  }
  const [created] = await db
    .insert(webhookDeliveries)
    .values({
      clinicId,
      endpointId: source.endpointId,
      outboxEventId: source.outboxEventId,
      eventType: source.eventType,
      idempotencyKey: source.idempotencyKey,
      status: 'pending',
      nextAttemptAt: now,
      replayOf: source.id,
      createdAt: now,
    })
    .returning();
  return toDeliveryView(created!);
}

/**
 * Every attempt of one delivery of the endpoint, first to last, in one query: the delivery (the
 * clinic's, of this endpoint, which is not deleted) left-joined to its attempts, so "no such delivery"
 * (no row) and "no attempt yet" (one row of nulls) differ.
 */
export async function listAttempts(ctx: HandlerContext, endpointId: string, deliveryId: string): Promise<WebhookAttemptView[]> {
  const { db, clinicId } = ctx;
  if (!isUuid(endpointId) || !isUuid(deliveryId)) throw notFound('Webhook delivery');
  const rows = await db
    .select({
      id: webhookAttempts.id,
      attemptNumber: webhookAttempts.attemptNumber,
      createdAt: webhookAttempts.createdAt,
      responseStatus: webhookAttempts.responseStatus,
      durationMs: webhookAttempts.durationMs,
      error: webhookAttempts.error,
      errorKind: webhookAttempts.errorKind,
      responseBody: webhookAttempts.responseBody,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .leftJoin(webhookAttempts, and(eq(webhookAttempts.deliveryId, webhookDeliveries.id), eq(webhookAttempts.clinicId, clinicId)))
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.clinicId, clinicId), endpointOf(clinicId, endpointId)))
    .orderBy(asc(webhookAttempts.attemptNumber), asc(webhookAttempts.createdAt));
  if (rows.length === 0) throw notFound('Webhook delivery');
  return rows.filter((row) => row.id !== null).map((row) => toAttemptView(row as Parameters<typeof toAttemptView>[0]));
}
