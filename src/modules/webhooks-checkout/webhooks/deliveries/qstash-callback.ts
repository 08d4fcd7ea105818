// POST /internal/qstash/webhook-deliveries: QStash calls this for every delivery attempt it carries
// (docs/webhooks.md, "Who sends (production)"). Not an API operation: no API key, a QStash signature
// instead, and not in the OpenAPI document.
import { Hono } from 'hono';
import { QSTASH_CALLBACK_PATH, type QStashConfig } from '../../../../config';
import type { AppEnv } from '../../../../platform/context';
import type { Database } from '../../../../platform/db/client';
import { verifyQStashSignature } from '../../../../platform/providers/queue/qstash';
import type { DeliveryQueue } from '../../../../platform/providers/queue/types';
import { ApiError } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { attemptDeliveryDetailed, type DeliveryOptions } from './deliver';
import { deliveryOptions } from './dispatcher-runs';

/** A callback that found the endpoint's attempts in flight at its budget publishes itself again this much later. */
export const BUSY_RETRY_MS = 10_000;

export type CallbackAnswer =
  | { status: 200; result: 'succeeded' | 'retry_scheduled' | 'in_progress' | 'endpoint_busy' }
  | { status: 489; result: 'done' | 'endpoint_off' | 'unknown_delivery' };

/**
 * One attempt for QStash. 200 when the attempt succeeded, when it failed and the next attempt is
 * published for the time our schedule says, or when another caller holds it; 489 (do not retry) when
 * there is nothing left to do for this message: the delivery is finished or unknown, or its endpoint
 * is off (its deliveries stay pending and are published again once it is on). Anything thrown (the
 * database or QStash unreachable) becomes a 5xx, and QStash retries the callback.
 */
export async function handleDeliveryCallback(
  db: Database,
  now: Date,
  deliveryId: string,
  options: DeliveryOptions,
  queue: DeliveryQueue,
): Promise<CallbackAnswer> {
  const attempt = await attemptDeliveryDetailed(db, deliveryId, now, options);
  switch (attempt.outcome) {
    case 'succeeded':
      return { status: 200, result: 'succeeded' };
    case 'failed':
      return { status: 489, result: 'done' };
    case 'retrying':
      await queue.publish([{ deliveryId, endpointId: attempt.endpointId!, attempts: attempt.attempts, notBefore: attempt.nextAttemptAt }]);
      return { status: 200, result: 'retry_scheduled' };
    case 'skipped':
      switch (attempt.skipReason) {
        case 'not_due':
          // Called early (or a duplicate): make sure the attempt is queued for when it is due.
          await queue.publish([
            { deliveryId, endpointId: attempt.endpointId!, attempts: attempt.attempts, notBefore: attempt.nextAttemptAt },
          ]);
          return { status: 200, result: 'retry_scheduled' };
        case 'claimed':
          return { status: 200, result: 'in_progress' };
        case 'endpoint_busy':
          // The endpoint's failure budget is held by attempts in flight: ask again once they are over.
          await queue.publish([
            {
              deliveryId,
              endpointId: attempt.endpointId!,
              attempts: attempt.attempts,
              notBefore: new Date(now.getTime() + BUSY_RETRY_MS),
              republishTag: `b${now.getTime()}`,
            },
          ]);
          return { status: 200, result: 'endpoint_busy' };
        case 'endpoint_off':
          return { status: 489, result: 'endpoint_off' };
        case 'not_found':
          return { status: 489, result: 'unknown_delivery' };
        default:
          return { status: 489, result: 'done' };
      }
  }
}

/** QStash does not retry a message answered with 489 and the upstash-nonretryable-error header. */
function answer(outcome: CallbackAnswer): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (outcome.status === 489) headers['upstash-nonretryable-error'] = 'true';
  // 489 is not a status Hono's typings know, so the response is built directly.
  return new Response(JSON.stringify({ success: outcome.status === 200, result: outcome.result }), { status: outcome.status, headers });
}

const refuse = () => new ApiError(401, 'UNAUTHORIZED', 'Missing or invalid QStash signature');

export const qstashCallbackRoutes = new Hono<AppEnv>().post(QSTASH_CALLBACK_PATH, async (c) => {
  const services = c.get('services');
  const { config, db, now, deliveryQueue } = services;
  const qstash: QStashConfig | null = config.qstash;
  // Without QStash configured the route does not exist.
  if (!qstash) throw new ApiError(404, 'NOT_FOUND', 'Not found');
  const rawBody = await c.req.text();
  if (!(await verifyQStashSignature(qstash, c.req.header('upstash-signature'), rawBody))) throw refuse();
  let deliveryId: unknown;
  try {
    deliveryId = (JSON.parse(rawBody) as { deliveryId?: unknown }).deliveryId;
  } catch {
    deliveryId = undefined;
  }
  // A signed body we cannot use will not improve on retry.
  if (typeof deliveryId !== 'string' || !isUuid(deliveryId)) return answer({ status: 489, result: 'unknown_delivery' });
  return answer(await handleDeliveryCallback(db, now(), deliveryId, deliveryOptions(services), deliveryQueue!));
});
