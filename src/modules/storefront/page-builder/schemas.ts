import { z } from '@hono/zod-openapi';
import { PAGE_STATUSES } from '../../../../drizzle/schema';
import { plainLine, safeString } from '../../../platform/values/strings';
import { imageFileField, storedImage } from '../../catalog';
import { contentProblem, MAX_CONTENT_BYTES, MAX_CONTENT_DEPTH } from './content';
import { httpsUrl, linkUrl } from './links';

// ---------------------------------------------------------------- pages

/** Page kinds (the spec leaves the set open); a label for the storefront, no behaviour attached. */
export const PAGE_TYPES = ['custom', 'landing', 'about', 'contact', 'faq', 'legal', 'blog'] as const;

export const MAX_SLUG_LENGTH = 100;
export const MAX_SLUG_SEGMENTS = 5;
/** Lowercase words of letters and digits joined by single hyphens; up to 5 such segments joined by '/'. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\/[a-z0-9]+(?:-[a-z0-9]+)*)*$/;
/** How many of a page's versions GET /pages/{id} lists (newest first); publishedVersion is the total. */
export const PAGE_VERSIONS_LISTED = 50;

const slug = safeString()
  .trim()
  .min(1)
  .max(MAX_SLUG_LENGTH)
  .regex(
    SLUG_PATTERN,
    "must be lowercase letters, digits and single hyphens, optionally in segments joined by '/' (no leading, trailing or double '/')",
  )
  .refine((value) => value.split('/').length <= MAX_SLUG_SEGMENTS, {
    message: `must have at most ${MAX_SLUG_SEGMENTS} '/'-separated segments`,
  })
  .openapi({
    description: `1-${MAX_SLUG_LENGTH} characters: lowercase letters, digits and hyphens, optionally nested with '/' (at most ${MAX_SLUG_SEGMENTS} segments), e.g. about or programs/weight-loss. Unique among the clinic's live pages.`,
    example: 'about',
  });

const draftContent = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    const problem = contentProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
  })
  .openapi({
    description:
      `The page's document as the page builder edits it: any JSON object, at most ${MAX_CONTENT_BYTES} bytes (256 KiB) as JSON (413 above) and ` +
      `${MAX_CONTENT_DEPTH} levels deep; strings without control characters other than tab, LF and CR; every string and key is checked as rich HTML: ` +
      'only the documented elements and attributes (no script, style, link, iframe, form or similar elements, no on...= event handlers), ' +
      'https:/mailto:/tel: links and site paths, no javascript:/vbscript: URLs, data: URLs other than raster images or template expressions ({{...}}, {%...%} and the like): ' +
      'refused with 400 naming the path inside the document, never rewritten. docs/page-builder.md and docs/api-conventions.md ("Markup in stored fields").',
    example: { sections: [{ type: 'hero', title: 'Feel like yourself again' }] },
  });

const seoFields = {
  seoTitle: plainLine()
    .trim()
    .max(200)
    .nullable()
    .openapi({ description: 'Up to 200 characters of plain text (no HTML markup); null clears it.', example: 'About Demo Clinic' }),
  seoDescription: plainLine()
    .trim()
    .max(500)
    .nullable()
    .openapi({ description: 'Up to 500 characters of plain text (no HTML markup), one line; null clears it.' }),
  seoOgImage: linkUrl().nullable().openapi({
    description: "Open Graph image: an https URL or a path on the site ('/...'), e.g. an upload-image url; null clears it.",
    example: 'https://cdn.example.com/og/about.png',
  }),
  seoCanonical: httpsUrl()
    .nullable()
    .openapi({ description: 'Canonical URL: an absolute https URL; null clears it.', example: 'https://www.example.com/about' }),
};

const pageFields = {
  slug,
  pageType: z.enum(PAGE_TYPES).openapi({ description: 'custom (default), landing, about, contact, faq, legal or blog.' }),
  isHomepage: z.boolean().openapi({
    description:
      "true makes this the clinic's homepage (the previous one stops being it, in the same transaction); false: not the homepage.",
  }),
  draftContent,
  ...seoFields,
};

export const createPageBody = z
  .object({
    ...pageFields,
    pageType: pageFields.pageType.default('custom'),
    isHomepage: pageFields.isHomepage.default(false),
    draftContent: pageFields.draftContent.default({}),
    seoTitle: seoFields.seoTitle.default(null),
    seoDescription: seoFields.seoDescription.default(null),
    seoOgImage: seoFields.seoOgImage.default(null),
    seoCanonical: seoFields.seoCanonical.default(null),
  })
  .strict()
  .openapi('CreatePageRequest');
export type CreatePageBody = z.infer<typeof createPageBody>;

export const updatePageBody = z
  .object(pageFields)
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must contain at least one field' })
  .openapi('UpdatePageRequest', {
    description:
      'Saves the draft: only the fields sent change (draftContent is replaced as a whole). The published content is never touched; publish promotes the draft.',
  });
export type UpdatePageBody = z.infer<typeof updatePageBody>;

const pageCore = {
  id: z.string().uuid(),
  slug: z.string(),
  pageType: z.enum(PAGE_TYPES),
  isHomepage: z.boolean(),
  status: z
    .enum(PAGE_STATUSES)
    .openapi({ description: 'draft until first published; published afterwards (later draft edits keep it published).' }),
  hasUnpublishedChanges: z
    .boolean()
    .openapi({ description: 'Whether draftContent differs from publishedContent (always true for a page never published).' }),
  seoTitle: z.string().nullable(),
  seoDescription: z.string().nullable(),
  seoOgImage: z.string().nullable(),
  seoCanonical: z.string().nullable(),
  publishedVersion: z
    .number()
    .int()
    .openapi({ description: 'The number of the newest version, which is also how many versions exist; 0 before the first publish.' }),
  publishedAt: z.string().datetime().nullable().openapi({ description: 'When the page was last published; null before.' }),
  createdAt: z.string().datetime(),
  updatedAt: z.string().datetime(),
};

