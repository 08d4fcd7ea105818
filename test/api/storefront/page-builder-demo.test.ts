// The storefront demo data (scripts/seed/storefront-pages.ts) through the API: pages in every state
// with their versions, menus linking them, a custom website with a logo the proxy can stream once
// its bytes are in storage; idempotent, and a developer's own slug or homepage wins over the seed.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { pages } from '../../../drizzle/schema';
import { seedFoundation } from '../../../scripts/seed/foundation';
import { DEMO } from '../../../scripts/seed/ids';
import { STOREFRONT_SEED_OBJECTS, seedPageId, seedStorefrontPages } from '../../../scripts/seed/storefront-pages';
import { useTestApp } from '../../helpers/app';
import { makeKey } from '../../helpers/factories';

const t = useTestApp();
let demoKey: string;
let harborKey: string;

const seed = async () => {
  const now = new Date();
  await t.db.transaction(async (tx) => {
    await seedFoundation(tx as never, now);
    await seedStorefrontPages(tx as never, now);
  });
};

beforeAll(async () => {
  await seed();
  await seed(); // idempotent
  demoKey = (await makeKey(t.db, DEMO.clinics.demo)).raw;
  harborKey = (await makeKey(t.db, DEMO.clinics.harbor)).raw;
});

const data = async (path: string, key = demoKey) => {
  const res = await t.request(path, { key });
  expect(res.status, path).toBe(200);
  return (await res.json()).data;
};

describe('storefront demo data', () => {
  it('gives each live clinic a published homepage with two versions, a page edited since, a draft and a published FAQ', async () => {
    for (const [c, key] of [
      [0, demoKey],
      [1, harborKey],
    ] as const) {
      const list = await data('/api/v1/page-builder/pages', key);
      expect(list.map((p: { slug: string }) => p.slug).sort()).toEqual(['about', 'faq', 'home', 'programs/weight-loss']);

      const home = await data(`/api/v1/page-builder/pages/${seedPageId(c, 1)}`, key);
      expect(home).toMatchObject({ isHomepage: true, status: 'published', publishedVersion: 2, hasUnpublishedChanges: false });
      expect(home.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
      expect(home.publishedContent).toEqual(home.draftContent);

      const about = await data(`/api/v1/page-builder/pages/${seedPageId(c, 2)}`, key);
      expect(about).toMatchObject({ status: 'published', publishedVersion: 1, hasUnpublishedChanges: true });

      const draft = await data(`/api/v1/page-builder/pages/${seedPageId(c, 3)}`, key);
      expect(draft).toMatchObject({ status: 'draft', publishedVersion: 0, publishedContent: null, versions: [] });
      expect(Object.keys(draft.draftContent)).not.toHaveLength(0);

      // The deleted page answers 404.
      expect((await t.request(`/api/v1/page-builder/pages/${seedPageId(c, 5)}`, { key })).status).toBe(404);
    }
    // Another clinic's seeded page answers 404.
    expect((await t.request(`/api/v1/page-builder/pages/${seedPageId(1, 1)}`, { key: demoKey })).status).toBe(404);
  });

  it('publishes a seeded page as the next version', async () => {
    const res = await t.request(`/api/v1/page-builder/pages/${seedPageId(0, 2)}/publish`, { key: demoKey, method: 'POST' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ publishedVersion: 2, hasUnpublishedChanges: false });
  });

  it('links the seeded pages from the menus', async () => {
    const nav = await data('/api/v1/page-builder/navigation');
    expect(nav.headerMenu.map((i: { label: string; pageSlug: string | null }) => [i.label, i.pageSlug])).toEqual([
      ['Home', 'home'],
      ['Programs', null],
      ['About', 'about'],
      ['FAQ', 'faq'],
    ]);
    expect(nav.headerMenu[1].children).toHaveLength(2);
    expect(nav.footerMenu.length).toBeGreaterThan(1);
  });

  it('gives each clinic a website with a logo and a hero image; the proxy streams the logo once its bytes are stored', async () => {
    const site = await data('/api/v1/custom-website');
    expect(site).toMatchObject({ isActive: true, isSaved: true, primaryColor: '#0F766E' });
    expect(site.logoUrl).toMatch(/website_logo\/.+\.png$/);
    expect(site.heroImageUrl).toMatch(/website_hero\/.+\.png$/);
    expect((await data('/api/v1/custom-website', harborKey)).isActive).toBe(false);

    // The seed writes rows only: without the bytes the proxy answers 404 (docs/custom-website.md).
    expect((await t.request('/api/v1/custom-website/logo-proxy', { key: demoKey })).status).toBe(404);
    for (const object of STOREFRONT_SEED_OBJECTS) await t.storage.put(object.key, object.bytes, object.contentType);
    const res = await t.app.request('/api/v1/custom-website/logo-proxy', {
      headers: { 'x-api-key': harborKey, 'cf-connecting-ip': '10.99.0.1' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.slice(1, 4)).toEqual(new Uint8Array([0x50, 0x4e, 0x47]));
  });

  it("leaves a developer's own slug and homepage alone on a re-seed", async () => {
    // The developer deletes the demo FAQ and makes a page of their own under its slug, as the homepage.
    await t.request(`/api/v1/page-builder/pages/${seedPageId(1, 4)}`, { key: harborKey, method: 'DELETE' });
    const created = await t.request('/api/v1/page-builder/pages', {
      key: harborKey,
      body: { slug: 'faq', isHomepage: true, draftContent: { mine: true } },
    });
    expect(created.status).toBe(201);
    const mine = (await created.json()).data;
    await seed();
    const list = await data('/api/v1/page-builder/pages', harborKey);
    expect(list.filter((p: { slug: string }) => p.slug === 'faq').map((p: { id: string }) => p.id)).toEqual([mine.id]);
    expect(list.filter((p: { isHomepage: boolean }) => p.isHomepage).map((p: { id: string }) => p.id)).toEqual([mine.id]);
    const [seeded] = await t.db
      .select()
      .from(pages)
      .where(eq(pages.id, seedPageId(1, 4)));
    expect(seeded!.deletedAt).not.toBeNull();
    // The demo clinic was unaffected.
    expect((await data(`/api/v1/page-builder/pages/${seedPageId(0, 4)}`)).slug).toBe('faq');
  });
});
