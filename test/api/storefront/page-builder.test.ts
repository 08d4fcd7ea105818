// Page builder pages: create/list/get/update/delete/publish, slug rules across clinics, one homepage
// per clinic, publish and version behaviour, soft delete answering 404 everywhere, tenant isolation.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { pages, pageVersions } from '../../../drizzle/schema';
import { MAX_CONTENT_BYTES } from '../../../src/modules/storefront/page-builder/content';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();

const PAGES = '/api/v1/page-builder/pages';
/** A fixed instant near now (keys expire a year after creation, so the clock must stay within that year). */
const BASE = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000;
const at = (hours: number) => BASE + hours * 3_600_000;
const isoAt = (hours: number) => new Date(at(hours)).toISOString();
const content = (title: string) => ({
  sections: [
    { type: 'hero', title },
    { type: 'text', body: 'Line one\nLine two' },
  ],
});

async function tenant() {
  const tenant = await makeTenant(t.db);
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, readKey: readOnly.raw };
}

const create = (key: string, body: unknown) => t.request(PAGES, { key, body });
const put = (key: string, id: string, body: unknown) => t.request(`${PAGES}/${id}`, { key, method: 'PUT', body });
const publish = (key: string, id: string) => t.request(`${PAGES}/${id}/publish`, { key, method: 'POST' });
const getPage = (key: string, id: string) => t.request(`${PAGES}/${id}`, { key });

async function made(key: string, body: Record<string, unknown>) {
  const res = await create(key, body);
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(201);
  return (await res.json()).data;
}

async function homepages(clinicId: string) {
  return t.db
    .select({ id: pages.id })
    .from(pages)
    .where(and(eq(pages.clinicId, clinicId), eq(pages.isHomepage, true)));
}

/** Statements sent for one request (the request log, written after it, not counted). */
const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

