// Production delivery through QStash (docs/webhooks.md, "Who sends"). Every attempt of a delivery is
// one QStash message to our own callback route, published for the time our retry schedule says; the
// callback verifies QStash's signature and makes the attempt with the same attemptDelivery as the
// local dispatcher. QStash's own retries only cover our callback failing (a 5xx from us).
import { Client, Receiver } from '@upstash/qstash';
import type { QStashConfig } from '../../../config';
import type { DeliveryCallbackBody, DeliveryQueue, QueuedAttempt } from './types';

/** QStash retries our callback this many times when it answers 5xx (e.g. the database is down). */
export const QSTASH_CALLBACK_RETRIES = 5;

/**
 * The deduplication id of an attempt: the delivery id for its first attempt (so publishing a new
 * delivery twice sends it once), `<id>:<n>` for the attempt after n failures, and a tagged id for a
 * re-publication by the safety net (QStash keeps ids for 90 days; a plain id would be dropped).
 */
export function deduplicationIdOf(attempt: QueuedAttempt): string {
  const base = attempt.attempts === 0 ? attempt.deliveryId : `${attempt.deliveryId}:${attempt.attempts}`;
  return attempt.republishTag ? `${base}:${attempt.republishTag}` : base;
}

/**
 * Callbacks QStash makes at once for one endpoint (its flow control, keyed by endpoint). The same number
 * as the endpoint's failure budget (ENDPOINT_FAILURE_CUTOFF, which the callback enforces): without it a
 * backlog of thousands to one endpoint was called back all at once, and every callback past the budget
 * answered endpoint_busy and re-published itself 10 s later, round after round.
 */
export const ENDPOINT_CALLBACK_PARALLELISM = 10;

/** Attempts published at once (each is one HTTP call to QStash). */
const PUBLISH_CONCURRENCY = 10;

export class QStashDeliveryQueue implements DeliveryQueue {
  private readonly client: Client;

  constructor(
    private readonly config: QStashConfig,
    fetchImpl?: typeof fetch,
  ) {
    this.client = new Client({
      token: config.token,
      baseUrl: config.baseUrl,
      retry: { retries: 2, backoff: (n) => 200 * 2 ** n },
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    } as ConstructorParameters<typeof Client>[0]);
  }

  async publish(attempts: QueuedAttempt[]): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < attempts.length) {
        const attempt = attempts[next++]!;
        const body: DeliveryCallbackBody = { deliveryId: attempt.deliveryId };
        await this.client.publishJSON({
          url: this.config.callbackUrl,
          body,
          deduplicationId: deduplicationIdOf(attempt),
          retries: QSTASH_CALLBACK_RETRIES,
          flowControl: { key: `webhook-endpoint-${attempt.endpointId}`, parallelism: ENDPOINT_CALLBACK_PARALLELISM },
          ...(attempt.notBefore ? { notBefore: Math.ceil(attempt.notBefore.getTime() / 1000) } : {}),
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(PUBLISH_CONCURRENCY, attempts.length) }, worker));
  }
}

/**
 * Checks the Upstash-Signature of a callback against the current signing key, then the next one (key
 * rotation), including the body hash and our callback URL as the subject. False for anything else:
 * missing, malformed, expired, or signed with another key.
 */
export async function verifyQStashSignature(config: QStashConfig, signature: string | undefined, rawBody: string): Promise<boolean> {
  if (!signature) return false;
  const receiver = new Receiver({ currentSigningKey: config.currentSigningKey, nextSigningKey: config.nextSigningKey });
  try {
    return await receiver.verify({ signature, body: rawBody, url: config.callbackUrl, clockTolerance: 5 });
  } catch {
    return false;
  }
}
