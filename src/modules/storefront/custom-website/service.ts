import { and, eq, isNull } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { customWebsites, uploads } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Database, Queryable } from '../../../platform/db/client';
import type { ObjectStorage } from '../../../platform/providers/storage/types';
import { notFound } from '../../../platform/values/errors';
import { type CheckedImage, type StoredImage, storeImage } from '../../catalog';
import { type CustomWebsite, type SaveWebsiteBody, SOCIAL_NETWORK_NAMES, type SocialNetwork, WEBSITE_DEFAULTS } from './schemas';

type WebsiteChanges = Partial<Omit<typeof customWebsites.$inferInsert, 'clinicId' | 'createdAt'>>;

const logo = alias(uploads, 'logo_upload');
const hero = alias(uploads, 'hero_upload');

/** Only the allowed networks with a string value, in a fixed order (a stored row is never trusted blindly). */
function links(stored: unknown): Partial<Record<SocialNetwork, string>> {
  const source = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
  const result: Partial<Record<SocialNetwork, string>> = {};
  for (const network of SOCIAL_NETWORK_NAMES) {
    if (typeof source[network] === 'string') result[network] = source[network] as string;
  }
  return result;
}

const DEFAULT_WEBSITE: CustomWebsite = {
  ...WEBSITE_DEFAULTS,
  socialMediaLinks: {},
  logoUrl: null,
  heroImageUrl: null,
  isSaved: false,
  updatedAt: null,
};

/** The clinic's website settings with the logo and hero urls from their uploads, in one query; the defaults when never saved. */
async function readWebsite(db: Queryable, storage: ObjectStorage, clinicId: string): Promise<CustomWebsite> {
  const [row] = await db
    .select({ website: customWebsites, logoKey: logo.objectKey, heroKey: hero.objectKey })
    .from(customWebsites)
    .leftJoin(logo, and(eq(logo.id, customWebsites.logoUploadId), eq(logo.clinicId, customWebsites.clinicId), isNull(logo.deletedAt)))
    .leftJoin(hero, and(eq(hero.id, customWebsites.heroUploadId), eq(hero.clinicId, customWebsites.clinicId), isNull(hero.deletedAt)))
    .where(eq(customWebsites.clinicId, clinicId))
    .limit(1);
  if (!row) return DEFAULT_WEBSITE;
  const w = row.website;
  return {
    isActive: w.isActive,
    heroTitle: w.heroTitle,
    heroSubtitle: w.heroSubtitle,
    heroPrimaryButtonText: w.heroPrimaryButtonText,
    primaryColor: w.primaryColor ?? WEBSITE_DEFAULTS.primaryColor,
    footerColor: w.footerColor ?? WEBSITE_DEFAULTS.footerColor,
    footerText: w.footerText,
    socialMediaLinks: links(w.socialMediaLinks),
    logoUrl: row.logoKey ? storage.urlFor(row.logoKey) : null,
    heroImageUrl: row.heroKey ? storage.urlFor(row.heroKey) : null,
    isSaved: true,
    updatedAt: w.updatedAt.toISOString(),
  };
}

/**
 * Creates the clinic's row on its first change (every column not changed takes its default) and
 * afterwards changes only the columns named in `changes` (one statement either way, race-free).
 */
async function upsertWebsite(db: Queryable, clinicId: string, changes: WebsiteChanges, now: Date) {
  await db
    .insert(customWebsites)
    .values({ clinicId, ...WEBSITE_DEFAULTS, ...changes, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: customWebsites.clinicId, set: { ...changes, updatedAt: now } });
}

export const getWebsite = (ctx: HandlerContext) => readWebsite(ctx.db, ctx.storage, ctx.clinicId);

/** POST /custom-website: the fields sent change (socialMediaLinks is replaced as a whole). */
export async function saveWebsite(ctx: HandlerContext, body: SaveWebsiteBody): Promise<CustomWebsite> {
  const changes: WebsiteChanges = {};
  if (body.isActive !== undefined) changes.isActive = body.isActive;
  if (body.heroTitle !== undefined) changes.heroTitle = body.heroTitle;
  if (body.heroSubtitle !== undefined) changes.heroSubtitle = body.heroSubtitle;
  if (body.heroPrimaryButtonText !== undefined) changes.heroPrimaryButtonText = body.heroPrimaryButtonText;
  if (body.primaryColor !== undefined) changes.primaryColor = body.primaryColor;
  if (body.footerColor !== undefined) changes.footerColor = body.footerColor;
  if (body.footerText !== undefined) changes.footerText = body.footerText;
  if (body.socialMediaLinks !== undefined) changes.socialMediaLinks = links(body.socialMediaLinks);
  await upsertWebsite(ctx.db, ctx.clinicId, changes, ctx.now());
  return getWebsite(ctx);
}

