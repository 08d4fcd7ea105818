import { z } from '@hono/zod-openapi';
import { pageQuery } from '../../../platform/http/pagination';
import { REQUEST_ID_MAX_LENGTH } from '../../../platform/http/request-id';
import { REQUEST_LOG_API_DAYS } from '../../../platform/request-log';
import { dateTime } from '../../../platform/values/dates';
import { safeString } from '../../../platform/values/strings';

export const LOGGED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export const RATE_LIMIT_OUTCOMES = ['allowed', 'limited'] as const;

/** A status code (404) or a class of them (4xx). */
const STATUS_FILTER = /^[1-5](?:\d\d|[xX][xX])$/;

export const listRequestLogsQuery = pageQuery.extend({
  status: z
    .string()
    .regex(STATUS_FILTER, 'must be a status code (404) or a class (4xx)')
    .optional()
    .openapi({ description: 'A status code (`404`) or a class of them (`4xx`, `5xx`).', example: '4xx' }),
  method: z.enum(LOGGED_METHODS).optional().openapi({ description: 'The HTTP method, in capitals.', example: 'POST' }),
  route: safeString()
    .min(1)
    .max(300)
    .optional()
    .openapi({ description: 'The route pattern as the API declares it (`/api/v1/orders/{id}`), exactly.', example: '/api/v1/orders/{id}' }),
  apiKeyId: z.string().uuid().optional().openapi({ description: "Only this key's requests (one of the clinic's keys)." }),
  createdGte: dateTime()
    .optional()
    .openapi({ description: `Made at or after this instant (the list never reaches further back than ${REQUEST_LOG_API_DAYS} days).` }),
  createdLte: dateTime().optional().openapi({ description: 'Made at or before this instant.' }),
});
export type ListRequestLogsQuery = z.infer<typeof listRequestLogsQuery>;

export const requestIdParam = z.object({
  requestId: z.string().openapi({
    param: { name: 'requestId', in: 'path' },
    description: `The request's id (the X-Request-Id the API answered), or the client's own X-Request-Id it sent (1-${REQUEST_ID_MAX_LENGTH} visible ASCII characters): the newest request with that id. Unknown, too old and another clinic's ids answer the same 404.`,
    example: '3f1c2a9e-7b4d-4e8a-9c21-5d6e7f8a9b0c',
  }),
});

export const requestLog = z
  .object({
    requestId: z.string().openapi({
      description: "The request's id, as the API answered it in X-Request-Id (rows written before issue 37 may hold the client's own).",
    }),
    clientRequestId: z
      .string()
      .max(REQUEST_ID_MAX_LENGTH)
      .regex(/^[\x21-\x7e]+$/)
      .nullable()
      .openapi({
        description:
          'The X-Request-Id the client sent, when it was 1-128 visible ASCII characters: kept as data, not the request id; null otherwise.',
        example: null,
      }),
    createdAt: z.string().datetime().openapi({ description: 'When the request was answered.' }),
    method: z.string().openapi({ example: 'GET' }),
    route: z.string().openapi({ description: 'The route pattern; `unmatched` when no route matched.', example: '/api/v1/orders/{id}' }),
    path: z.string().nullable().openapi({
      description:
        'The route pattern with the path parameters that may be recorded filled in (ids that are UUIDs; values the route declares and that validated), every other left as its placeholder ({id}); never the query string. Null when no route matched (a typed path may hold anything) and for rows from before the field existed.',
      example: '/api/v1/orders/0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10',
    }),
    status: z.number().int().openapi({ example: 200 }),
    errorCode: z.string().nullable().openapi({ description: 'The error code of the answer; null for a success.', example: null }),
    durationMs: z.number().int().openapi({ description: 'From the gateway to the answer, in milliseconds.', example: 42 }),
    apiKeyId: z.string().uuid(),
    keyPrefix: z.string().openapi({ description: "The key's prefix, to tell keys apart.", example: 'svc_live_4f9a' }),
    idempotencyKey: z
      .string()
      .nullable()
      .openapi({ description: "A write's Idempotency-Key as sent; null for reads and writes without one.", example: null }),
    idempotentReplayed: z
      .boolean()
      .openapi({ description: 'The answer was the stored one of an earlier request with the same Idempotency-Key.' }),
    rateLimitOutcome: z.enum(RATE_LIMIT_OUTCOMES).openapi({ description: 'limited: a rate limit refused the request (429).' }),
    rateLimitRemaining: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'RateLimit-Remaining as answered; null when the rate-limit store did not say.', example: 118 }),
    clientIp: z
      .string()
      .nullable()
      .openapi({ description: 'The client address as the edge gave it (CF-Connecting-IP).', example: '203.0.113.7' }),
    userAgent: z
      .string()
      .nullable()
      .openapi({ description: 'The User-Agent header, cut at 512 characters.', example: 'brand-server/2.3 node' }),
  })
  .openapi('RequestLog');
export type RequestLog = z.infer<typeof requestLog>;
