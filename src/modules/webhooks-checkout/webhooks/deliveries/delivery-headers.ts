// The headers of one delivery attempt (docs/webhooks.md, "Delivery"): both signature schemes, signed
// fresh, plus the event, attempt and idempotency headers. The signatures come from the client package's
// webhook-signature module (by its source path: the package itself exports its built dist/), the one
// implementation receivers verify with too (clients/typescript).
import { serviceSignatureHeader, standardSignatureHeader } from '../../../../../clients/typescript/src/webhook-signature';

export interface DeliveryHeaderInput {
  /** The endpoint's active secrets, newest first (two during a rotation's grace period). */
  secrets: readonly string[];
  body: string;
  eventType: string;
  /** New for every attempt. */
  attemptId: string;
  /** The same across retries and replays; also the Standard Webhooks webhook-id. */
  idempotencyKey: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
}

/** Every header of one attempt, signed fresh. */
export async function deliveryHeaders(input: DeliveryHeaderInput): Promise<Record<string, string>> {
  if (input.secrets.length === 0) throw new Error('deliveryHeaders: no active signing secret');
  const [service, standard] = await Promise.all([
    serviceSignatureHeader(input.secrets, input.timestamp, input.body),
    standardSignatureHeader(input.secrets, input.idempotencyKey, input.timestamp, input.body),
  ]);
  return {
    'content-type': 'application/json',
    'user-agent': 'Service-Webhooks/1.0',
    'x-service-signature': service,
    'x-service-event': input.eventType,
    'x-service-delivery-id': input.attemptId,
    'x-service-idempotency-key': input.idempotencyKey,
    'webhook-id': input.idempotencyKey,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': standard,
  };
}
