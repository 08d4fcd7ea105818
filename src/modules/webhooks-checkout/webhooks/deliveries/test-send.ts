// A test send (docs/webhooks.md, "Test sends"): one signed delivery of an example of an event, sent at
// once, recorded in the endpoint's deliveries (marked test) with its one attempt. The endpoint's health
// (isActive, consecutiveFailures, lastTriggeredAt) is left as it is, and an endpoint that is off may be
// tested; the URL is checked as before any attempt.
import { and, eq, isNull, sql } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import { rowsOf } from '../../../../platform/db/sql';
import type { WebhookEvent } from '../../../../platform/events/names';
import type { RateLimitRule } from '../../../../platform/rate-limit/types';
import type { Sweep } from '../../../../platform/sweep';
import { notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { exampleEventData } from '../openapi';
import type { testSendResult } from './schemas';
import { type DeliveryOptions, refusedDestination, signAndSend } from './send-attempt';
import { toAttemptView, toDeliveryView } from './service';

/** At most 10 test sends per endpoint per minute. */
export const TEST_SEND_LIMIT: RateLimitRule = { name: 'webhook-test-send', limit: 10, windowSeconds: 60, onStoreFailure: 'local' };

/** The endpoint a test send goes to: the clinic's, not deleted (off is fine); the same 404 otherwise. */
export async function testableEndpoint(ctx: HandlerContext, endpointId: string) {
  const { db, clinicId } = ctx;
  if (!isUuid(endpointId)) throw notFound('Webhook endpoint');
  const [endpoint] = await db
    .select({ id: webhookEndpoints.id, url: webhookEndpoints.url })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.clinicId, clinicId), isNull(webhookEndpoints.deletedAt)))
    .limit(1);
  if (!endpoint) throw notFound('Webhook endpoint');
  return endpoint;
}

/**
 * Sends the example now and records it: the body `{ id, type, createdAt, data, test: true }` (id a new
 * uuid, data an example of the event's shape), idempotency key `test_<id>`, signed like every attempt.
 * The delivery and its attempt are written in one transaction after the answer; nothing else changes.
 */
export async function sendTestDelivery(
  ctx: HandlerContext,
  endpoint: { id: string; url: string },
  event: WebhookEvent,
  options: DeliveryOptions,
): Promise<typeof testSendResult._output> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const deliveryId = crypto.randomUUID();
  const attemptId = crypto.randomUUID();
  const eventId = crypto.randomUUID();
  const idempotencyKey = `test_${eventId}`;
  const body = JSON.stringify({ id: eventId, type: event, createdAt: now.toISOString(), data: exampleEventData(event), test: true });
  const target = { id: deliveryId, endpointId: endpoint.id, url: endpoint.url, clinicId, eventType: event, idempotencyKey };
  const result =
    (await refusedDestination(options, target)) ??
    (await signAndSend(await options.secrets(db, target.clinicId, target.endpointId, now), target, body, attemptId, now, options));
  const succeeded = result.error === null;
  const { delivery, attempt } = await db.transaction(async (tx) => {
    const [delivery] = await tx
      .insert(webhookDeliveries)
      .values({
        id: deliveryId,
        clinicId,
        endpointId: endpoint.id,
        outboxEventId: null,
        isTest: true,
        eventType: event,
        idempotencyKey,
        status: succeeded ? 'succeeded' : 'failed',
        attempts: 1,
        nextAttemptAt: null,
        lastAttemptAt: now,
        lastResponseStatus: result.status,
        lastError: result.error,
        succeededAt: succeeded ? now : null,
        createdAt: now,
      })
      .returning();
    const [attempt] = await tx
      .insert(webhookAttempts)
      .values({
        id: attemptId,
        clinicId,
        deliveryId,
        attemptNumber: 1,
        responseStatus: result.status,
        durationMs: result.durationMs,
        error: result.error,
        errorKind: result.errorKind,
        responseBody: result.responseBody,
        createdAt: now,
      })
      .returning();
    return { delivery: delivery!, attempt: attempt! };
  });
  return { delivery: toDeliveryView(delivery), attempt: toAttemptView(attempt) };
}

/** Test deliveries are kept this long (the events' 30 days), then deleted with their attempts. */
export const TEST_DELIVERY_RETENTION_MS = 30 * 86_400_000;
/** Rows one statement of the retention sweep deletes at most. */
export const TEST_DELIVERY_SWEEP_BATCH = 1_000;

/** The cron sweep: test deliveries older than 30 days, in batches of 1,000, at most 10 batches a run. */
export const testDeliveryRetention: Sweep = async function testDeliveryRetention(db, now) {
  const before = new Date(now.getTime() - TEST_DELIVERY_RETENTION_MS).toISOString();
  for (let batch = 0; batch < 10; batch++) {
    const deleted = await rowsOf<{ id: string }>(
      db,
      sql`delete from webhook_deliveries where id in (
        select id from webhook_deliveries where is_test and created_at < ${before}::timestamptz limit ${TEST_DELIVERY_SWEEP_BATCH}
      ) returning id`,
    );
    if (deleted.length < TEST_DELIVERY_SWEEP_BATCH) return;
  }
};
