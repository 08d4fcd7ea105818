import { eq } from 'drizzle-orm';
import { globalProductImageOverrides, globalProducts, products, programs, uploads } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Database, Transaction } from '../../../platform/db/client';
import { forClinic } from '../../../platform/db/scoped';
import type { ObjectStorage } from '../../../platform/providers/storage/types';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { ApiError, invalidField, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { detectImageType, type ImageType } from './image-type';
import { MAX_IMAGE_BYTES, type StoredImage } from './schemas';

export type UploadPurpose = StoredImage['purpose'];

export interface UploadDeps {
  db: Database;
  storage: ObjectStorage;
  now(): Date;
}

/** An image whose size and type have been checked, bytes in hand. */
export interface CheckedImage {
  bytes: Uint8Array;
  type: ImageType;
}

export const imageTooLarge = () => new ApiError(413, 'PAYLOAD_TOO_LARGE', ERROR_MESSAGES.PAYLOAD_TOO_LARGE.image(MAX_IMAGE_BYTES));

const unsupportedImage = (detail: string) => invalidField('body.image', detail);

/**
 * Reads an uploaded file and checks it: at most MAX_IMAGE_BYTES (413), and a PNG, JPEG, WebP or GIF
 * by its bytes (400 otherwise, whatever Content-Type or file name the part declared).
 */
export async function checkImage(file: Blob): Promise<CheckedImage> {
  if (file.size > MAX_IMAGE_BYTES) throw imageTooLarge();
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (bytes.byteLength > MAX_IMAGE_BYTES) throw imageTooLarge();
  if (bytes.byteLength === 0) throw unsupportedImage('the file is empty');
  const type = detectImageType(bytes);
  if (!type) throw unsupportedImage("must be a PNG, JPEG, WebP or GIF image (read from the file's bytes; SVG and other types are refused)");
  return { bytes, type };
}

/** clinics/<clinicId>/<purpose>/<uuid>.<ext>: every object of a clinic under its own prefix, never guessable. */
export const objectKeyFor = (clinicId: string, purpose: UploadPurpose, type: ImageType) =>
  `clinics/${clinicId}/${purpose}/${crypto.randomUUID()}.${type.extension}`;

/**
 * Every area's image upload goes through here. Stores the bytes, then, in one transaction, runs `apply` (which points the target row at the url
 * and throws notFound when the row is gone) and records the upload. If the transaction fails the
 * object is deleted again, so no stored object is left without its uploads row.
 */
export async function storeImage<T>(
  deps: UploadDeps,
  clinicId: string,
  purpose: UploadPurpose,
  image: CheckedImage,
  apply: (tx: Transaction, url: string) => Promise<T>,
): Promise<{ result: T; upload: StoredImage }> {
  const stored = await deps.storage.put(objectKeyFor(clinicId, purpose, image.type), image.bytes, image.type.contentType);
  try {
    return await deps.db.transaction(async (tx) => {
      const result = await apply(tx, stored.url);
      const row = await forClinic(tx, clinicId).insert(uploads, {
        objectKey: stored.key,
        contentType: image.type.contentType,
        sizeBytes: image.bytes.byteLength,
        purpose,
        createdAt: deps.now(),
      });
      const upload: StoredImage = {
        id: row.id,
        key: row.objectKey,
        url: stored.url,
        contentType: image.type.contentType,
        sizeBytes: row.sizeBytes,
        purpose,
        createdAt: row.createdAt.toISOString(),
      };
      return { result, upload };
    });
  } catch (error) {
    await deps.storage.delete(stored.key).catch(() => {});
    throw error;
  }
}

/** What storeImage takes from a request's context, its clock read once for the whole operation. */
const uploadDeps = (ctx: HandlerContext, now: Date): UploadDeps => ({ db: ctx.db, storage: ctx.storage, now: () => now });

/** POST /programs/{id}/upload-image: stores the image and sets programs.hero_image_url. */
export async function setProgramImage(ctx: HandlerContext, programId: string, image: CheckedImage) {
  const { clinicId } = ctx;
  const deps = uploadDeps(ctx, ctx.now());
  const scoped = forClinic(deps.db, clinicId);
  if (!isUuid(programId)) throw notFound('Program');
  // Checked before storing, so an unknown id never writes to the bucket.
  if ((await scoped.count(programs, eq(programs.id, programId))) === 0) throw notFound('Program');
  const { upload } = await storeImage(deps, clinicId, 'program_image', image, (tx, url) =>
    forClinic(tx, clinicId).updateById(programs, programId, { heroImageUrl: url, updatedAt: deps.now() }, 'Program'),
  );
  return { programId, imageUrl: upload.url, upload };
}

/** POST /products/{id}/upload-image with an image: only the clinic's own products. */
export async function setProductImage(ctx: HandlerContext, productId: string, image: CheckedImage) {
  const { clinicId } = ctx;
  const deps = uploadDeps(ctx, ctx.now());
  const scoped = forClinic(deps.db, clinicId);
  if (!isUuid(productId)) throw notFound('Product');
  if ((await scoped.count(products, eq(products.id, productId))) === 0) throw notFound('Product');
  const { upload } = await storeImage(deps, clinicId, 'product_image', image, (tx, url) =>
    forClinic(tx, clinicId).updateById(products, productId, { imageUrl: url, updatedAt: deps.now() }, 'Product'),
  );
  return { productId, imageUrl: upload.url as string | null, upload: upload as StoredImage | null };
}

/**
 * POST /products/{id}/upload-image with { removeImage: true }: clears the image. The stored object
 * and its uploads row are kept (a duplicated program or product may point at the same url).
 */
export async function removeProductImage(ctx: HandlerContext, productId: string) {
  await forClinic(ctx.db, ctx.clinicId).updateById(products, productId, { imageUrl: null, updatedAt: ctx.now() }, 'Product');
  return { productId, imageUrl: null, upload: null };
}

/**
 * POST /global-products/{id}/upload-image: the clinic's own image for a shared global product, kept
 * in global_product_image_overrides (one row per clinic and product, replaced on each upload). The
 * global_products row is never written.
 */
export async function setGlobalProductImage(ctx: HandlerContext, globalProductId: string, image: CheckedImage) {
  const { clinicId } = ctx;
  const deps = uploadDeps(ctx, ctx.now());
  if (!isUuid(globalProductId)) throw notFound('Global product');
  const [exists] = await deps.db
    .select({ id: globalProducts.id })
    .from(globalProducts)
    .where(eq(globalProducts.id, globalProductId))
    .limit(1);
  if (!exists) throw notFound('Global product');
  const { upload } = await storeImage(deps, clinicId, 'global_product_image', image, async (tx, url) => {
    const now = deps.now();
    await tx
      .insert(globalProductImageOverrides)
      .values({ clinicId, globalProductId, imageUrl: url, updatedAt: now })
      .onConflictDoUpdate({
        target: [globalProductImageOverrides.clinicId, globalProductImageOverrides.globalProductId],
        set: { imageUrl: url, updatedAt: now },
      });
  });
  return { globalProductId, imageUrl: upload.url, upload };
}
