// The development simulator's operation (POST /_dev/orders/{id}/events, dev-routes.ts): one platform
// event applied to one of the clinic's orders, answered with the order's lifecycle state after it.
import type { HandlerContext } from '../../../../platform/context';
import { notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { applyPlatformEvent } from './apply';
import type { PlatformEvent } from './platform-events';
import { readLifecycleState } from './state';

export async function simulatePlatformEvent(ctx: HandlerContext, orderId: string, event: PlatformEvent) {
  const { db, clinicId } = ctx;
  if (!isUuid(orderId)) throw notFound('Order');
  const at = ctx.now();
  const result = await db.transaction(async (tx) => {
    const applied = await applyPlatformEvent(tx, clinicId, orderId, event, { now: at });
    return { applied, state: await readLifecycleState(tx, clinicId, orderId) };
  });
  const recorded = {
    id: result.applied.orderEventId,
    eventType: result.applied.eventType,
    fromStatus: result.applied.fromStatus,
    toStatus: result.applied.toStatus,
    occurredAt: at.toISOString(),
  };
  return { ...result.state!, event: recorded };
}
