// Per live demo clinic: page-builder pages in every state (a published homepage with two versions, a
// published page edited since, a published FAQ, a draft never published, a deleted page), their
// version snapshots, header and footer menus linking them, and a custom website with a logo and a
// hero image (uploads rows; the bytes are in STOREFRONT_SEED_OBJECTS, see docs/custom-website.md).
import { and, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import { customWebsites, navigationMenus, pages, pageVersions, uploads } from '../../drizzle/schema';
import type { Database } from '../../src/platform/db/client';
import { demoId, LIVE_DEMO_CLINICS, STOREFRONT_BLOCKS as S } from './ids';
import { refresh } from './upsert';

const DAY = 86_400_000;

export const seedPageId = (clinicIndex: number, n: number) => demoId(S.pages, clinicIndex * 100 + n);
const seedVersionId = (clinicIndex: number, page: number, version: number) =>
  demoId(S.pageVersions, clinicIndex * 1000 + page * 10 + version);
/** Uploads 600-699 of the storefront block are the custom website's (k: 1 logo, 2 hero image). */
export const seedWebsiteUploadId = (clinicIndex: number, k: 1 | 2) => demoId(S.uploads, 600 + clinicIndex * 10 + k);

const fromBase64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

/** Real PNGs: 32×32 logos (a plus sign on the brand color) and 64×32 hero gradients. */
const IMAGES = {
  logo: [
    'iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAAO0lEQVR42mP4T2PAQCcL+MvyqI5GLaCyBZixN2rBqAUDaQElJc+oBaMWjGa0UQuGtgWjzRaaWzCEW9cANV1VwrpX6cEAAAAASUVORK5CYII=',
    'iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAAP0lEQVR42mP4T2PAQCcL5Ky6qI5GLaCyBb/OiKKhUQtGLRhICzDNIh6NWjBqwWhGG7VgaFsw2myhuQVDuHUNAOzYSBckep0dAAAAAElFTkSuQmCC',
  ],
  hero: [
    'iVBORw0KGgoAAAANSUhEUgAAAEAAAAAgCAIAAAAt/+nTAAABEElEQVR42mPgL8sTrMgXrioUrSkWryuVbCiXaaqUa6lWaKtR6qhT6WpQ72nS7GvRntCmO6lDf0qX0bRukxm9ZrP6LeZMtJo32XbBVPtF0x2XzHReNst1xRz3VfO81izwWbfIb8OSgE3LgrasCN2+Mnzn6sjda6P3ro/dvzHh4Oakw1tTjm5PO74j4+Su7NN7cs/uyz9/oPDioeLLR0qvHqu4frzq5sma26fr7p5tuH+++eHF1seX259e7Xx+rfvljb7Xtya8vTPp/b0pHx9M+/xo5rcnDKMeGPXAqAdGPTDqgVEPjHpg1AOjHhj1wKgHRj0w6oFRD4x6YNQDox4Y9cCoB0Y9MOqBUQ+MeoBUDwAA5o6NRNuLKVQAAAAASUVORK5CYII=',
    'iVBORw0KGgoAAAANSUhEUgAAAEAAAAAgCAIAAAAt/+nTAAABDklEQVR42mOQs+qSt+lWtOtVduhXdZqo7jpZ032Ktuc0He8Zer6zDALmGAXNMwmZbxa20CJisWX0UuvY5bbxK+0TVzkmr3FOW+eascEta5NHzmavvK0+hdv9incGlO4OKt8bXLkvtOZAeN2hyIYj0U3HYltPxLefTOg8ndR9NqX3fNqEixmTLmdNuZIz7VrujBv5s28Vzr1TPP9u6cL75YsfVi57XLXiac2q53VrXjSse9W08U3L5ndtWz+0b//UufNz956vvfu+9x/4OfHQ78lH/zKMemDUA6MeGPXAqAdGPTDqgVEPjHpg1AOjHhj1wKgHRj0w6oFRD4x6YNQDox4Y9cCoB0Y9MOoBUj0AAOaw0ZXVaKsJAAAAAElFTkSuQmCC',
  ],
};

const websiteObjectKey = (clinicIndex: number, k: 1 | 2) =>
  `clinics/${LIVE_DEMO_CLINICS[clinicIndex]}/${k === 1 ? 'website_logo' : 'website_hero'}/${seedWebsiteUploadId(clinicIndex, k)}.png`;

/**
 * The bytes behind the seeded uploads rows. The seed writes database rows only; whatever runs the
 * storage (the dev script for wrangler's local R2 bucket, a test for MemoryStorage) puts these under
 * their keys so GET /api/v1/custom-website/logo-proxy can stream the seeded logo. Until then the
 * proxy answers 404 for the seeded logo (docs/custom-website.md).
 */
export const STOREFRONT_SEED_OBJECTS: { key: string; contentType: 'image/png'; bytes: Uint8Array }[] = LIVE_DEMO_CLINICS.flatMap((_, c) => [
  { key: websiteObjectKey(c, 1), contentType: 'image/png' as const, bytes: fromBase64(IMAGES.logo[c]!) },
  { key: websiteObjectKey(c, 2), contentType: 'image/png' as const, bytes: fromBase64(IMAGES.hero[c]!) },
]);

interface Brand {
  name: string;
  domain: string;
  primaryColor: string;
  footerColor: string;
  instagram: string;
  facebook: string;
  active: boolean;
}

const BRANDS: Brand[] = [
  {
    name: 'Demo Clinic',
    domain: 'demo-clinic.example',
    primaryColor: '#0F766E',
    footerColor: '#0B3B37',
    instagram: 'democlinic',
    facebook: 'democlinic',
    active: true,
  },
  {
    name: 'Harbor Clinic',
    domain: 'harbor-clinic.example',
    primaryColor: '#1E3A8A',
    footerColor: '#0F172A',
    instagram: 'harborclinic',
    facebook: 'harborclinichealth',
    active: false,
  },
];

const hero = (title: string, subtitle: string, cta: string) => ({ type: 'hero', title, subtitle, cta: { label: cta, href: '/programs' } });
const text = (heading: string, body: string) => ({ type: 'text', heading, body });
const faq = (items: [string, string][]) => ({ type: 'faq', items: items.map(([question, answer]) => ({ question, answer })) });

interface SeedPage {
  n: number;
  slug: string;
  pageType: string;
  isHomepage: boolean;
  seoTitle: (b: Brand) => string;
  seoDescription: string | null;
  /** The content of each published version, oldest first, with days ago; [] when never published. */
  versions: { daysAgo: number; content: (b: Brand) => Record<string, unknown> }[];
  /** The draft when it differs from the last version (edited since), with days ago. */
  editedDraft?: { daysAgo: number; content: (b: Brand) => Record<string, unknown> };
  createdDaysAgo: number;
  deletedDaysAgo?: number;
}

const PAGES: SeedPage[] = [
  {
    n: 1,
    slug: 'home',
    pageType: 'landing',
    isHomepage: true,
    createdDaysAgo: 90,
    seoTitle: (b) => `${b.name} — doctor-led care, delivered`,
    seoDescription: 'Online visits with licensed clinicians and medication delivered to your door.',
    versions: [
      {
        daysAgo: 60,
        content: (b) => ({ sections: [hero(`Welcome to ${b.name}`, 'Online care from licensed clinicians.', 'Get started')] }),
      },
      {
        daysAgo: 20,
        content: (b) => ({
          sections: [
            hero('Feel like yourself again', `${b.name} pairs you with a licensed clinician in 24 hours.`, 'Start your visit'),
            text('How it works', '1. Answer a short health questionnaire.\n2. A clinician reviews it.\n3. Your treatment ships free.'),
          ],
        }),
      },
    ],
  },
  {
    n: 2,
    slug: 'about',
    pageType: 'about',
    isHomepage: false,
    createdDaysAgo: 80,
    seoTitle: (b) => `About ${b.name}`,
    seoDescription: null,
    versions: [
      { daysAgo: 30, content: (b) => ({ sections: [text(`About ${b.name}`, 'We started with one idea: care should come to you.')] }) },
    ],
    editedDraft: {
      daysAgo: 5,
      content: (b) => ({
        sections: [
          text(`About ${b.name}`, 'We started with one idea: care should come to you.'),
          text('Our clinicians', 'Board-certified physicians and nurse practitioners in all 50 states.'),
        ],
      }),
    },
  },
  {
    n: 3,
    slug: 'programs/weight-loss',
    pageType: 'landing',
    isHomepage: false,
    createdDaysAgo: 3,
    seoTitle: () => 'Medical weight loss',
    seoDescription: 'A clinician-guided weight-loss program.',
    versions: [],
    editedDraft: {
      daysAgo: 2,
      content: () => ({
        sections: [hero('Medical weight loss that fits your life', 'Clinician-guided, from home.', 'See if you qualify')],
      }),
    },
  },
  {
    n: 4,
    slug: 'faq',
    pageType: 'faq',
    isHomepage: false,
    createdDaysAgo: 45,
    seoTitle: () => 'Frequently asked questions',
    seoDescription: null,
    versions: [
      {
        daysAgo: 10,
        content: () => ({
          sections: [
            faq([
              ['How fast does my order ship?', 'Within two business days of approval.'],
              ['Can I cancel anytime?', 'Yes, from your account page.'],
            ]),
          ],
        }),
      },
    ],
  },
  {
    n: 5,
    slug: 'summer-sale',
    pageType: 'landing',
    isHomepage: false,
    createdDaysAgo: 120,
    deletedDaysAgo: 40,
    seoTitle: () => 'Summer sale',
    seoDescription: null,
    versions: [{ daysAgo: 100, content: () => ({ sections: [hero('Summer sale', '20% off your first month.', 'Claim offer')] }) }],
  },
];

export async function seedStorefrontPages(db: Database, now: Date): Promise<void> {
  const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY);
  const seedPageIds = LIVE_DEMO_CLINICS.flatMap((_, c) => PAGES.map((p) => seedPageId(c, p.n)));

  // A slug (or the homepage) a developer has since given to a page of their own stays theirs: that
  // demo page is skipped (or seeded as not the homepage).
  const others = await db
    .select({ clinicId: pages.clinicId, slug: pages.slug, isHomepage: pages.isHomepage })
    .from(pages)
    .where(and(inArray(pages.clinicId, [...LIVE_DEMO_CLINICS]), isNull(pages.deletedAt), notInArray(pages.id, seedPageIds)));
  const slugTaken = (clinicId: string, slug: string) => others.some((o) => o.clinicId === clinicId && o.slug === slug);
  const hasOwnHomepage = (clinicId: string) => others.some((o) => o.clinicId === clinicId && o.isHomepage);

  // Seed pages first give up their slugs and homepage flag, so the upsert below can never collide
  // with itself (e.g. two seed pages whose slugs a developer swapped).
  await db
    .update(pages)
    .set({ slug: sql`'seed-' || ${pages.id}::text`, isHomepage: false })
    .where(inArray(pages.id, seedPageIds));

  const pageRows: (typeof pages.$inferInsert)[] = [];
  const versionRows: (typeof pageVersions.$inferInsert)[] = [];
  const seeded = new Set<string>();
  for (const [c, clinicId] of LIVE_DEMO_CLINICS.entries()) {
    const brand = BRANDS[c]!;
    for (const p of PAGES) {
      const live = p.deletedDaysAgo === undefined;
      if (live && slugTaken(clinicId, p.slug)) continue;
      const id = seedPageId(c, p.n);
      const seo = {
        seoTitle: p.seoTitle(brand),
        seoDescription: p.seoDescription,
        seoOgImage: null,
        seoCanonical: `https://www.${brand.domain}/${p.slug === 'home' ? '' : p.slug}`,
      };
      const last = p.versions.at(-1);
      const published = last ? last.content(brand) : null;
      const draft = p.editedDraft ? p.editedDraft.content(brand) : (published ?? {});
      const updatedDaysAgo = Math.min(
        p.editedDraft?.daysAgo ?? Infinity,
        last?.daysAgo ?? Infinity,
        p.deletedDaysAgo ?? Infinity,
        p.createdDaysAgo,
      );
      pageRows.push({
        id,
        clinicId,
        slug: p.slug,
        pageType: p.pageType,
        isHomepage: p.isHomepage && live && !hasOwnHomepage(clinicId),
        status: last ? 'published' : 'draft',
        draftContent: draft,
        publishedContent: published,
        ...seo,
        publishedVersion: p.versions.length,
        publishedAt: last ? at(last.daysAgo) : null,
        deletedAt: p.deletedDaysAgo === undefined ? null : at(p.deletedDaysAgo),
        createdAt: at(p.createdDaysAgo),
        updatedAt: at(updatedDaysAgo),
      });
      if (live) seeded.add(id);
      p.versions.forEach((v, i) => {
        versionRows.push({
          id: seedVersionId(c, p.n, i + 1),
          clinicId,
          pageId: id,
          version: i + 1,
          content: v.content(brand),
          // The SEO title of the first homepage version was shorter.
          seo: { ...seo, seoTitle: i === 0 && p.n === 1 ? brand.name : seo.seoTitle },
          publishedAt: at(v.daysAgo),
        });
      });
    }
  }

  if (pageRows.length) {
    await db
      .insert(pages)
      .values(pageRows)
      .onConflictDoUpdate({
        target: pages.id,
        set: refresh([
          'slug',
          'pageType',
          'isHomepage',
          'status',
          'draftContent',
          'publishedContent',
          'seoTitle',
          'seoDescription',
          'seoOgImage',
          'seoCanonical',
          'publishedVersion',
          'publishedAt',
          'deletedAt',
          'createdAt',
          'updatedAt',
        ]),
      });
  }
  // A seed page from an earlier run that is skipped now (its slug became a developer's) keeps its
  // placeholder slug and is marked deleted, out of the way.
  const skipped = seedPageIds.filter((id) => !pageRows.some((row) => row.id === id));
  if (skipped.length)
    await db
      .update(pages)
      .set({ deletedAt: now })
      .where(and(inArray(pages.id, skipped), isNull(pages.deletedAt)));

  // Versions a developer published on a seed page since are removed with the page's reset (the page's
  // version number goes back to the seed's, and the next publish must be able to take the next number).
  await db.delete(pageVersions).where(
    and(
      inArray(pageVersions.pageId, seedPageIds),
      notInArray(
        pageVersions.id,
        versionRows.map((v) => v.id!),
      ),
    ),
  );
  if (versionRows.length) {
    await db
      .insert(pageVersions)
      .values(versionRows)
      .onConflictDoUpdate({
        target: pageVersions.id,
        set: refresh(['pageId', 'version', 'content', 'seo', 'publishedAt']),
      });
  }

  // Menus and the website are seeded once: a developer's own later changes stay.
  const link = (c: number, n: number, label: string) => (seeded.has(seedPageId(c, n)) ? [{ label, pageId: seedPageId(c, n) }] : []);
  await db
    .insert(navigationMenus)
    .values(
      LIVE_DEMO_CLINICS.map((clinicId, c) => ({
        clinicId,
        headerMenu: [
          ...link(c, 1, 'Home'),
          {
            label: 'Programs',
            children: [
              { label: 'Weight loss', url: '/programs/weight-loss' },
              { label: 'All programs', url: '/programs' },
            ],
          },
          ...link(c, 2, 'About'),
          ...link(c, 4, 'FAQ'),
        ],
        footerMenu: [
          ...link(c, 2, 'About us'),
          { label: 'Privacy policy', url: `https://www.${BRANDS[c]!.domain}/privacy` },
          { label: 'Terms of service', url: `https://www.${BRANDS[c]!.domain}/terms` },
          { label: 'Contact', url: '/contact' },
        ],
        updatedAt: at(15),
      })),
    )
    .onConflictDoNothing({ target: navigationMenus.clinicId });

  await db
    .insert(uploads)
    .values(
      LIVE_DEMO_CLINICS.flatMap((clinicId, c) =>
        ([1, 2] as const).map((k) => ({
          id: seedWebsiteUploadId(c, k),
          clinicId,
          objectKey: websiteObjectKey(c, k),
          contentType: 'image/png',
          sizeBytes: STOREFRONT_SEED_OBJECTS.find((o) => o.key === websiteObjectKey(c, k))!.bytes.byteLength,
          purpose: k === 1 ? 'website_logo' : 'website_hero',
          createdAt: at(50),
        })),
      ),
    )
    .onConflictDoNothing({ target: uploads.id });

  await db
    .insert(customWebsites)
    .values(
      LIVE_DEMO_CLINICS.map((clinicId, c) => {
        const brand = BRANDS[c]!;
        return {
          clinicId,
          isActive: brand.active,
          heroTitle: 'Feel like yourself again',
          heroSubtitle: `${brand.name} pairs you with a licensed clinician, online.`,
          heroPrimaryButtonText: 'Start your visit',
          primaryColor: brand.primaryColor,
          footerColor: brand.footerColor,
          footerText: `© ${brand.name}. Care provided by licensed clinicians.`,
          socialMediaLinks: {
            instagram: `https://www.instagram.com/${brand.instagram}`,
            facebook: `https://www.facebook.com/${brand.facebook}`,
          },
          logoUploadId: seedWebsiteUploadId(c, 1),
          heroUploadId: seedWebsiteUploadId(c, 2),
          createdAt: at(50),
          updatedAt: at(12),
        };
      }),
    )
    .onConflictDoNothing({ target: customWebsites.clinicId });
}