/** Changes isActive and nothing else. */
export async function setWebsiteActive(ctx: HandlerContext, isActive: boolean): Promise<CustomWebsite> {
  await upsertWebsite(ctx.db, ctx.clinicId, { isActive }, ctx.now());
  return getWebsite(ctx);
}

/** footerColor and footerText back to their defaults; nothing else changes. */
export async function resetFooter(ctx: HandlerContext): Promise<CustomWebsite> {
  const defaults = { footerColor: WEBSITE_DEFAULTS.footerColor, footerText: WEBSITE_DEFAULTS.footerText };
  await upsertWebsite(ctx.db, ctx.clinicId, defaults, ctx.now());
  return getWebsite(ctx);
}

/** socialMediaLinks emptied; nothing else changes. */
export async function resetSocialMedia(ctx: HandlerContext): Promise<CustomWebsite> {
  await upsertWebsite(ctx.db, ctx.clinicId, { socialMediaLinks: {} }, ctx.now());
  return getWebsite(ctx);
}

/**
 * Stores a logo or hero image and points the website at it, atomically: storeImage runs inside this
 * transaction (its own becomes a savepoint), so the uploads row and the website's upload id are
 * committed together. If the outer transaction fails after the bytes were stored, they are deleted
 * again. The previous image's object and uploads row are kept (docs/uploads.md).
 */
async function setWebsiteImage(ctx: HandlerContext, purpose: 'website_logo' | 'website_hero', image: CheckedImage): Promise<StoredImage> {
  const { db, storage, clinicId } = ctx;
  const now = ctx.now();
  let storedKey: string | null = null;
  try {
    return await db.transaction(async (tx) => {
      // Named fields, not a spread: the context's providers live on its prototype.
      const inTx = { db: tx as unknown as Database, storage, now: () => now };
      const { upload } = await storeImage(inTx, clinicId, purpose, image, async () => undefined);
      storedKey = upload.key;
      const column = purpose === 'website_logo' ? { logoUploadId: upload.id } : { heroUploadId: upload.id };
      await upsertWebsite(tx, clinicId, column, now);
      return upload;
    });
  } catch (error) {
    if (storedKey) await storage.delete(storedKey).catch(() => {});
    throw error;
  }
}

export async function uploadLogo(ctx: HandlerContext, image: CheckedImage) {
  const upload = await setWebsiteImage(ctx, 'website_logo', image);
  return { logoUrl: upload.url, upload };
}

export async function uploadHero(ctx: HandlerContext, image: CheckedImage) {
  const upload = await setWebsiteImage(ctx, 'website_hero', image);
  return { heroImageUrl: upload.url, upload };
}

export interface LogoFile {
  etag: string;
  contentType: string;
  lastModified: Date;
  /** Reads the bytes; null when the object is missing from storage. */
  read(): Promise<Uint8Array | null>;
}

/**
 * The clinic's current logo (one query); 404 when the website has no logo. The ETag is the upload's
 * id: an upload's object is never rewritten (every upload gets a new key), so the id names the bytes,
 * and a matching If-None-Match is answered without reading storage.
 */
export async function findLogo(ctx: HandlerContext): Promise<LogoFile> {
  const { db, storage, clinicId } = ctx;
  const [row] = await db
    .select({ id: logo.id, objectKey: logo.objectKey, contentType: logo.contentType, createdAt: logo.createdAt })
    .from(customWebsites)
    .innerJoin(logo, and(eq(logo.id, customWebsites.logoUploadId), eq(logo.clinicId, customWebsites.clinicId), isNull(logo.deletedAt)))
    .where(eq(customWebsites.clinicId, clinicId))
    .limit(1);
  if (!row) throw notFound('Logo');
  return {
    etag: `"${row.id}"`,
    contentType: row.contentType,
    lastModified: row.createdAt,
    async read() {
      const object = await storage.get(row.objectKey);
      return object ? object.bytes : null;
    },
  };
}
