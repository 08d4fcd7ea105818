// The retry schedule of webhook deliveries (docs/webhooks.md, "Retry schedule").

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Wait before retry n (1-based) after a failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
 * (Svix's schedule), about 27.6 hours plus jitter in all. A delivery gets the first attempt plus
 * these seven retries, eight attempts; after the eighth failure it is failed.
 */
export const RETRY_SCHEDULE_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/** Each wait is moved by up to ±10% at random, so retries of many deliveries do not arrive together. */
export const JITTER_RATIO = 0.1;
/** A receiver's Retry-After may lengthen a wait up to this, never shorten it below the schedule step. */
export const MAX_RETRY_AFTER_MS = 10 * HOUR;

/** Retry-After as seconds (delta) or an HTTP date; null when absent or unreadable. In milliseconds. */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed) * SECOND;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

/**
 * When to try again after failed attempt number `attempts` (1-based), or null when the schedule is
 * exhausted. `random` is in [0, 1) (Math.random by default; tests pass a fixed value).
 */
export function nextAttemptAt(
  attempts: number,
  now: Date,
  retryAfterMs: number | null = null,
  random: () => number = Math.random,
): Date | null {
  if (attempts < 1 || attempts >= MAX_ATTEMPTS) return null;
  const step = RETRY_SCHEDULE_MS[attempts - 1]!;
  const jittered = Math.round(step * (1 - JITTER_RATIO + 2 * JITTER_RATIO * random()));
  const wait = retryAfterMs === null ? jittered : Math.min(Math.max(retryAfterMs, step), MAX_RETRY_AFTER_MS);
  return new Date(now.getTime() + wait);
}
