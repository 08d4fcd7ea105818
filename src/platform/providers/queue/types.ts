// The queue that carries webhook delivery attempts (QStash in production; none in development, where the
// local dispatcher delivers).

/** One attempt to schedule: deliveryId at notBefore (null: now). */
export interface QueuedAttempt {
  deliveryId: string;
  /** The delivery's endpoint: QStash calls back at most ENDPOINT_FAILURE_CUTOFF of its attempts at once. */
  endpointId: string;
  /** Attempts made so far; part of the deduplication id of every attempt after the first. */
  attempts: number;
  notBefore: Date | null;
  /** Set when re-publishing an attempt QStash may already have dropped (the cron safety net). */
  republishTag?: string;
}

/** The callback body QStash carries back to us. */
export interface DeliveryCallbackBody {
  deliveryId: string;
}

/** Where attempts are queued: QStash in production (tests: the same client against a stand-in). */
export interface DeliveryQueue {
  publish(attempts: QueuedAttempt[]): Promise<void>;
}
