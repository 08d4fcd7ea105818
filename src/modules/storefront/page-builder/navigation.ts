// The header and footer menus of the clinic's website (GET and PUT /api/v1/page-builder/navigation).
import { inArray, sql } from 'drizzle-orm';
import { navigationMenus, pages } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { isoTimestamp, rowsOf } from '../../../platform/db/sql';
import { invalidFields } from '../../../platform/values/errors';
import type { MenuItem, MenuItemInput, Navigation, NavigationBody } from './schemas';
import { live } from './service';

/** A menu item as stored in navigation_menus (jsonb): label and url or pageId, children on top-level items. */
interface StoredItem {
  label: string;
  url?: string;
  pageId?: string;
  children?: StoredItem[];
}

const EMPTY_NAVIGATION: Navigation = { headerMenu: [], footerMenu: [], updatedAt: null };

function toStored(item: MenuItemInput): StoredItem {
  const stored: StoredItem = { label: item.label };
  if (item.url !== undefined) stored.url = item.url;
  if (item.pageId !== undefined) stored.pageId = item.pageId.toLowerCase();
  if (item.children) stored.children = item.children.map((child) => toStored(child));
  return stored;
}

/** A stored item for the API, with the linked page's current slug (null when that page is gone). */
function toItem(item: StoredItem, slugs: Record<string, string>, withChildren: boolean): MenuItem {
  const pageId = typeof item.pageId === 'string' ? item.pageId : null;
  const base = {
    label: String(item.label ?? ''),
    url: typeof item.url === 'string' ? item.url : null,
    pageId,
    pageSlug: pageId ? (slugs[pageId] ?? null) : null,
  };
  if (!withChildren) return base as MenuItem;
  const children = Array.isArray(item.children) ? item.children.map((child) => toItem(child, slugs, false)) : [];
  return { ...base, children };
}

const toMenu = (items: unknown, slugs: Record<string, string>) =>
  (Array.isArray(items) ? (items as StoredItem[]) : []).map((item) => toItem(item, slugs, true));

/** Header and footer menus, with the current slug of every linked live page, in one query. */
export async function getNavigation({ db, clinicId }: HandlerContext): Promise<Navigation> {
  const [row] = await rowsOf<{ headerMenu: unknown; footerMenu: unknown; updatedAt: string; slugs: Record<string, string> | null }>(
    db,
    sql`
    select n."header_menu" as "headerMenu", n."footer_menu" as "footerMenu", ${isoTimestamp(sql.raw('n."updated_at"'))} as "updatedAt",
      (select jsonb_object_agg(p."id"::text, p."slug") from "pages" p
        where p."clinic_id" = n."clinic_id" and p."deleted_at" is null
          and p."id" in (
            select (jsonb_path_query(n."header_menu" || n."footer_menu", 'lax $[*].pageId') #>> '{}')::uuid
            union select (jsonb_path_query(n."header_menu" || n."footer_menu", 'lax $[*].children[*].pageId') #>> '{}')::uuid)) as "slugs"
    from "navigation_menus" n where n."clinic_id" = ${clinicId}`,
  );
  if (!row) return EMPTY_NAVIGATION;
  const slugs = row.slugs ?? {};
  return { headerMenu: toMenu(row.headerMenu, slugs), footerMenu: toMenu(row.footerMenu, slugs), updatedAt: row.updatedAt };
}

/**
 * Replaces both menus. Every pageId must be one of the clinic's live pages (one query for all of
 * them); the first that is not answers 400 naming the item (body.headerMenu.2.children.0.pageId).
 */
export async function saveNavigation(ctx: HandlerContext, body: NavigationBody): Promise<Navigation> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const references: { field: string; pageId: string }[] = [];
  for (const menu of ['headerMenu', 'footerMenu'] as const) {
    body[menu].forEach((item, i) => {
      if (item.pageId) references.push({ field: `body.${menu}.${i}.pageId`, pageId: item.pageId.toLowerCase() });
      item.children?.forEach((child, j) => {
        if (child.pageId) references.push({ field: `body.${menu}.${i}.children.${j}.pageId`, pageId: child.pageId.toLowerCase() });
      });
    });
  }
  const slugs: Record<string, string> = {};
  if (references.length) {
    const ids = [...new Set(references.map((r) => r.pageId))];
    const found = await db
      .select({ id: pages.id, slug: pages.slug })
      .from(pages)
      .where(live(db, clinicId, inArray(pages.id, ids)));
    for (const row of found) slugs[row.id] = row.slug;
    const missing = references.filter((r) => !(r.pageId in slugs));
    if (missing.length) {
      const detail = "is not one of the clinic's pages (unknown, deleted or another clinic's)";
      throw invalidFields(missing.map((r) => ({ field: r.field, message: detail })));
    }
  }
  const headerMenu = body.headerMenu.map(toStored);
  const footerMenu = body.footerMenu.map(toStored);
  const [saved] = await db
    .insert(navigationMenus)
    .values({ clinicId, headerMenu, footerMenu, updatedAt: now })
    .onConflictDoUpdate({ target: navigationMenus.clinicId, set: { headerMenu, footerMenu, updatedAt: now } })
    .returning({ updatedAt: navigationMenus.updatedAt });
  return { headerMenu: toMenu(headerMenu, slugs), footerMenu: toMenu(footerMenu, slugs), updatedAt: saved!.updatedAt.toISOString() };
}
