import { z } from '@hono/zod-openapi';

/** Largest image an upload route stores (5 MiB). Above it: 413 PAYLOAD_TOO_LARGE. docs/uploads.md. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/**
 * A multipart body carries the file plus its framing (boundary lines, part headers). A declared
 * Content-Length above the image limit plus this much is refused before the body is read.
 */
export const MULTIPART_FRAMING_ALLOWANCE_BYTES = 64 * 1024;

const IMAGE_DESCRIPTION =
  "The image file: PNG, JPEG, WebP or GIF (the type is read from the bytes, not from the part's Content-Type or file name; SVG is refused), at most 5 MiB.";

/** What an upload is for; each area that stores images adds its purpose here. */
export const UPLOAD_PURPOSES = [
  'program_image',
  'product_image',
  'global_product_image',
  'page_image',
  'template_image',
  'website_logo',
  'website_hero',
  'treatment_logo',
  'clinic_logo',
] as const;

/** A file part of a multipart body (hono hands files over as File, a Blob). */
const imageFile = z
  .custom<File>((value) => value instanceof Blob, { message: 'must be one file (multipart field image)' })
  .openapi({ type: 'string', format: 'binary', description: IMAGE_DESCRIPTION });

/** multipart/form-data with one required field, image. */
export const imageUploadForm = z.object({ image: imageFile }).strict().openapi('ImageUploadForm');

/** POST /products/{id}/upload-image as JSON: clears the product's image. */
export const removeImageBody = z
  .object({
    removeImage: z
      .literal(true)
      .openapi({ description: "true clears the product's image (imageUrl becomes null). false is refused: send an image to replace it." }),
  })
  .strict()
  .openapi('RemoveImageRequest');

/** The stored file (a row of uploads; the bytes are in the UPLOADS bucket under key). */
export const storedImage = z
  .object({
    id: z.string().uuid().openapi({ description: 'The upload record.' }),
    key: z
      .string()
      .openapi({ example: 'clinics/5b0c1f0e-9a51-4a34-8a5f-0e6f3f4b9e21/program_image/0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10.png' }),
    url: z
      .string()
      .openapi({ description: 'Where the image is served: `UPLOADS_PUBLIC_BASE_URL/<key>`, or `/uploads/<key>` on this host.' }),
    contentType: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/gif']),
    sizeBytes: z.number().int(),
    purpose: z.enum(UPLOAD_PURPOSES),
    createdAt: z.string().datetime(),
  })
  .openapi('StoredImage');
export type StoredImage = z.infer<typeof storedImage>;

export const programImageResult = z
  .object({
    programId: z.string().uuid(),
    imageUrl: z.string().openapi({ description: "The program's heroImageUrl now (the stored image's url)." }),
    upload: storedImage,
  })
  .openapi('ProgramImageResult');

export const productImageResult = z
  .object({
    productId: z.string().uuid(),
    imageUrl: z
      .string()
      .nullable()
      .openapi({ description: "The product's imageUrl now: the stored image's url, or null after removeImage." }),
    upload: z.union([storedImage, z.null()]).openapi({ description: 'The stored file; null after removeImage.' }),
  })
  .openapi('ProductImageResult');

export const globalProductImageResult = z
  .object({
    globalProductId: z.string().uuid(),
    imageUrl: z
      .string()
      .openapi({ description: "This clinic's image for the global product (its override); the shared product's own image is unchanged." }),
    upload: storedImage,
  })
  .openapi('GlobalProductImageResult');
