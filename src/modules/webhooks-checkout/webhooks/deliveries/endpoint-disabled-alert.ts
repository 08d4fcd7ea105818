// The alert when the delivery engine turns an endpoint off (docs/webhooks.md, "When an endpoint is
// turned off"): a notification of the clinic and an email to its owners and admins, written in the
// transaction that turns the endpoint off, so they exist exactly once per turn-off.
import { and, eq, inArray } from 'drizzle-orm';
import { BRAND_ADMIN_ROLES, notifications, users } from '../../../../../drizzle/schema';
import type { Queryable } from '../../../../platform/db/client';
import type { MessageSender } from '../../../../platform/providers/messaging/types';

export const ENDPOINT_DISABLED_NOTIFICATION = 'webhook_endpoint_disabled';
/** The messages.kind of the email. */
export const ENDPOINT_DISABLED_EMAIL = 'webhook_endpoint_disabled';

export interface DisabledEndpoint {
  clinicId: string;
  endpointId: string;
  url: string;
  /** Our description of the last failure ("HTTP 500", "timeout after 5000 ms"): never the receiver's answer or the event. */
  lastError: string;
  failures: number;
  disabledAt: Date;
}

/** What to do, the same in the notification and the email. */
const nextSteps = (endpointId: string) =>
  [
    'What to do:',
    '1. Check the receiver: its logs, and the attempts of its last deliveries',
    `   (GET /api/v1/webhooks/${endpointId}/deliveries, then .../deliveries/{deliveryId}/attempts).`,
    `2. Send a test: POST /api/v1/webhooks/${endpointId}/test { "event": "order.created" } (allowed while it is off).`,
    `3. Turn it on: PATCH /api/v1/webhooks/${endpointId} { "isActive": true }. Events of the time it was off were kept`,
    '   (held) and go out, oldest first, with their original idempotency keys.',
    `4. To send again what failed before it was turned off: POST /api/v1/webhooks/${endpointId}/recover { "since": "<time>" }.`,
  ].join('\n');

/**
 * Records the notification and queues one email per active owner and admin of the clinic, through
 * `tx` (the transaction that turned the endpoint off) and the messaging outbox. Names the endpoint and
 * the last error only; no event, no patient data.
 */
export async function alertEndpointDisabled(tx: Queryable, messaging: MessageSender, alert: DisabledEndpoint): Promise<void> {
  const title = 'Webhook endpoint turned off';
  const summary = `The webhook endpoint ${alert.url} (${alert.endpointId}) was turned off at ${alert.disabledAt.toISOString()} after ${alert.failures} consecutive failed attempts. Last error: ${alert.lastError}.`;
  await tx.insert(notifications).values({
    clinicId: alert.clinicId,
    type: ENDPOINT_DISABLED_NOTIFICATION,
    title,
    body: `${summary} Nothing is sent to it until it is turned on; new events are kept for it meanwhile.`,
    data: { endpointId: alert.endpointId, url: alert.url, lastError: alert.lastError, disabledAt: alert.disabledAt.toISOString() },
    createdAt: alert.disabledAt,
  });
  const admins = await tx
    .select({ email: users.email })
    .from(users)
    .where(and(eq(users.clinicId, alert.clinicId), eq(users.isActive, true), inArray(users.role, [...BRAND_ADMIN_ROLES])));
  for (const { email } of admins) {
    await messaging.send(
      tx,
      {
        clinicId: alert.clinicId,
        channel: 'email',
        kind: ENDPOINT_DISABLED_EMAIL,
        to: email,
        subject: `${title}: ${alert.url}`,
        body: `${summary}\n\nNothing is sent to it until it is turned on; events that happen meanwhile are kept for it.\n\n${nextSteps(alert.endpointId)}`,
      },
      alert.disabledAt,
    );
  }
}