describe('POST /api/v1/page-builder/pages', () => {
  it('creates a draft with defaults and answers it in full (201)', async () => {
    const { key, clinic } = await tenant();
    t.clock.freezeAt(at(0));
    const res = await create(key, { slug: 'about' });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toEqual({
      id: expect.any(String),
      slug: 'about',
      pageType: 'custom',
      isHomepage: false,
      status: 'draft',
      hasUnpublishedChanges: true,
      seoTitle: null,
      seoDescription: null,
      seoOgImage: null,
      seoCanonical: null,
      publishedVersion: 0,
      publishedAt: null,
      createdAt: isoAt(0),
      updatedAt: isoAt(0),
      draftContent: {},
      publishedContent: null,
      versions: [],
    });
    const [row] = await t.db.select().from(pages).where(eq(pages.id, data.id));
    expect(row).toMatchObject({ clinicId: clinic.id, slug: 'about', status: 'draft', publishedVersion: 0, deletedAt: null });
  });

  it('stores every field sent, including nested slugs and the SEO fields', async () => {
    const { key } = await tenant();
    const data = await made(key, {
      slug: ' programs/weight-loss ',
      pageType: 'landing',
      isHomepage: false,
      draftContent: content('Lose weight'),
      seoTitle: 'Weight loss',
      seoDescription: 'Doctor-led programs',
      seoOgImage: '/uploads/og.png',
      seoCanonical: 'https://www.example.com/programs/weight-loss',
    });
    expect(data).toMatchObject({
      slug: 'programs/weight-loss',
      pageType: 'landing',
      draftContent: content('Lose weight'),
      seoTitle: 'Weight loss',
      seoDescription: 'Doctor-led programs',
      seoOgImage: '/uploads/og.png',
      seoCanonical: 'https://www.example.com/programs/weight-loss',
    });
  });

  it('refuses bad input with 400 naming the field', async () => {
    const { key } = await tenant();
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { next: deep };
    const cases: [unknown, string][] = [
      [{}, 'body.slug'],
      [{ slug: '' }, 'body.slug'],
      [{ slug: 'About' }, 'body.slug'],
      [{ slug: 'about us' }, 'body.slug'],
      [{ slug: '/about' }, 'body.slug'],
      [{ slug: 'about/' }, 'body.slug'],
      [{ slug: 'a//b' }, 'body.slug'],
      [{ slug: 'a--b' }, 'body.slug'],
      [{ slug: '-a' }, 'body.slug'],
      [{ slug: 'über' }, 'body.slug'],
      [{ slug: 'a'.repeat(101) }, 'body.slug'],
      [{ slug: 'a/b/c/d/e/f' }, 'body.slug'],
      [{ slug: 'a\u0000b' }, 'body.slug'],
      [{ slug: 'ok', pageType: 'homepage' }, 'body.pageType'],
      [{ slug: 'ok', isHomepage: 'yes' }, 'body.isHomepage'],
      [{ slug: 'ok', draftContent: [] }, 'body.draftContent'],
      [{ slug: 'ok', draftContent: 'text' }, 'body.draftContent'],
      [{ slug: 'ok', draftContent: null }, 'body.draftContent'],
      [{ slug: 'ok', draftContent: deep }, 'body.draftContent'],
      [{ slug: 'ok', draftContent: { title: 'a\u0000b' } }, 'body.draftContent'],
      [{ slug: 'ok', draftContent: { 'a\u0000': 1 } }, 'body.draftContent'],
      [{ slug: 'ok', draftContent: { title: 'a\ud800b' } }, 'body.draftContent'],
      [{ slug: 'ok', seoTitle: 'x'.repeat(201) }, 'body.seoTitle'],
      [{ slug: 'ok', seoDescription: 'two\nlines' }, 'body.seoDescription'],
      [{ slug: 'ok', seoOgImage: 'javascript:alert(1)' }, 'body.seoOgImage'],
      [{ slug: 'ok', seoOgImage: '//evil.example/x.png' }, 'body.seoOgImage'],
      [{ slug: 'ok', seoCanonical: 'http://www.example.com/' }, 'body.seoCanonical'],
      [{ slug: 'ok', seoCanonical: '/relative' }, 'body.seoCanonical'],
      [{ slug: 'ok', publishedContent: {} }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await create(key, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const json = await res.json();
      expect(json.code).toBe('VALIDATION_ERROR');
      expect(json.message, JSON.stringify(body).slice(0, 80)).toContain(field);
    }
  });

  it(`accepts draftContent of ${MAX_CONTENT_BYTES} bytes as JSON and refuses one byte more with 413`, async () => {
    const { key, clinic } = await tenant();
    const sized = (bytes: number) => ({ text: 'x'.repeat(bytes - JSON.stringify({ text: '' }).length) });
    expect(JSON.stringify(sized(MAX_CONTENT_BYTES)).length).toBe(MAX_CONTENT_BYTES);
    expect((await create(key, { slug: 'at-limit', draftContent: sized(MAX_CONTENT_BYTES) })).status).toBe(201);
    const over = await create(key, { slug: 'over-limit', draftContent: sized(MAX_CONTENT_BYTES + 1) });
    expect(over.status).toBe(413);
    const body = await over.json();
    expect(body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(body.message).toContain('body.draftContent');
    // Multi-byte characters count as their UTF-8 bytes.
    const emoji = { text: '\u00e9'.repeat(MAX_CONTENT_BYTES / 2) };
    expect((await create(key, { slug: 'accents', draftContent: emoji })).status).toBe(413);
    const rows = await t.db.select({ slug: pages.slug }).from(pages).where(eq(pages.clinicId, clinic.id));
    expect(rows.map((r) => r.slug)).toEqual(['at-limit']);
  });

  it('needs the write scope', async () => {
    const { readKey } = await tenant();
    const res = await create(readKey, { slug: 'about' });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('slug rules', () => {
  it('answers 409 CONFLICT for a slug taken by a live page of the clinic; another clinic and a deleted page do not count', async () => {
    const a = await tenant();
    const b = await tenant();
    const first = await made(a.key, { slug: 'contact' });
    const dup = await create(a.key, { slug: 'contact' });
    expect(dup.status).toBe(409);
    expect(await dup.json()).toEqual({ success: false, message: 'A page with slug "contact" already exists', code: 'CONFLICT' });

    // The same slug in another clinic is fine.
    expect((await create(b.key, { slug: 'contact' })).status).toBe(201);

    // Deleting the page frees its slug.
    expect((await t.request(`${PAGES}/${first.id}`, { key: a.key, method: 'DELETE' })).status).toBe(200);
    const again = await made(a.key, { slug: 'contact' });
    expect(again.id).not.toBe(first.id);
  });

  it('answers 409 when an update takes a live slug, and lets a page keep its own slug', async () => {
    const { key } = await tenant();
    await made(key, { slug: 'faq' });
    const other = await made(key, { slug: 'help' });
    const res = await put(key, other.id, { slug: 'faq' });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('CONFLICT');
    expect((await put(key, other.id, { slug: 'help', seoTitle: 'Help' })).status).toBe(200);
    const [row] = await t.db.select().from(pages).where(eq(pages.id, other.id));
    expect(row!.slug).toBe('help');
  });

  it('lets exactly one of concurrent creations with the same slug through', async () => {
    const { key, clinic } = await tenant();
    const results = await Promise.all(Array.from({ length: 6 }, () => create(key, { slug: 'race' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect(await t.db.$count(pages, and(eq(pages.clinicId, clinic.id), eq(pages.slug, 'race')))).toBe(1);
  });
});

describe('homepage', () => {
  it('keeps one homepage per clinic: a new one unsets the old one in the same change', async () => {
    const { key, clinic } = await tenant();
    const other = await tenant();
    const theirs = await made(other.key, { slug: 'home', isHomepage: true });
    const home = await made(key, { slug: 'home', isHomepage: true });
    expect(home.isHomepage).toBe(true);
    const landing = await made(key, { slug: 'landing', isHomepage: true });
    expect(landing.isHomepage).toBe(true);
    expect(await homepages(clinic.id)).toEqual([{ id: landing.id }]);
    expect((await (await getPage(key, home.id)).json()).data.isHomepage).toBe(false);

    // Through PUT as well, and back.
    const moved = await put(key, home.id, { isHomepage: true });
    expect((await moved.json()).data.isHomepage).toBe(true);
    expect(await homepages(clinic.id)).toEqual([{ id: home.id }]);
    // Setting it again on the homepage itself changes nothing else.
    expect((await put(key, home.id, { isHomepage: true })).status).toBe(200);
    expect(await homepages(clinic.id)).toEqual([{ id: home.id }]);
    // false: the clinic has no homepage.
    expect((await (await put(key, home.id, { isHomepage: false })).json()).data.isHomepage).toBe(false);
    expect(await homepages(clinic.id)).toEqual([]);
    // The other clinic's homepage was never touched.
    expect(await homepages(other.clinic.id)).toEqual([{ id: theirs.id }]);
  });

  it('leaves exactly one homepage after concurrent changes', async () => {
    const { key, clinic } = await tenant();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await made(key, { slug: `p${i}` })).id);
    const results = await Promise.all([
      ...ids.map((id) => put(key, id, { isHomepage: true })),
      create(key, { slug: 'p-new', isHomepage: true }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(await homepages(clinic.id)).toHaveLength(1);
  });

  it('a deleted homepage no longer counts', async () => {
    const { key, clinic } = await tenant();
    const home = await made(key, { slug: 'home', isHomepage: true });
    await t.request(`${PAGES}/${home.id}`, { key, method: 'DELETE' });
    const next = await made(key, { slug: 'new-home', isHomepage: true });
    expect(await homepages(clinic.id)).toEqual(expect.arrayContaining([{ id: next.id }]));
  });
});

describe('GET /api/v1/page-builder/pages', () => {
  it("lists the clinic's live pages as summaries, most recently changed first, paged, in one query", async () => {
    const { key, readKey } = await tenant();
    const other = await tenant();
    await made(other.key, { slug: 'theirs' });
    t.clock.freezeAt(at(1));
    const older = await made(key, { slug: 'older', draftContent: content('Old') });
    t.clock.advance(60_000);
    const gone = await made(key, { slug: 'gone' });
    t.clock.advance(60_000);
    const newer = await made(key, { slug: 'newer' });
    await t.request(`${PAGES}/${gone.id}`, { key, method: 'DELETE' });
    t.clock.advance(60_000);
    await put(key, older.id, { seoTitle: 'Touched' }); // now the most recently changed

    const res = await t.request(PAGES, { key: readKey });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.map((p: { slug: string }) => p.slug)).toEqual(['older', 'newer']);
    expect(body.data[0]).not.toHaveProperty('draftContent');
    expect(body.data[0]).toMatchObject({ id: older.id, seoTitle: 'Touched', status: 'draft', hasUnpublishedChanges: true });
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });

    const page2 = await (await t.request(`${PAGES}?page=2&limit=1`, { key })).json();
    expect(page2.data.map((p: { id: string }) => p.id)).toEqual([newer.id]);
    expect(page2.pagination).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });
    expect(await (await t.request(`${PAGES}?page=5&limit=1`, { key })).json()).toMatchObject({ data: [], pagination: { total: 2 } });
    expect((await t.request(`${PAGES}?limit=201`, { key })).status).toBe(400);
    expect(await statements(() => t.request(PAGES, { key }))).toEqual({ status: 200, count: 2 });
  });

  it('answers an empty list for a clinic without pages', async () => {
    const { key } = await tenant();
    expect(await (await t.request(PAGES, { key })).json()).toMatchObject({ success: true, data: [], pagination: { total: 0 } });
  });
});

describe('GET /api/v1/page-builder/pages/{id}', () => {
  it("answers the page in one query; another clinic's, unknown, malformed and deleted ids answer the same 404", async () => {
    const { key, readKey } = await tenant();
    const page = await made(key, { slug: 'mine', draftContent: content('Mine') });
    const res = await getPage(readKey, page.id);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ id: page.id, slug: 'mine', draftContent: content('Mine'), versions: [] });
    expect(await statements(() => getPage(key, page.id))).toEqual({ status: 200, count: 2 });

    const other = await tenant();
    const theirs = await made(other.key, { slug: 'theirs' });
    const deleted = await made(key, { slug: 'deleted' });
    await t.request(`${PAGES}/${deleted.id}`, { key, method: 'DELETE' });
    const bodies = [];
    for (const id of [theirs.id, randomUUID(), 'not-a-uuid', deleted.id]) {
      const miss = await getPage(key, id);
      expect(miss.status, id).toBe(404);
      bodies.push(await miss.json());
    }
    for (const body of bodies) expect(body).toEqual({ success: false, message: 'Page not found', code: 'NOT_FOUND' });
  });
});

describe('PUT /api/v1/page-builder/pages/{id}', () => {
  it('saves only the fields sent, keeps the rest, and clears a field sent as null', async () => {
    const { key } = await tenant();
    const page = await made(key, { slug: 'about', seoTitle: 'About', seoDescription: 'Who we are', draftContent: content('v0') });
    t.clock.freezeAt(at(2));
    const res = await put(key, page.id, {
      draftContent: content('v1'),
      seoDescription: null,
      seoOgImage: 'https://cdn.example.com/og.png',
      pageType: 'about',
    });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      slug: 'about',
      pageType: 'about',
      seoTitle: 'About',
      seoDescription: null,
      seoOgImage: 'https://cdn.example.com/og.png',
      draftContent: content('v1'),
      status: 'draft',
      publishedContent: null,
      updatedAt: isoAt(2),
    });
  });

  it('refuses an empty body, bad fields (400) and an oversized draft (413), changing nothing', async () => {
    const { key } = await tenant();
    const page = await made(key, { slug: 'about', draftContent: content('keep') });
    for (const [body, field] of [
      [{}, 'body'],
      [{ slug: 'Bad Slug' }, 'body.slug'],
      [{ draftContent: [1] }, 'body.draftContent'],
      [{ status: 'published' }, 'body'],
    ] as const) {
      const res = await put(key, page.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message).toContain(field);
    }
    const big = await put(key, page.id, { draftContent: { text: 'x'.repeat(MAX_CONTENT_BYTES) } });
    expect(big.status).toBe(413);
    expect((await (await getPage(key, page.id)).json()).data.draftContent).toEqual(content('keep'));
  });

  it("answers the same 404 for another clinic's, an unknown and a malformed id, changing nothing", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await made(other.key, { slug: 'theirs', seoTitle: 'Theirs' });
    for (const id of [theirs.id, randomUUID(), 'nope']) {
      const res = await put(key, id, { seoTitle: 'Mine now' });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ success: false, message: 'Page not found', code: 'NOT_FOUND' });
    }
    const [row] = await t.db.select().from(pages).where(eq(pages.id, theirs.id));
    expect(row!.seoTitle).toBe('Theirs');
  });
});

