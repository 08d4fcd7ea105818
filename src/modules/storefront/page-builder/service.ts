import { and, desc, eq, isNull, ne, type SQL, sql } from 'drizzle-orm';
import { pages, pageVersions } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable, Transaction } from '../../../platform/db/client';
import { isUniqueViolation } from '../../../platform/db/errors';
import { forClinic } from '../../../platform/db/scoped';
import { isoTimestamp } from '../../../platform/db/sql';
import { type PageQuery, pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { isoOrNull } from '../../../platform/values/dates';
import { type ApiError, badRequest, conflict, invalidFields, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { type CheckedImage, storeImage } from '../../catalog';
import { assertContentSize, contentProblem } from './content';
import { type CreatePageBody, PAGE_TYPES, PAGE_VERSIONS_LISTED, type Page, type PageSummary, type UpdatePageBody } from './schemas';

const RESOURCE = 'Page';
const SLUG_INDEX = 'pages_clinic_id_slug_key';
const HOMEPAGE_INDEX = 'pages_clinic_id_homepage_key';

type PageType = (typeof PAGE_TYPES)[number];

/** The clinic's pages that are not deleted (a deleted page answers 404 everywhere). */
export const live = (db: Queryable, clinicId: string, ...conditions: SQL[]) =>
  forClinic(db, clinicId).where(pages, isNull(pages.deletedAt), ...conditions);

const summaryColumns = {
  id: pages.id,
  slug: pages.slug,
  pageType: pages.pageType,
  isHomepage: pages.isHomepage,
  status: pages.status,
  hasUnpublishedChanges: sql<boolean>`(${pages.draftContent} is distinct from ${pages.publishedContent})`,
  seoTitle: pages.seoTitle,
  seoDescription: pages.seoDescription,
  seoOgImage: pages.seoOgImage,
  seoCanonical: pages.seoCanonical,
  publishedVersion: pages.publishedVersion,
  publishedAt: pages.publishedAt,
  createdAt: pages.createdAt,
  updatedAt: pages.updatedAt,
};
type PageTableRow = typeof pages.$inferSelect;
type SummaryRow = Pick<
  PageTableRow,
  | 'id'
  | 'slug'
  | 'pageType'
  | 'isHomepage'
  | 'status'
  | 'seoTitle'
  | 'seoDescription'
  | 'seoOgImage'
  | 'seoCanonical'
  | 'publishedVersion'
  | 'publishedAt'
  | 'createdAt'
  | 'updatedAt'
> & { hasUnpublishedChanges: boolean };

interface VersionRow {
  version: number;
  publishedAt: string;
  seoTitle: string | null;
}

/**
 * The newest versions of the page in the current row, as JSON (a correlated subquery on the
 * (page_id, version) index). Qualified by hand: Drizzle leaves columns unqualified in a select list.
 */
const versionsOf = (): SQL<VersionRow[]> => sql<VersionRow[]>`(
  select coalesce(json_agg(json_build_object(
    'version', v."version",
    'publishedAt', ${isoTimestamp(sql.raw('v."published_at"'))},
    'seoTitle', v."seo"->>'seoTitle') order by v."version" desc), '[]'::json)
  from (select * from "page_versions" pv where pv."page_id" = "pages"."id" and pv."clinic_id" = "pages"."clinic_id" order by pv."version" desc limit ${PAGE_VERSIONS_LISTED}) v)`;

const pageColumns = {
  ...summaryColumns,
  draftContent: pages.draftContent,
  publishedContent: pages.publishedContent,
  versions: versionsOf(),
};
type PageRow = SummaryRow & {
  draftContent: Record<string, unknown>;
  publishedContent: Record<string, unknown> | null;
  versions: VersionRow[];
};

/** The API's page summary, field by field (never a spread row). */
function toSummary(row: SummaryRow): PageSummary {
  return {
    id: row.id,
    slug: row.slug,
    pageType: (PAGE_TYPES as readonly string[]).includes(row.pageType) ? (row.pageType as PageType) : 'custom',
    isHomepage: row.isHomepage,
    status: row.status,
    hasUnpublishedChanges: Boolean(row.hasUnpublishedChanges),
    seoTitle: row.seoTitle,
    seoDescription: row.seoDescription,
    seoOgImage: row.seoOgImage,
    seoCanonical: row.seoCanonical,
    publishedVersion: row.publishedVersion,
    publishedAt: isoOrNull(row.publishedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toPage(row: PageRow): Page {
  return {
    ...toSummary(row),
    draftContent: row.draftContent,
    publishedContent: row.publishedContent,
    versions: row.versions.map((v) => ({ version: v.version, publishedAt: v.publishedAt, seoTitle: v.seoTitle ?? null })),
  };
}

const slugTaken = (slug: string) => conflict('CONFLICT', `A page with slug "${slug}" already exists`);

/** Unique violations of the two partial indexes, as the 409s they mean. */
function conflictFrom(error: unknown, slug: string | undefined): ApiError | null {
  if (isUniqueViolation(error, SLUG_INDEX)) return slugTaken(slug ?? '');
  // Only reachable if a writer bypasses the homepage lock below; still a conflict, never a 500.
  if (isUniqueViolation(error, HOMEPAGE_INDEX)) return conflict('CONFLICT', 'Another page became the homepage at the same time; retry');
  return null;
}

/**
 * Makes room for a new homepage: under a per-clinic transaction lock (so two concurrent changes of
 * homepage run one after the other), the clinic's current homepage other than `keepId` stops being it.
 */
async function clearHomepage(tx: Transaction, clinicId: string, keepId: string | null, now: Date) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`page_homepage:${clinicId}`}, 0))`);
  await tx
    .update(pages)
    .set({ isHomepage: false, updatedAt: now })
    .where(live(tx, clinicId, eq(pages.isHomepage, true), ...(keepId ? [ne(pages.id, keepId)] : [])));
}

export async function listPages({ db, clinicId }: HandlerContext, query: PageQuery) {
  const rows = await db
    .select({ ...summaryColumns, total: totalCount() })
    .from(pages)
    .where(live(db, clinicId))
    .orderBy(desc(pages.updatedAt), desc(pages.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => forClinic(db, clinicId).count(pages, isNull(pages.deletedAt)));
  return { data: page.rows.map((row) => toSummary(row as SummaryRow)), pagination: page.pagination };
}

export async function getPage({ db, clinicId }: HandlerContext, id: string): Promise<Page> {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await db
    .select(pageColumns)
    .from(pages)
    .where(live(db, clinicId, eq(pages.id, id)))
    .limit(1);
  if (!row) throw notFound(RESOURCE);
  return toPage(row as PageRow);
}

export async function createPage(ctx: HandlerContext, body: CreatePageBody): Promise<Page> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  assertContentSize(body.draftContent);
  try {
    return await db.transaction(async (tx) => {
      if (body.isHomepage) await clearHomepage(tx, clinicId, null, now);
      const row = await forClinic(tx, clinicId).insert(pages, {
        slug: body.slug,
        pageType: body.pageType,
        isHomepage: body.isHomepage,
        status: 'draft',
        draftContent: body.draftContent,
        publishedContent: null,
        seoTitle: body.seoTitle,
        seoDescription: body.seoDescription,
        seoOgImage: body.seoOgImage,
        seoCanonical: body.seoCanonical,
        publishedVersion: 0,
        createdAt: now,
        updatedAt: now,
      });
      return toPage({ ...row, hasUnpublishedChanges: true, versions: [] } as PageRow);
    });
  } catch (error) {
    throw conflictFrom(error, body.slug) ?? error;
  }
}

/** Saves the draft: the fields sent replace the stored ones; publishedContent is never touched here. */
export async function updatePage(ctx: HandlerContext, id: string, body: UpdatePageBody): Promise<Page> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  if (body.draftContent !== undefined) assertContentSize(body.draftContent);
  try {
    return await db.transaction(async (tx) => {
      // An unknown page rolls the homepage change back with the 404 below.
      if (body.isHomepage === true) await clearHomepage(tx, clinicId, id, now);
      const changes: Partial<typeof pages.$inferInsert> = { updatedAt: now };
      if (body.slug !== undefined) changes.slug = body.slug;
      if (body.pageType !== undefined) changes.pageType = body.pageType;
      if (body.isHomepage !== undefined) changes.isHomepage = body.isHomepage;
      if (body.draftContent !== undefined) changes.draftContent = body.draftContent;
      if (body.seoTitle !== undefined) changes.seoTitle = body.seoTitle;
      if (body.seoDescription !== undefined) changes.seoDescription = body.seoDescription;
      if (body.seoOgImage !== undefined) changes.seoOgImage = body.seoOgImage;
      if (body.seoCanonical !== undefined) changes.seoCanonical = body.seoCanonical;
      const [row] = await tx
        .update(pages)
        .set(changes)
        .where(live(tx, clinicId, eq(pages.id, id)))
        .returning(pageColumns);
      if (!row) throw notFound(RESOURCE);
      return toPage(row as PageRow);
    });
  } catch (error) {
    throw conflictFrom(error, body.slug) ?? error;
  }
}

/** Soft delete: the page (and its versions) stay stored, it answers 404 from now on and its slug is free. */
export async function deletePage(ctx: HandlerContext, id: string) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [deleted] = await db
    .update(pages)
    .set({ deletedAt: now, updatedAt: now })
    .where(live(db, clinicId, eq(pages.id, id)))
    .returning({ id: pages.id });
  if (!deleted) throw notFound(RESOURCE);
  return { id: deleted.id, deleted: true as const };
}

/**
 * Promotes the draft: in one transaction, with the page row locked (so concurrent publishes number
 * their versions one after the other), the next version is snapshotted in page_versions (content and
 * SEO fields) and the page gets the draft as publishedContent, status published and the new number.
 * An empty draft ({}) is refused with 400.
 */
export async function publishPage(ctx: HandlerContext, id: string): Promise<Page> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(pages)
      .where(live(tx, clinicId, eq(pages.id, id)))
      .for('update');
    if (!current) throw notFound(RESOURCE);
    if (Object.keys(current.draftContent ?? {}).length === 0) {
      throw badRequest("The page's draft is empty ({}): save draftContent with PUT /api/v1/page-builder/pages/{id} before publishing");
    }
    // Drafts are checked when saved; this catches one saved before a rule existed, so the storefront
    // never gets active content through a publish.
    const problem = contentProblem(current.draftContent);
    if (problem) {
      throw invalidFields(
        [
          {
            field: ['draftContent', ...problem.path].join('.'),
            message: `${problem.message}; save a corrected draft with PUT before publishing`,
          },
        ],
        'draft',
      );
    }
    // publishedVersion is the newest version's number; the max over the rows guards against a row
    // written behind its back (a re-seed, a restore), so the next number is always free.
    const [latest] = await tx
      .select({ version: sql<number>`coalesce(max(${pageVersions.version}), 0)::int` })
      .from(pageVersions)
      .where(and(eq(pageVersions.clinicId, clinicId), eq(pageVersions.pageId, id)));
    const version = Math.max(current.publishedVersion, latest?.version ?? 0) + 1;
    const [inserted] = await tx
      .insert(pageVersions)
      .values({
        clinicId,
        pageId: id,
        version,
        content: current.draftContent,
        seo: {
          seoTitle: current.seoTitle,
          seoDescription: current.seoDescription,
          seoOgImage: current.seoOgImage,
          seoCanonical: current.seoCanonical,
        },
        publishedAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: pageVersions.id });
    if (!inserted) throw conflict('CONFLICT', `Version ${version} of the page already exists; publish again`);
    const [row] = await tx
      .update(pages)
      .set({ status: 'published', publishedContent: current.draftContent, publishedVersion: version, publishedAt: now, updatedAt: now })
      .where(and(eq(pages.clinicId, clinicId), eq(pages.id, id)))
      .returning(pageColumns);
    return toPage(row as PageRow);
  });
}

/** POST /page-builder/upload-image: stores the image (uploads row with purpose page_image); nothing else changes. */
export async function uploadPageImage(ctx: HandlerContext, image: CheckedImage) {
  const { upload } = await storeImage(ctx, ctx.clinicId, 'page_image', image, async () => undefined);
  return { imageUrl: upload.url, upload };
}
