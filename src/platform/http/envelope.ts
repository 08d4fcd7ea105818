import { z } from '@hono/zod-openapi';

/** { success: true, message, data } — every success response. */
export function ok<T>(data: T, message = 'OK') {
  return { success: true as const, message, data };
}

/**
 * The error envelope, declaring every field the error handler sends: `code` and `requestId` always; `errors` on a
 * 400 VALIDATION_ERROR from validation; `retryAfterSeconds` on 429 and 503 (with a Retry-After
 * header). An area whose ApiError carries other fields (`extra`) declares them with errorBody.extend.
 */
export const errorBody = z
  .object({
    success: z.literal(false),
    message: z.string(),
    code: z.string().openapi({ example: 'VALIDATION_ERROR' }),
    requestId: z.string().openapi({
      description: "The request's id, as in the X-Request-Id header (always the API's own). GET /request-logs/{requestId} finds the call.",
      example: '3f1c2a9e-7b4d-4e8a-9c21-5d6e7f8a9b0c',
    }),
    errors: z
      .array(z.object({ field: z.string().openapi({ example: 'body.name' }), message: z.string() }))
      .optional()
      .openapi({ description: 'VALIDATION_ERROR from validation: each refused field, named as target.path.' }),
    retryAfterSeconds: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'RATE_LIMIT_EXCEEDED and SERVICE_UNAVAILABLE: seconds to wait (as in Retry-After).' }),
  })
  .openapi('Error');

export function successBody<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), message: z.string(), data });
}

/**
 * A route's own example for a body (request or response): partial, because the document composes the
 * rest from the schema (src/platform/openapi/examples.ts); a key set to undefined is left out.
 * Give one only where the composed example would mislead (fields that go together, a refund's status).
 */
export type ExampleHint<T> = T extends readonly (infer U)[]
  ? ExampleHint<U>[]
  : T extends object
    ? { [K in keyof T]?: ExampleHint<T[K]> | undefined }
    : T;

const withExample = <T>(example: T | undefined) => (example === undefined ? {} : { example });

export function jsonContent<T extends z.ZodType>(schema: T, description: string, example?: ExampleHint<z.input<T>>) {
  return { content: { 'application/json': { schema, ...withExample(example) } }, description };
}

/** Headers of a response that carries a secret (a raw key, a sign-in token): no cache may keep it. */
export const NO_STORE_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** jsonContent for a response that carries a secret, declaring the NO_STORE_HEADERS it is sent with. */
export function secretJsonContent<T extends z.ZodType>(schema: T, description: string) {
  return {
    ...jsonContent(schema, description),
    headers: {
      'Cache-Control': { description: 'no-store: the body carries a secret.', schema: { type: 'string' as const, enum: ['no-store'] } },
      Pragma: { description: 'no-cache, for HTTP/1.0 caches.', schema: { type: 'string' as const, enum: ['no-cache'] } },
    },
  };
}

/** A required JSON request body (required, so a wrong content type is refused rather than ignored). */
export function jsonBody<T extends z.ZodType>(schema: T, example?: ExampleHint<z.input<T>>) {
  return { content: { 'application/json': { schema, ...withExample(example) } }, required: true };
}
