/** The header a request id travels in, both ways. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The longest client-sent request id kept; a longer one is dropped. */
export const REQUEST_ID_MAX_LENGTH = 128;

/** 1 to 128 visible ASCII characters (0x21-0x7E): no spaces, no control characters, nothing outside ASCII. */
const VALID_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The request's id, Stripe-like: always ours, a new UUID, whatever the client sent (docs/request-logs.md,
 * "Request ids"). A client's X-Request-Id is text it chose (it need not be unique, and may hold anything
 * 128 visible characters can), so it never becomes an identifier of our rows or our log lines: it is kept
 * as data beside ours (clientRequestIdFrom).
 */
export const newRequestId = (): string => crypto.randomUUID();

/**
 * The client's own X-Request-Id, kept as data in the request log (its `clientRequestId`, and
 * GET /request-logs/{requestId} finds a call by it too) when it is 1-128 visible ASCII characters;
 * anything else is dropped, never an error.
 */
export function clientRequestIdFrom(sent: string | undefined | null): string | null {
  return isValidRequestId(sent) ? sent : null;
}

/** Whether a value could be a request's id or a client's (one the API would have kept); nothing else needs looking up. */
export function isValidRequestId(value: string | undefined | null): value is string {
  return value !== undefined && value !== null && VALID_REQUEST_ID.test(value);
}