describe('POST /api/v1/page-builder/pages/{id}/publish', () => {
  it('promotes the draft and numbers versions; later draft edits never touch the published content or the versions', async () => {
    const { key, clinic } = await tenant();
    const page = await made(key, { slug: 'home', draftContent: content('First'), seoTitle: 'Home v1' });

    t.clock.freezeAt(at(3));
    const first = await publish(key, page.id);
    expect(first.status).toBe(200);
    const v1 = (await first.json()).data;
    expect(v1).toMatchObject({
      status: 'published',
      publishedVersion: 1,
      publishedAt: isoAt(3),
      publishedContent: content('First'),
      draftContent: content('First'),
      hasUnpublishedChanges: false,
      versions: [{ version: 1, publishedAt: isoAt(3), seoTitle: 'Home v1' }],
    });

    // A draft edit: the page stays published with its published content.
    t.clock.advance(3_600_000);
    const edited = (await (await put(key, page.id, { draftContent: content('Second'), seoTitle: 'Home v2' })).json()).data;
    expect(edited).toMatchObject({
      status: 'published',
      publishedVersion: 1,
      publishedContent: content('First'),
      draftContent: content('Second'),
      hasUnpublishedChanges: true,
    });
    expect(edited.versions).toHaveLength(1);

    t.clock.advance(3_600_000);
    const v2 = (await (await publish(key, page.id)).json()).data;
    expect(v2).toMatchObject({
      publishedVersion: 2,
      publishedContent: content('Second'),
      publishedAt: isoAt(5),
      hasUnpublishedChanges: false,
    });
    expect(v2.versions.map((v: { version: number; seoTitle: string }) => [v.version, v.seoTitle])).toEqual([
      [2, 'Home v2'],
      [1, 'Home v1'],
    ]);

    // The snapshots hold the draft as it was at each publish, with the SEO fields of that moment.
    await put(key, page.id, { draftContent: content('Third, unpublished') });
    const rows = await t.db.select().from(pageVersions).where(eq(pageVersions.pageId, page.id)).orderBy(pageVersions.version);
    expect(rows.map((r) => [r.clinicId, r.version, r.content, r.seo])).toEqual([
      [clinic.id, 1, content('First'), { seoTitle: 'Home v1', seoDescription: null, seoOgImage: null, seoCanonical: null }],
      [clinic.id, 2, content('Second'), { seoTitle: 'Home v2', seoDescription: null, seoOgImage: null, seoCanonical: null }],
    ]);
    const [stored] = await t.db.select().from(pages).where(eq(pages.id, page.id));
    expect(stored).toMatchObject({ publishedContent: content('Second'), draftContent: content('Third, unpublished'), publishedVersion: 2 });
  });

  it('refuses to publish an empty draft with 400, changing nothing', async () => {
    const { key } = await tenant();
    const page = await made(key, { slug: 'empty' });
    const res = await publish(key, page.id);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.message).toContain('empty');
    expect(await t.db.$count(pageVersions, eq(pageVersions.pageId, page.id))).toBe(0);
    expect((await (await getPage(key, page.id)).json()).data).toMatchObject({
      status: 'draft',
      publishedVersion: 0,
      publishedContent: null,
    });

    // A published page whose draft is emptied again cannot be published either; its published content stays.
    await put(key, page.id, { draftContent: content('Live') });
    expect((await publish(key, page.id)).status).toBe(200);
    await put(key, page.id, { draftContent: {} });
    expect((await publish(key, page.id)).status).toBe(400);
    expect((await (await getPage(key, page.id)).json()).data).toMatchObject({
      status: 'published',
      publishedVersion: 1,
      publishedContent: content('Live'),
    });
  });

  it('numbers concurrent publishes one after the other', async () => {
    const { key } = await tenant();
    const page = await made(key, { slug: 'busy', draftContent: content('Busy') });
    const results = await Promise.all(Array.from({ length: 5 }, () => publish(key, page.id)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const versions = await t.db.select({ version: pageVersions.version }).from(pageVersions).where(eq(pageVersions.pageId, page.id));
    expect(versions.map((v) => v.version).sort()).toEqual([1, 2, 3, 4, 5]);
    expect((await (await getPage(key, page.id)).json()).data.publishedVersion).toBe(5);
  });

  it("answers the same 404 for another clinic's page, an unknown and a malformed id", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await made(other.key, { slug: 'theirs', draftContent: content('Theirs') });
    for (const id of [theirs.id, randomUUID(), 'nope']) {
      const res = await publish(key, id);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ success: false, message: 'Page not found', code: 'NOT_FOUND' });
    }
    expect(await t.db.$count(pageVersions, eq(pageVersions.pageId, theirs.id))).toBe(0);
  });
});