export const pageSummary = z.object(pageCore).openapi('PageSummary', {
  description: 'A page in the list: everything but its content documents and versions (GET /page-builder/pages/{id} has them).',
});
export type PageSummary = z.infer<typeof pageSummary>;

export const pageVersionSummary = z
  .object({
    version: z.number().int().openapi({ example: 2 }),
    publishedAt: z.string().datetime(),
    seoTitle: z.string().nullable().openapi({ description: 'The SEO title the page had when this version was published.' }),
  })
  .openapi('PageVersionSummary');

export const page = z
  .object({
    ...pageCore,
    draftContent: z.record(z.string(), z.unknown()).openapi({ description: 'The draft being edited.' }),
    publishedContent: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: 'What the storefront shows: the draft as of the last publish; null before the first.' }),
    versions: z
      .array(pageVersionSummary)
      .openapi({ description: `The ${PAGE_VERSIONS_LISTED} newest published versions, newest first (each publish adds one).` }),
  })
  .openapi('Page');
export type Page = z.infer<typeof page>;

export const deletedPage = z.object({ id: z.string().uuid(), deleted: z.literal(true) }).openapi('DeletedPage');

// ---------------------------------------------------------------- upload-image

export const pageImageForm = z
  .object({ image: imageFileField('image', 'The image') })
  .strict()
  .openapi('PageImageUploadForm');

export const pageImageResult = z
  .object({
    imageUrl: z.string().openapi({ description: 'Where the image is served; use it in draftContent or seoOgImage.' }),
    upload: storedImage,
  })
  .openapi('PageImageResult');

// ---------------------------------------------------------------- navigation

export const MAX_MENU_ITEMS = 20;
export const MAX_MENU_CHILDREN = 20;
const label = plainLine()
  .trim()
  .min(1)
  .max(100)
  .openapi({ description: 'The text shown, 1-100 characters of plain text (no HTML markup).', example: 'About us' });
const pageId = z
  .string()
  .uuid()
  .openapi({ description: "One of the clinic's live pages (400 otherwise); the storefront links to its current slug." });

const linkTarget = {
  url: linkUrl().openapi({ description: "An absolute https URL or a path on the site starting with '/'.", example: '/programs' }),
  pageId,
};

type LinkFields = { url?: string; pageId?: string; children?: unknown[] };
/** Exactly one of url and pageId, except that a top-level item with children may have neither (a group heading). */
const oneTarget = (item: LinkFields, ctx: z.RefinementCtx) => {
  if (item.url !== undefined && item.pageId !== undefined) {
    ctx.addIssue({ code: 'custom', message: 'give either url or pageId, not both', path: ['pageId'] });
  } else if (item.url === undefined && item.pageId === undefined && !(item.children && item.children.length > 0)) {
    ctx.addIssue({ code: 'custom', message: 'needs url or pageId (only an item with children may have neither)', path: ['url'] });
  }
};

export const menuChildInput = z
  .object({ label, url: linkTarget.url.optional(), pageId: pageId.optional() })
  .strict()
  .superRefine(oneTarget)
  .openapi('NavigationChildItemInput', { description: 'A link inside a top-level item (one level of nesting only: no children here).' });

export const menuItemInput = z
  .object({
    label,
    url: linkTarget.url.optional(),
    pageId: pageId.optional(),
    children: z
      .array(menuChildInput)
      .max(MAX_MENU_CHILDREN)
      .optional()
      .openapi({ description: `Up to ${MAX_MENU_CHILDREN} links shown under this item (a dropdown).` }),
  })
  .strict()
  .superRefine(oneTarget)
  .openapi('NavigationItemInput', {
    description: 'A link: label and exactly one of url or pageId. An item with children may have neither (a heading).',
  });
export type MenuItemInput = z.infer<typeof menuItemInput>;

const menuInput = (which: string) =>
  z
    .array(menuItemInput)
    .max(MAX_MENU_ITEMS)
    .openapi({ description: `The ${which} menu, in order: up to ${MAX_MENU_ITEMS} items. [] empties it.` });

export const navigationBody = z
  .object({ headerMenu: menuInput('header'), footerMenu: menuInput('footer') })
  .strict()
  .openapi('NavigationRequest', { description: 'Replaces both menus.' });
export type NavigationBody = z.infer<typeof navigationBody>;

const childItem = {
  label: z.string(),
  url: z.string().nullable().openapi({ description: 'The link as saved; null for a page link.' }),
  pageId: z.string().uuid().nullable().openapi({ description: 'The linked page; null for a url link.' }),
  pageSlug: z.string().nullable().openapi({
    description: "The linked page's current slug; null for a url link, or when the page has been deleted since (the item is kept).",
  }),
};

export const menuChild = z.object(childItem).openapi('NavigationChildItem');
export const menuItem = z.object({ ...childItem, children: z.array(menuChild) }).openapi('NavigationItem');
export type MenuItem = z.infer<typeof menuItem>;

export const navigation = z
  .object({
    headerMenu: z.array(menuItem),
    footerMenu: z.array(menuItem),
    updatedAt: z
      .string()
      .datetime()
      .nullable()
      .openapi({ description: 'When the menus were last saved; null when never (both menus empty).' }),
  })
  .openapi('NavigationMenus');
export type Navigation = z.infer<typeof navigation>;
