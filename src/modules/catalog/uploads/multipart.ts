// What every multipart image route needs around the uploads area's checks (checkImage: type from the
// bytes, 5 MiB): a file field of any name, the declared-size refusal before the body is read, and
// errors that name the field actually sent. Used by every area that takes an image (docs/uploads.md).
import { z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../../platform/context';
import { errorBody, jsonContent } from '../../../platform/http/envelope';
import { ApiError, type FieldProblem, invalidFields } from '../../../platform/values/errors';
import { MAX_IMAGE_BYTES, MULTIPART_FRAMING_ALLOWANCE_BYTES } from './schemas';
import { type CheckedImage, checkImage, imageTooLarge } from './service';

export const IMAGE_RULES =
  "PNG, JPEG, WebP or GIF (the type is read from the bytes, not from the part's Content-Type or file name; SVG is refused), at most 5 MiB (5,242,880 bytes).";

/** A file part named `field` of a multipart body. */
export const imageFileField = (field: string, what: string) =>
  z
    .custom<File>((value) => value instanceof Blob, { message: `must be one file (multipart field ${field})` })
    .openapi({ type: 'string', format: 'binary', description: `${what}: ${IMAGE_RULES}` });

/** The request body declaration of a route taking one required image file under `field`. */
export function multipartImageBody<T extends z.ZodType>(schema: T, field: string) {
  return {
    content: { 'multipart/form-data': { schema } },
    required: true,
    description: `multipart/form-data with one file field, ${field}.`,
  };
}

export const imageUploadErrors = {
  413: jsonContent(errorBody, `PAYLOAD_TOO_LARGE: the image is over ${MAX_IMAGE_BYTES} bytes (5 MiB).`),
  415: jsonContent(errorBody, 'UNSUPPORTED_MEDIA_TYPE: the body is not multipart/form-data.'),
};

export const isMultipart = (contentType: string | undefined) => (contentType ?? '').trim().toLowerCase().startsWith('multipart/form-data');

/**
 * Refuses a multipart body whose declared Content-Length already exceeds the image limit plus the
 * framing allowance (413) before anything reads it. Runs after the route's guard, so 401/403 come
 * first. The file's own size is checked again once parsed (checkImage).
 */
const declaredSizeCheck: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (isMultipart(c.req.header('content-type'))) {
    const declared = Number(c.req.header('content-length'));
    if (Number.isFinite(declared) && declared > MAX_IMAGE_BYTES + MULTIPART_FRAMING_ALLOWANCE_BYTES) throw imageTooLarge();
  }
  await next();
};

/** Appends the declared-size check to a route's middleware (after defineRoute's guard). */
export function withDeclaredSizeCheck<R extends object>(route: R): R {
  const target = route as { middleware?: MiddlewareHandler<AppEnv> | MiddlewareHandler<AppEnv>[] };
  const existing = target.middleware ? ([] as MiddlewareHandler<AppEnv>[]).concat(target.middleware) : [];
  target.middleware = [...existing, declaredSizeCheck];
  return route;
}

/**
 * checkImage (413 over 5 MiB, 400 for anything that is not a PNG, JPEG, WebP or GIF by its bytes),
 * with its 400 naming `body.<field>` instead of the uploads area's `body.image`.
 */
export async function checkImageField(file: Blob, field: string): Promise<CheckedImage> {
  try {
    return await checkImage(file);
  } catch (error) {
    if (field === 'image' || !(error instanceof ApiError) || error.code !== 'VALIDATION_ERROR') throw error;
    const errors = ((error.extra?.errors as FieldProblem[] | undefined) ?? []).map((e) => ({
      field: e.field === 'body.image' ? `body.${field}` : e.field,
      message: e.message,
    }));
    throw errors.length ? invalidFields(errors) : error;
  }
}