describe('DELETE /api/v1/page-builder/pages/{id}', () => {
  it('soft-deletes: the row and its versions stay, and the page answers 404 everywhere afterwards', async () => {
    const { key } = await tenant();
    const page = await made(key, { slug: 'old', draftContent: content('Old') });
    await publish(key, page.id);
    t.clock.freezeAt(at(6));
    const res = await t.request(`${PAGES}/${page.id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, message: 'Page deleted', data: { id: page.id, deleted: true } });
    const [row] = await t.db.select().from(pages).where(eq(pages.id, page.id));
    expect(row!.deletedAt?.toISOString()).toBe(isoAt(6));
    expect(await t.db.$count(pageVersions, eq(pageVersions.pageId, page.id))).toBe(1);

    const notFound = { success: false, message: 'Page not found', code: 'NOT_FOUND' };
    for (const res of [
      await getPage(key, page.id),
      await put(key, page.id, { seoTitle: 'Back?' }),
      await publish(key, page.id),
      await t.request(`${PAGES}/${page.id}`, { key, method: 'DELETE' }),
    ]) {
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual(notFound);
    }
    expect((await (await t.request(PAGES, { key })).json()).data).toEqual([]);
  });

  it("answers the same 404 for another clinic's page, leaving it alone", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await made(other.key, { slug: 'theirs' });
    const res = await t.request(`${PAGES}/${theirs.id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, message: 'Page not found', code: 'NOT_FOUND' });
    expect((await getPage(other.key, theirs.id)).status).toBe(200);
  });
});

