// Page builder navigation (GET/PUT: empty shape, validated items, pageId of the clinic's own live
// pages only) and the image upload (type from the bytes, size limit, uploads row).
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { navigationMenus, uploads } from '../../../drizzle/schema';
import { MAX_IMAGE_BYTES } from '../../../src/modules/catalog/uploads/schemas';
import { MAX_MENU_ITEMS } from '../../../src/modules/storefront/page-builder/schemas';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { IMAGES, imageForm, NOT_IMAGES } from '../../helpers/images';
import { send } from '../catalog/uploads-fixtures';

const t = useTestApp();

const NAV = '/api/v1/page-builder/navigation';
const UPLOAD = '/api/v1/page-builder/upload-image';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

async function page(key: string, slug: string) {
  const res = await t.request('/api/v1/page-builder/pages', { key, body: { slug } });
  expect(res.status).toBe(201);
  return (await res.json()).data as { id: string; slug: string };
}

const putNav = (key: string, body: unknown) => t.request(NAV, { key, method: 'PUT', body });

describe('GET /api/v1/page-builder/navigation', () => {
  it('answers the empty shape when nothing was saved', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await t.request(NAV, { key: readOnly.raw });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ headerMenu: [], footerMenu: [], updatedAt: null });
  });
});

describe('PUT /api/v1/page-builder/navigation', () => {
  it("saves both menus (url and page links, one level of children) and GET answers them with the pages' current slugs", async () => {
    const { key, clinic } = await makeTenant(t.db);
    const about = await page(key, 'about');
    const faq = await page(key, 'help/faq');
    const body = {
      headerMenu: [
        { label: 'About', pageId: about.id },
        {
          label: 'Programs',
          children: [
            { label: 'Weight loss', url: '/programs/weight-loss' },
            { label: 'FAQ', pageId: faq.id },
          ],
        },
        { label: 'Shop', url: 'https://shop.example.com/?ref=nav#top', children: [] },
      ],
      footerMenu: [{ label: 'Privacy', url: 'https://www.example.com/privacy' }],
    };
    const res = await putNav(key, body);
    expect(res.status).toBe(200);
    const expected = {
      headerMenu: [
        { label: 'About', url: null, pageId: about.id, pageSlug: 'about', children: [] },
        {
          label: 'Programs',
          url: null,
          pageId: null,
          pageSlug: null,
          children: [
            { label: 'Weight loss', url: '/programs/weight-loss', pageId: null, pageSlug: null },
            { label: 'FAQ', url: null, pageId: faq.id, pageSlug: 'help/faq' },
          ],
        },
        { label: 'Shop', url: 'https://shop.example.com/?ref=nav#top', pageId: null, pageSlug: null, children: [] },
      ],
      footerMenu: [{ label: 'Privacy', url: 'https://www.example.com/privacy', pageId: null, pageSlug: null, children: [] }],
    };
    expect((await res.json()).data).toMatchObject(expected);
    const got = (await (await t.request(NAV, { key })).json()).data;
    expect(got).toMatchObject(expected);
    expect(got.updatedAt).toEqual(expect.any(String));
    // One query after the key lookup (the slugs of the linked pages come with the menus).
    await t.flush();
    t.forgetKeys(); // a cold key: the key lookup is counted
    t.queries.length = 0;
    expect((await t.request(NAV, { key })).status).toBe(200);
    await t.flush();
    expect(t.queries.filter((q) => !q.includes('"request_logs"'))).toHaveLength(2);

    // A renamed page shows its new slug; a deleted one keeps the item with pageSlug null.
    await t.request(`/api/v1/page-builder/pages/${about.id}`, { key, method: 'PUT', body: { slug: 'about-us' } });
    await t.request(`/api/v1/page-builder/pages/${faq.id}`, { key, method: 'DELETE' });
    const after = (await (await t.request(NAV, { key })).json()).data;
    expect(after.headerMenu[0].pageSlug).toBe('about-us');
    expect(after.headerMenu[1].children[1]).toEqual({ label: 'FAQ', url: null, pageId: faq.id, pageSlug: null });

    // An upsert: the second save replaces the first; one row per clinic.
    expect((await putNav(key, { headerMenu: [], footerMenu: [] })).status).toBe(200);
    expect((await (await t.request(NAV, { key })).json()).data).toMatchObject({ headerMenu: [], footerMenu: [] });
    expect(await t.db.$count(navigationMenus, eq(navigationMenus.clinicId, clinic.id))).toBe(1);
  });

  it("refuses a pageId that is not one of the clinic's live pages with 400 naming the item, saving nothing", async () => {
    const { key, clinic } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const mine = await page(key, 'mine');
    const theirs = await page(other.key, 'theirs');
    const deleted = await page(key, 'deleted');
    await t.request(`/api/v1/page-builder/pages/${deleted.id}`, { key, method: 'DELETE' });
    const cases: [unknown, string][] = [
      [
        {
          headerMenu: [
            { label: 'Mine', pageId: mine.id },
            { label: 'Theirs', pageId: theirs.id },
          ],
          footerMenu: [],
        },
        'body.headerMenu.1.pageId',
      ],
      [{ headerMenu: [], footerMenu: [{ label: 'Gone', pageId: deleted.id }] }, 'body.footerMenu.0.pageId'],
      [
        { headerMenu: [{ label: 'Group', children: [{ label: 'Unknown', pageId: crypto.randomUUID() }] }], footerMenu: [] },
        'body.headerMenu.0.children.0.pageId',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await putNav(key, body);
      expect(res.status).toBe(400);
      const json = await res.json();
      expect(json.code).toBe('VALIDATION_ERROR');
      expect(json.errors.map((e: { field: string }) => e.field)).toEqual([field]);
      expect(json.message).toContain(field);
    }
    expect(await t.db.$count(navigationMenus, eq(navigationMenus.clinicId, clinic.id))).toBe(0);
    // The other clinic may link its own page.
    expect((await putNav(other.key, { headerMenu: [{ label: 'Theirs', pageId: theirs.id }], footerMenu: [] })).status).toBe(200);
  });

  it('refuses malformed items with 400 naming the field', async () => {
    const { key } = await makeTenant(t.db);
    const item = (extra: Record<string, unknown>) => ({ headerMenu: [{ label: 'X', ...extra }], footerMenu: [] });
    const many = Array.from({ length: MAX_MENU_ITEMS + 1 }, (_, i) => ({ label: `L${i}`, url: '/x' }));
    const cases: [unknown, string][] = [
      [{ headerMenu: [] }, 'body.footerMenu'],
      [{ headerMenu: 'x', footerMenu: [] }, 'body.headerMenu'],
      [item({}), 'body.headerMenu.0.url'],
      [item({ url: '/a', pageId: crypto.randomUUID() }), 'body.headerMenu.0.pageId'],
      [item({ url: 'http://example.com/' }), 'body.headerMenu.0.url'],
      [item({ url: 'javascript:alert(1)' }), 'body.headerMenu.0.url'],
      [item({ url: '//evil.example/' }), 'body.headerMenu.0.url'],
      [item({ url: 'about' }), 'body.headerMenu.0.url'],
      [item({ url: '/a b' }), 'body.headerMenu.0.url'],
      [item({ url: 'https://user:pw@example.com/' }), 'body.headerMenu.0.url'],
      [item({ pageId: 'not-a-uuid' }), 'body.headerMenu.0.pageId'],
      [item({ url: '/a', target: '_blank' }), 'body.headerMenu.0'],
      [{ headerMenu: [{ label: '', url: '/a' }], footerMenu: [] }, 'body.headerMenu.0.label'],
      [{ headerMenu: [{ label: 'x'.repeat(101), url: '/a' }], footerMenu: [] }, 'body.headerMenu.0.label'],
      [item({ children: [{ label: 'Deep', url: '/a', children: [{ label: 'Deeper', url: '/b' }] }] }), 'body.headerMenu.0.children.0'],
      [item({ children: [{ label: 'No target' }] }), 'body.headerMenu.0.children.0.url'],
      [{ headerMenu: many, footerMenu: [] }, 'body.headerMenu'],
      [{ headerMenu: [], footerMenu: [], extra: [] }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await putNav(key, body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect((await res.json()).message, JSON.stringify(body).slice(0, 100)).toContain(field);
    }
  });

  it("keeps each clinic's menus apart", async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    await putNav(a.key, { headerMenu: [{ label: 'A only', url: '/a' }], footerMenu: [] });
    expect((await (await t.request(NAV, { key: b.key })).json()).data).toEqual({ headerMenu: [], footerMenu: [], updatedAt: null });
  });
});

describe('POST /api/v1/page-builder/upload-image', () => {
  it('stores the image under the clinic, records the upload and answers its url (201)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const res = await send(t, UPLOAD, { key, body: imageForm(IMAGES.png, { filename: 'hero.png', type: 'image/png' }) });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data.upload).toMatchObject({ contentType: 'image/png', sizeBytes: IMAGES.png.byteLength, purpose: 'page_image' });
    expect(data.upload.key).toMatch(new RegExp(`^clinics/${clinic.id}/page_image/${UUID}\\.png$`));
    expect(data.imageUrl).toBe(data.upload.url);
    const rows = await t.db.select().from(uploads).where(eq(uploads.clinicId, clinic.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: data.upload.id, objectKey: data.upload.key, purpose: 'page_image' });
    const stored = await t.storage.get(data.upload.key);
    expect(Buffer.from(stored!.bytes).equals(Buffer.from(IMAGES.png))).toBe(true);
  });

  it.each([
    ['svg', NOT_IMAGES.svg],
    ['text', NOT_IMAGES.text],
    ['html', NOT_IMAGES.html],
    ['empty', NOT_IMAGES.empty],
  ] as const)('refuses %s disguised as a PNG with 400 naming body.image, storing nothing', async (_name, bytes) => {
    const { clinic, key } = await makeTenant(t.db);
    const before = t.storage.objects.size;
    const res = await send(t, UPLOAD, { key, body: imageForm(bytes, { type: 'image/png', filename: 'photo.png' }) });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.errors[0].field).toBe('body.image');
    expect(t.storage.objects.size).toBe(before);
    expect(await t.db.$count(uploads, eq(uploads.clinicId, clinic.id))).toBe(0);
  });

  it('refuses an image over 5 MiB with 413 (and a declared Content-Length over it before reading), a JSON body with 415, a wrong field with 400', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
    big.set(IMAGES.png);
    const over = await send(t, UPLOAD, { key, body: imageForm(big) });
    expect(over.status).toBe(413);
    expect((await over.json()).code).toBe('PAYLOAD_TOO_LARGE');

    const request = new Request('http://x', { method: 'POST', body: imageForm(IMAGES.png) });
    const declared = await send(t, UPLOAD, {
      key,
      body: await request.arrayBuffer(),
      headers: { 'content-type': request.headers.get('content-type')!, 'content-length': String(6 * 1024 * 1024) },
    });
    expect(declared.status).toBe(413);

    const json = await send(t, UPLOAD, { key, body: '{"image":"x"}', headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(415);
    const wrongField = await send(t, UPLOAD, { key, body: imageForm(IMAGES.png, { field: 'file' }) });
    expect(wrongField.status).toBe(400);
    expect((await wrongField.json()).message).toContain('body.image');
    expect(await t.db.$count(uploads, eq(uploads.clinicId, clinic.id))).toBe(0);
  });

  it('needs the write scope', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await send(t, UPLOAD, { key: readOnly.raw, body: imageForm(IMAGES.png) });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});
