/** The header a request id travels in, both ways. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The longest client-sent request id kept; a longer one is replaced. */
export const REQUEST_ID_MAX_LENGTH = 128;

/** 1 to 128 visible ASCII characters (0x21-0x7E): no spaces, no control characters, nothing outside ASCII. */
const VALID_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The request's id: the client's X-Request-Id when it is a valid one (so a client can find its own
 * call in the request logs under the id it chose), else a new UUID. An invalid one is not an error:
 * it is replaced, and the answer's X-Request-Id says which id the request got.
 */
export function requestIdFrom(sent: string | undefined | null): string {
  return isValidRequestId(sent) ? sent : crypto.randomUUID();
}

/** Whether a value could be a request's id (one the API would have kept); nothing else needs looking up. */
export function isValidRequestId(value: string | undefined | null): value is string {
  return value !== undefined && value !== null && VALID_REQUEST_ID.test(value);
}
