// The request body size limit of every route (docs/api-conventions.md, "Request bodies").
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../context';
import { ERROR_MESSAGES } from '../values/error-messages';
import { ApiError } from '../values/errors';

/** Bodies above these sizes answer 413. Upload routes may set tighter limits of their own. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;
export const MAX_MULTIPART_BODY_BYTES = 10 * 1024 * 1024;

/** The largest body the app takes with this Content-Type (upload routes may take less). */
export const maxBodyBytes = (contentType: string | undefined): number =>
  (contentType ?? '').startsWith('multipart/form-data') ? MAX_MULTIPART_BODY_BYTES : MAX_JSON_BODY_BYTES;

const tooLarge = (maxSize: number) => () => {
  throw new ApiError(413, 'PAYLOAD_TOO_LARGE', ERROR_MESSAGES.PAYLOAD_TOO_LARGE.body(maxSize));
};
const limits = new Map(
  [MAX_JSON_BODY_BYTES, MAX_MULTIPART_BODY_BYTES].map((maxSize) => [maxSize, bodyLimit({ maxSize, onError: tooLarge(maxSize) })]),
);

/**
 * 413 PAYLOAD_TOO_LARGE above MAX_JSON_BODY_BYTES, or MAX_MULTIPART_BODY_BYTES for a multipart body.
 *
 * The body of a GET or HEAD is ignored: never read, never limited. workerd hands a Worker a body on any
 * request that sends Content-Length or Transfer-Encoding, GET included, and hono's bodyLimit rebuilds a
 * streamed (chunked) request with `new Request(raw, { body })`, which the Fetch standard refuses for
 * GET and HEAD: a TypeError, that is a 500, on every chunked GET (issue 26, finding 3). No route reads
 * the body of a GET or HEAD, and such a body has no meaning in HTTP (RFC 9110, 9.3.1 and 9.3.2).
 */
export const requestBodyLimit: MiddlewareHandler<AppEnv> = (c, next) => {
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
  return limits.get(maxBodyBytes(c.req.header('content-type')))!(c, next);
};
