import { z } from '@hono/zod-openapi';

/** { success: true, message, data } — every success response. */
export function ok<T>(data: T, message = 'OK') {
  return { success: true as const, message, data };
}

export const errorBody = z
  .object({
    success: z.literal(false),
    message: z.string(),
    code: z.string().optional(),
  })
  .openapi('Error');

export function successBody<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), message: z.string(), data });
}

export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { content: { 'application/json': { schema } }, description };
}

/** A required JSON request body (required, so a wrong content type is refused rather than ignored). */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { content: { 'application/json': { schema } }, required: true };
}