describe('active content in draftContent (refused, never rewritten)', () => {
  /** A document with `value` deep inside, and the field path the 400 must name. */
  const withValue = (value: string) => ({
    sections: [
      { type: 'hero', title: 'Welcome' },
      { type: 'html', blocks: [{ html: '<p>fine</p>' }, { html: value }] },
    ],
  });
  const FIELD = 'body.draftContent.sections.1.blocks.1.html';
  const ACTIVE = [
    '<p>Hi</p><script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<svg/onload=alert(1)>',
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    '<a href="java&#x09;script:alert(1)">x</a>',
    '   javascript:alert(1)',
    'vbscript:msgbox(1)',
    '<a href="data:text/html,<b>x</b>">x</a>',
    '<iframe src="https://example.com"></iframe>',
    '<object data="x"></object>',
    '<embed src="x">',
  ];

  const expectRefused = async (res: Response, field: string) => {
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; message: string; errors: { field: string; message: string }[] };
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.errors).toEqual([{ field, message: expect.stringMatching(/^(the key )?must not contain /) }]);
    expect(body.message).toContain(field);
  };

  it('create refuses each kind with 400 naming the path inside the document, and stores nothing', async () => {
    const { key, clinic } = await tenant();
    for (const [i, value] of ACTIVE.entries()) {
      await expectRefused(await create(key, { slug: `bad-${i}`, draftContent: withValue(value) }), FIELD);
    }
    // In a key, and in a link field at the top.
    await expectRefused(
      await create(key, { slug: 'bad-key', draftContent: { attrs: { '<script>': 1 } } }),
      'body.draftContent.attrs."<script>"',
    );
    await expectRefused(await create(key, { slug: 'bad-link', draftContent: { href: 'javascript:alert(1)' } }), 'body.draftContent.href');
    expect(await t.db.$count(pages, eq(pages.clinicId, clinic.id))).toBe(0);
    // Ordinary rich text, https and site links and inline raster images are fine.
    const fine = withValue(
      '<p>Read <a href="https://example.com/a">this</a> or <a href="/about">that</a>.</p><img src="data:image/png;base64,iVBORw0KGgo=">',
    );
    expect((await create(key, { slug: 'fine', draftContent: fine })).status).toBe(201);
  });

  it('update refuses it and keeps the saved draft', async () => {
    const { key } = await tenant();
    const page = await made(key, { slug: 'keep', draftContent: content('Saved') });
    for (const value of ACTIVE) await expectRefused(await put(key, page.id, { draftContent: withValue(value) }), FIELD);
    expect((await (await getPage(key, page.id)).json()).data.draftContent).toEqual(content('Saved'));
  });

  it('publish refuses a draft stored before the rule (naming its path) and changes nothing', async () => {
    const { key } = await tenant();
    const page = await made(key, { slug: 'older', draftContent: content('Old') });
    // Written behind the API's back, as a row saved before the rule existed would be.
    await t.db
      .update(pages)
      .set({ draftContent: withValue('<img src=x onerror=alert(1)>') })
      .where(eq(pages.id, page.id));
    const res = await publish(key, page.id);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.errors).toEqual([{ field: 'draftContent.sections.1.blocks.1.html', message: expect.stringContaining('onerror=') }]);
    expect(await t.db.$count(pageVersions, eq(pageVersions.pageId, page.id))).toBe(0);
    expect((await (await getPage(key, page.id)).json()).data).toMatchObject({ status: 'draft', publishedContent: null });
  });
});
