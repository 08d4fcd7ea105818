import { and, asc, desc, eq, like, or, type SQL, sql } from 'drizzle-orm';
import { brandTreatments, clinics, treatments } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { forClinic } from '../../../platform/db/scoped';
import { type PageQuery, pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { centsToAmountOrNull } from '../../../platform/values/money';
import { slugify } from '../../../platform/values/strings';
import { type CheckedImage, nextSlug, storeImage } from '../../catalog';
import type { BrandTreatment, CreateTreatmentBody, Treatment, UpdateTreatmentBody } from './schemas';

const RESOURCE = 'Treatment';
const BRAND_RESOURCE = 'Brand treatment';
const MAX_SLUG_ATTEMPTS = 5;

/** A URL slug from a treatment name ("treatment" if nothing is left). */
export const treatmentSlug = (name: string): string => slugify(name, 'treatment');

const iso = (d: Date) => d.toISOString();

/** The columns a Treatment is built from: the row, the clinic's slug, and whether an active selection exists. */
const treatmentColumns = {
  id: treatments.id,
  name: treatments.name,
  slug: treatments.slug,
  description: treatments.description,
  brandColor: treatments.brandColor,
  logoUrl: treatments.logoUrl,
  productsPriceCents: treatments.productsPriceCents,
  isActive: treatments.isActive,
  createdAt: treatments.createdAt,
  updatedAt: treatments.updatedAt,
  clinicSlug: clinics.slug,
  selected: sql<boolean>`coalesce(${brandTreatments.isActive}, false)`,
};
interface TreatmentRow {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  brandColor: string | null;
  logoUrl: string | null;
  productsPriceCents: number | null;
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
  clinicSlug: string;
  selected: boolean;
}

function toTreatment(row: TreatmentRow): Treatment {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    selected: row.selected,
    brandColor: row.brandColor,
    brandLogo: row.logoUrl,
    clinicSlug: row.clinicSlug,
    productsPrice: centsToAmountOrNull(row.productsPriceCents),
    isActive: row.isActive,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** Treatments of the clinic with their clinic slug and selection, in one statement. */
function selectTreatments(db: Queryable, clinicId: string, ...conditions: SQL[]) {
  return db
    .select(treatmentColumns)
    .from(treatments)
    .innerJoin(clinics, eq(clinics.id, treatments.clinicId))
    .leftJoin(brandTreatments, and(eq(brandTreatments.clinicId, treatments.clinicId), eq(brandTreatments.treatmentId, treatments.id)))
    .where(forClinic(db, clinicId).where(treatments, ...conditions));
}

export async function listTreatments({ db, clinicId }: HandlerContext, query: PageQuery) {
  const rows = await db
    .select({ ...treatmentColumns, total: totalCount() })
    .from(treatments)
    .innerJoin(clinics, eq(clinics.id, treatments.clinicId))
    .leftJoin(brandTreatments, and(eq(brandTreatments.clinicId, treatments.clinicId), eq(brandTreatments.treatmentId, treatments.id)))
    .where(forClinic(db, clinicId).where(treatments))
    .orderBy(asc(treatments.createdAt), asc(treatments.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => forClinic(db, clinicId).count(treatments));
  return { data: page.rows.map(toTreatment), pagination: page.pagination };
}

export async function getTreatment({ db, clinicId }: HandlerContext, id: string): Promise<Treatment> {
  return findTreatment(db, clinicId, id);
}

/** One treatment of the clinic, read with `db` (the update's transaction sees its own change). */
async function findTreatment(db: Queryable, clinicId: string, id: string): Promise<Treatment> {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await selectTreatments(db, clinicId, eq(treatments.id, id)).limit(1);
  if (!row) throw notFound(RESOURCE);
  return toTreatment(row);
}

/** Creates a treatment whose slug (from the name) is unique in the clinic: name, name-2, name-3... */
export async function createTreatment(ctx: HandlerContext, body: CreateTreatmentBody): Promise<Treatment> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const base = treatmentSlug(body.name);
  for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
    const taken = await db
      .select({ slug: treatments.slug })
      .from(treatments)
      .where(forClinic(db, clinicId).where(treatments, or(eq(treatments.slug, base), like(treatments.slug, `${base}-%`))));
    const slug = nextSlug(base, new Set(taken.map((r) => r.slug)));
    const [row] = await db
      .insert(treatments)
      .values({
        clinicId,
        name: body.name,
        slug,
        description: body.description,
        brandColor: body.brandColor,
        productsPriceCents: body.productsPrice,
        isActive: body.isActive,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing({ target: [treatments.clinicId, treatments.slug] })
      .returning();
    // A concurrent creation took the slug between the two statements: look again.
    if (row) {
      const [clinic] = await db.select({ slug: clinics.slug }).from(clinics).where(eq(clinics.id, clinicId)).limit(1);
      return toTreatment({ ...row, clinicSlug: clinic!.slug, selected: false });
    }
  }
  throw conflict('CONFLICT', 'Could not find a free slug for this treatment name; try again');
}

export async function updateTreatment(ctx: HandlerContext, id: string, body: UpdateTreatmentBody): Promise<Treatment> {
  const { db, clinicId } = ctx;
  const changes: Partial<typeof treatments.$inferInsert> = { updatedAt: ctx.now() };
  if (body.name !== undefined) changes.name = body.name;
  if (body.description !== undefined) changes.description = body.description;
  if (body.brandColor !== undefined) changes.brandColor = body.brandColor;
  if (body.productsPrice !== undefined) changes.productsPriceCents = body.productsPrice;
  if (body.isActive !== undefined) changes.isActive = body.isActive;
  return db.transaction(async (tx) => {
    await forClinic(tx, clinicId).updateById(treatments, id, changes, RESOURCE);
    return findTreatment(tx, clinicId, id);
  });
}

const brandTreatmentColumns = {
  id: brandTreatments.id,
  treatmentId: brandTreatments.treatmentId,
  selected: brandTreatments.isActive,
  createdAt: brandTreatments.createdAt,
  name: treatments.name,
  treatmentLogo: treatments.logoUrl,
  active: treatments.isActive,
  brandColor: treatments.brandColor,
  brandLogo: clinics.logoUrl,
  clinicSlug: clinics.slug,
};
interface BrandTreatmentRow {
  id: string;
  treatmentId: string;
  selected: boolean;
  createdAt: Date;
  name: string;
  treatmentLogo: string | null;
  active: boolean;
  brandColor: string | null;
  brandLogo: string | null;
  clinicSlug: string;
}

function toBrandTreatment(row: BrandTreatmentRow): BrandTreatment {
  return {
    id: row.id,
    treatmentId: row.treatmentId,
    name: row.name,
    treatmentLogo: row.treatmentLogo,
    active: row.active,
    selected: row.selected,
    brandLogo: row.brandLogo,
    brandColor: row.brandColor,
    clinicSlug: row.clinicSlug,
    createdAt: iso(row.createdAt),
  };
}

function selectBrandTreatments(db: Queryable, clinicId: string, ...conditions: SQL[]) {
  return db
    .select(brandTreatmentColumns)
    .from(brandTreatments)
    .innerJoin(treatments, and(eq(treatments.id, brandTreatments.treatmentId), eq(treatments.clinicId, brandTreatments.clinicId)))
    .innerJoin(clinics, eq(clinics.id, brandTreatments.clinicId))
    .where(forClinic(db, clinicId).where(brandTreatments, ...conditions));
}

export async function listBrandTreatments({ db, clinicId }: HandlerContext, query: PageQuery) {
  const rows = await db
    .select({ ...brandTreatmentColumns, total: totalCount() })
    .from(brandTreatments)
    .innerJoin(treatments, and(eq(treatments.id, brandTreatments.treatmentId), eq(treatments.clinicId, brandTreatments.clinicId)))
    .innerJoin(clinics, eq(clinics.id, brandTreatments.clinicId))
    .where(forClinic(db, clinicId).where(brandTreatments))
    .orderBy(desc(brandTreatments.createdAt), desc(brandTreatments.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => forClinic(db, clinicId).count(brandTreatments));
  return { data: page.rows.map(toBrandTreatment), pagination: page.pagination };
}

/**
 * Selects one of the clinic's treatments for the brand. An already active selection is 409 CONFLICT;
 * an inactive one (kept from earlier) is made active again.
 */
export async function addBrandTreatment(ctx: HandlerContext, treatmentId: string): Promise<BrandTreatment> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const [owned] = await tx
      .select({ id: treatments.id })
      .from(treatments)
      .where(forClinic(tx, clinicId).where(treatments, eq(treatments.id, treatmentId)))
      .for('update');
    if (!owned) throw notFound(RESOURCE);
    const [row] = await tx
      .insert(brandTreatments)
      .values({ clinicId, treatmentId, isActive: true, createdAt: now })
      .onConflictDoUpdate({
        target: [brandTreatments.clinicId, brandTreatments.treatmentId],
        set: { isActive: true },
        setWhere: sql`${brandTreatments.isActive} = false`,
      })
      .returning({ id: brandTreatments.id });
    if (!row) throw conflict('CONFLICT', 'The treatment is already selected for the brand');
    const [selected] = await selectBrandTreatments(tx, clinicId, eq(brandTreatments.id, row.id)).limit(1);
    return toBrandTreatment(selected!);
  });
}

/** Removes the selection (the row is deleted). 404 when the treatment is not selected or not the clinic's. */
export async function removeBrandTreatment({ db, clinicId }: HandlerContext, treatmentId: string) {
  const removed = await db
    .delete(brandTreatments)
    .where(forClinic(db, clinicId).where(brandTreatments, eq(brandTreatments.treatmentId, treatmentId)))
    .returning({ id: brandTreatments.id });
  if (!removed.length) throw notFound(BRAND_RESOURCE);
  return { treatmentId, removed: true as const };
}

/** POST /treatment/{id}/upload-logo with a logo: stores it and sets treatments.logo_url. */
export async function setTreatmentLogo(ctx: HandlerContext, treatmentId: string, image: CheckedImage) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(treatmentId)) throw notFound(RESOURCE);
  // Checked before storing, so an unknown id never writes to the bucket.
  if ((await forClinic(db, clinicId).count(treatments, eq(treatments.id, treatmentId))) === 0) throw notFound(RESOURCE);
  const { upload } = await storeImage(ctx, clinicId, 'treatment_logo', image, (tx, url) =>
    forClinic(tx, clinicId).updateById(treatments, treatmentId, { logoUrl: url, updatedAt: now }, RESOURCE),
  );
  return { treatmentId, logoUrl: upload.url as string | null, upload: upload as typeof upload | null };
}

/** removeLogo=true: clears the logo. The stored object and its uploads row are kept (docs/uploads.md). */
export async function removeTreatmentLogo(ctx: HandlerContext, treatmentId: string) {
  await forClinic(ctx.db, ctx.clinicId).updateById(treatments, treatmentId, { logoUrl: null, updatedAt: ctx.now() }, RESOURCE);
  return { treatmentId, logoUrl: null, upload: null };
}
