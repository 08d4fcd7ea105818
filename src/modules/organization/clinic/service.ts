// The clinic's profile (GET /clinic, PUT /clinic/{id}), its slug and its logo (docs/organization.md, "Clinic").
import { and, eq } from 'drizzle-orm';
import { clinics, customDomains } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { isUniqueViolation } from '../../../platform/db/errors';
import { isoOrNull } from '../../../platform/values/dates';
import { ApiError, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { type CheckedImage, storeImage } from '../../catalog';
import { isReservedSlug } from '../organization/validation';
import type { ClinicProfileView, UpdateClinicBody } from './schemas';

const RESOURCE = 'Clinic';
const SLUG_INDEX = 'clinics_slug_key';

/** GET /clinic: one query (the clinic and its active custom hostname). */
export async function getClinic(ctx: HandlerContext): Promise<ClinicProfileView> {
  return readClinic(ctx.db, ctx.clinicId);
}

async function readClinic(db: Queryable, clinicId: string): Promise<ClinicProfileView> {
  const [row] = await db
    .select({ clinic: clinics, hostname: customDomains.hostname })
    .from(clinics)
    .leftJoin(customDomains, and(eq(customDomains.clinicId, clinics.id), eq(customDomains.status, 'active')))
    .where(eq(clinics.id, clinicId))
    .limit(1);
  if (!row) throw notFound(RESOURCE);
  const c = row.clinic;
  return {
    id: c.id,
    name: c.name,
    slug: c.slug,
    mode: c.mode,
    isActive: c.isActive,
    logoUrl: c.logoUrl,
    description: c.description,
    primaryColor: c.primaryColor,
    contactEmail: c.contactEmail,
    contactPhone: c.contactPhone,
    customDomain: row.hostname ?? null,
    sandboxExpiresAt: isoOrNull(c.sandboxExpiresAt),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

const slugTaken = (slug: string) => new ApiError(409, 'CONFLICT', `The slug "${slug}" is already taken`);

/** PUT /clinic/{id}: `id` must be the key's clinic (anything else, malformed included, is the same 404). */
export async function updateClinic(ctx: HandlerContext, id: string, body: UpdateClinicBody): Promise<ClinicProfileView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id) || id.toLowerCase() !== clinicId.toLowerCase()) throw notFound(RESOURCE);
  if (body.slug !== undefined && isReservedSlug(body.slug))
    throw new ApiError(409, 'CONFLICT', `The slug "${body.slug}" is reserved by the platform`);
  const changes: Partial<typeof clinics.$inferInsert> = { updatedAt: now };
  if (body.name !== undefined) changes.name = body.name;
  if (body.slug !== undefined) changes.slug = body.slug;
  if (body.description !== undefined) changes.description = body.description;
  if (body.primaryColor !== undefined) changes.primaryColor = body.primaryColor;
  if (body.contactEmail !== undefined) changes.contactEmail = body.contactEmail;
  if (body.contactPhone !== undefined) changes.contactPhone = body.contactPhone;
  try {
    const [updated] = await db.update(clinics).set(changes).where(eq(clinics.id, clinicId)).returning({ id: clinics.id });
    if (!updated) throw notFound(RESOURCE);
  } catch (error) {
    if (isUniqueViolation(error, SLUG_INDEX)) throw slugTaken(body.slug ?? '');
    throw error;
  }
  return readClinic(db, clinicId);
}

/**
 * GET /clinic/check-slug/{slug}: available unless another clinic has it or the platform reserves it.
 * The clinic's own current slug is available (setting it again changes nothing).
 */
export async function isSlugAvailable(ctx: HandlerContext, slug: string): Promise<boolean> {
  const { db, clinicId } = ctx;
  if (isReservedSlug(slug)) return false;
  const [holder] = await db.select({ id: clinics.id }).from(clinics).where(eq(clinics.slug, slug)).limit(1);
  return !holder || holder.id === clinicId;
}

/** POST /clinic/{id}/upload-logo and POST /upload/logo: stores the image and sets clinics.logo_url. */
export async function setClinicLogo(ctx: HandlerContext, image: CheckedImage) {
  const { clinicId } = ctx;
  const { upload } = await storeImage(ctx, clinicId, 'clinic_logo', image, async (tx, url) => {
    const [updated] = await tx
      .update(clinics)
      .set({ logoUrl: url, updatedAt: ctx.now() })
      .where(eq(clinics.id, clinicId))
      .returning({ id: clinics.id });
    if (!updated) throw notFound(RESOURCE);
  });
  return { clinicId, logoUrl: upload.url, upload };
}
