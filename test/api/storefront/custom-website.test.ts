// Custom website: settings (defaults, save as upsert, validation of colors and social links), the
// toggle and resets changing only what they name, logo and hero uploads, the logo proxy (headers,
// 304, 404) and tenant isolation.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { customWebsites, uploads } from '../../../drizzle/schema';
import { MAX_IMAGE_BYTES } from '../../../src/modules/catalog/uploads/schemas';
import { WEBSITE_DEFAULTS } from '../../../src/modules/storefront/custom-website/schemas';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { IMAGES, imageForm, NOT_IMAGES } from '../../helpers/images';
import { send } from '../catalog/uploads-fixtures';

const t = useTestApp();

const SITE = '/api/v1/custom-website';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

const DEFAULTS = {
  isActive: false,
  heroTitle: null,
  heroSubtitle: null,
  heroPrimaryButtonText: 'Get started',
  primaryColor: '#2563EB',
  footerColor: '#111827',
  footerText: null,
  socialMediaLinks: {},
  logoUrl: null,
  heroImageUrl: null,
  isSaved: false,
  updatedAt: null,
};

const FULL = {
  isActive: true,
  heroTitle: 'Feel like yourself again',
  heroSubtitle: 'Doctor-led care,\ndelivered.',
  heroPrimaryButtonText: 'Start your visit',
  primaryColor: '#0f766e',
  footerColor: '#abc',
  footerText: '© Demo Clinic',
  socialMediaLinks: { instagram: 'https://www.instagram.com/demo', x: 'https://x.com/demo', youtube: 'https://youtu.be/abc' },
};

const save = (key: string, body: unknown) => t.request(SITE, { key, body });
const current = async (key: string) => (await (await t.request(SITE, { key })).json()).data;

describe('GET /api/v1/custom-website', () => {
  it('answers the defaults when nothing was saved, with a read key', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await t.request(SITE, { key: readOnly.raw });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual(DEFAULTS);
    expect(DEFAULTS.primaryColor).toBe(WEBSITE_DEFAULTS.primaryColor);
  });
});

describe('POST /api/v1/custom-website', () => {
  it('creates the settings on the first save and afterwards changes only the fields sent', async () => {
    const { key, clinic } = await makeTenant(t.db);
    const first = await save(key, FULL);
    expect(first.status).toBe(200);
    const data = (await first.json()).data;
    expect(data).toEqual({
      ...FULL,
      primaryColor: '#0F766E',
      footerColor: '#ABC',
      logoUrl: null,
      heroImageUrl: null,
      isSaved: true,
      updatedAt: expect.any(String),
    });
    expect(await current(key)).toEqual(data);

    const second = (await (await save(key, { heroTitle: null, socialMediaLinks: { facebook: 'https://facebook.com/demo' } })).json()).data;
    expect(second).toEqual({
      ...data,
      heroTitle: null,
      socialMediaLinks: { facebook: 'https://facebook.com/demo' },
      updatedAt: expect.any(String),
    });
    expect(await t.db.$count(customWebsites, eq(customWebsites.clinicId, clinic.id))).toBe(1);

    // A first save of one field: the others take their defaults.
    const other = await makeTenant(t.db);
    expect((await (await save(other.key, { footerColor: '#000000' })).json()).data).toEqual({
      ...DEFAULTS,
      footerColor: '#000000',
      isSaved: true,
      updatedAt: expect.any(String),
    });
  });

  it('refuses bad colors, social links and fields with 400 naming the field', async () => {
    const { key, clinic } = await makeTenant(t.db);
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ footerColor: 'red' }, 'body.footerColor'],
      [{ footerColor: '#12345' }, 'body.footerColor'],
      [{ footerColor: '#GGGGGG' }, 'body.footerColor'],
      [{ primaryColor: '123456' }, 'body.primaryColor'],
      [{ primaryColor: null }, 'body.primaryColor'],
      [{ footerColor: '#1234567' }, 'body.footerColor'],
      [{ isActive: 'true' }, 'body.isActive'],
      [{ heroPrimaryButtonText: '' }, 'body.heroPrimaryButtonText'],
      [{ heroPrimaryButtonText: 'x'.repeat(41) }, 'body.heroPrimaryButtonText'],
      [{ heroTitle: 'a\u0000b' }, 'body.heroTitle'],
      [{ socialMediaLinks: { myspace: 'https://myspace.com/demo' } }, 'body.socialMediaLinks'],
      [{ socialMediaLinks: { instagram: 'http://instagram.com/demo' } }, 'body.socialMediaLinks.instagram'],
      [{ socialMediaLinks: { instagram: 'instagram.com/demo' } }, 'body.socialMediaLinks.instagram'],
      [{ socialMediaLinks: { instagram: 'https://evil.example/instagram.com' } }, 'body.socialMediaLinks.instagram'],
      [{ socialMediaLinks: { facebook: 'https://notfacebook.com/demo' } }, 'body.socialMediaLinks.facebook'],
      [{ socialMediaLinks: { x: 'javascript:alert(1)' } }, 'body.socialMediaLinks.x'],
      [{ socialMediaLinks: { x: 42 } }, 'body.socialMediaLinks.x'],
      [{ socialMediaLinks: ['https://x.com/a'] }, 'body.socialMediaLinks'],
      [{ logoUrl: 'https://cdn.example.com/logo.png' }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await save(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const json = await res.json();
      expect(json.code).toBe('VALIDATION_ERROR');
      expect(json.message, JSON.stringify(body)).toContain(field);
    }
    expect(await t.db.$count(customWebsites, eq(customWebsites.clinicId, clinic.id))).toBe(0);
  });

  it('accepts subdomains of the networks and every documented network', async () => {
    const { key } = await makeTenant(t.db);
    const links = {
      facebook: 'https://m.facebook.com/demo',
      instagram: 'https://instagram.com/demo',
      x: 'https://twitter.com/demo',
      tiktok: 'https://www.tiktok.com/@demo',
      youtube: 'https://www.youtube.com/@demo',
      linkedin: 'https://www.linkedin.com/company/demo',
      pinterest: 'https://pin.it/demo',
      threads: 'https://www.threads.net/@demo',
    };
    const res = await save(key, { socialMediaLinks: links });
    expect(res.status).toBe(200);
    expect((await res.json()).data.socialMediaLinks).toEqual(links);
  });

  it('needs the write scope', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await save(readOnly.raw, { isActive: true });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('toggle-active and the resets change only what they name', () => {
  async function saved() {
    const tenant = await makeTenant(t.db);
    const data = (await (await save(tenant.key, FULL)).json()).data;
    return { ...tenant, before: data };
  }
  const without = (data: Record<string, unknown>, ...keys: string[]) => {
    const copy = { ...data };
    for (const key of ['updatedAt', ...keys]) delete copy[key];
    return copy;
  };

  it('toggle-active changes isActive only', async () => {
    const { key, before } = await saved();
    const off = await t.request(`${SITE}/toggle-active`, { key, body: { isActive: false } });
    expect(off.status).toBe(200);
    const data = (await off.json()).data;
    expect(data.isActive).toBe(false);
    expect(without(data, 'isActive')).toEqual(without(before, 'isActive'));
    expect((await (await t.request(`${SITE}/toggle-active`, { key, body: { isActive: true } })).json()).data.isActive).toBe(true);
    for (const body of [{}, { isActive: 'yes' }, { isActive: true, footerColor: '#000' }]) {
      expect((await t.request(`${SITE}/toggle-active`, { key, body })).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('reset-footer puts footerColor and footerText back to their defaults only', async () => {
    const { key, before } = await saved();
    const res = await t.request(`${SITE}/reset-footer`, { key, method: 'POST' });
    expect(res.status).toBe(200);
    const data = (await res.json()).data;
    expect(data).toMatchObject({ footerColor: DEFAULTS.footerColor, footerText: null });
    expect(without(data, 'footerColor', 'footerText')).toEqual(without(before, 'footerColor', 'footerText'));
  });

  it('reset-social-media clears the links only', async () => {
    const { key, before, clinic } = await saved();
    const res = await t.request(`${SITE}/reset-social-media`, { key, method: 'POST' });
    expect(res.status).toBe(200);
    const data = (await res.json()).data;
    expect(data.socialMediaLinks).toEqual({});
    expect(without(data, 'socialMediaLinks')).toEqual(without(before, 'socialMediaLinks'));
    const [row] = await t.db
      .select({ links: customWebsites.socialMediaLinks })
      .from(customWebsites)
      .where(eq(customWebsites.clinicId, clinic.id));
    expect(row!.links).toEqual({});
  });

  it('on a clinic that never saved, each creates the settings with the defaults plus its own change', async () => {
    const a = await makeTenant(t.db);
    expect((await (await t.request(`${SITE}/toggle-active`, { key: a.key, body: { isActive: true } })).json()).data).toEqual({
      ...DEFAULTS,
      isActive: true,
      isSaved: true,
      updatedAt: expect.any(String),
    });
    const b = await makeTenant(t.db);
    expect((await (await t.request(`${SITE}/reset-footer`, { key: b.key, method: 'POST' })).json()).data).toEqual({
      ...DEFAULTS,
      isSaved: true,
      updatedAt: expect.any(String),
    });
  });

  it("never touches another clinic's settings", async () => {
    const a = await saved();
    const b = await makeTenant(t.db);
    await t.request(`${SITE}/toggle-active`, { key: b.key, body: { isActive: false } });
    await t.request(`${SITE}/reset-footer`, { key: b.key, method: 'POST' });
    await t.request(`${SITE}/reset-social-media`, { key: b.key, method: 'POST' });
    await save(b.key, { heroTitle: 'B' });
    expect(await current(a.key)).toEqual(a.before);
    expect((await current(b.key)).heroTitle).toBe('B');
  });
});

describe('POST /api/v1/custom-website/upload-logo and upload-hero', () => {
  it('stores the logo, points the website at it, and replaces it on the next upload', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await save(key, { heroTitle: 'Kept' });
    const res = await send(t, `${SITE}/upload-logo`, { key, body: imageForm(IMAGES.png, { field: 'logo', filename: 'logo.png' }) });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.upload).toMatchObject({ contentType: 'image/png', purpose: 'website_logo', sizeBytes: IMAGES.png.byteLength });
    expect(data.upload.key).toMatch(new RegExp(`^clinics/${clinic.id}/website_logo/${UUID}\\.png$`));
    expect(data.logoUrl).toBe(data.upload.url);
    expect(await current(key)).toMatchObject({ logoUrl: data.logoUrl, heroTitle: 'Kept', heroImageUrl: null });
    const [row] = await t.db.select().from(customWebsites).where(eq(customWebsites.clinicId, clinic.id));
    expect(row!.logoUploadId).toBe(data.upload.id);

    const next = (await (await send(t, `${SITE}/upload-logo`, { key, body: imageForm(IMAGES.jpeg, { field: 'logo' }) })).json()).data;
    expect(next.upload.contentType).toBe('image/jpeg');
    expect((await current(key)).logoUrl).toBe(next.logoUrl);
    expect(await t.db.$count(uploads, eq(uploads.clinicId, clinic.id))).toBe(2);
  });

  it('stores the hero image on a clinic that never saved (the other settings take their defaults)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const res = await send(t, `${SITE}/upload-hero`, { key, body: imageForm(IMAGES.webp, { field: 'heroImage' }) });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.upload).toMatchObject({ contentType: 'image/webp', purpose: 'website_hero' });
    expect(data.upload.key).toMatch(new RegExp(`^clinics/${clinic.id}/website_hero/${UUID}\\.webp$`));
    expect(await current(key)).toEqual({ ...DEFAULTS, heroImageUrl: data.heroImageUrl, isSaved: true, updatedAt: expect.any(String) });
  });

  it.each([
    ['upload-logo', 'logo'],
    ['upload-hero', 'heroImage'],
  ] as const)(
    '%s refuses SVG and text disguised as PNG (400 naming body.%s), oversize (413), the wrong field (400) and JSON (415), storing nothing',
    async (path, field) => {
      const { clinic, key } = await makeTenant(t.db);
      const before = t.storage.objects.size;
      for (const bytes of [NOT_IMAGES.svg, NOT_IMAGES.svgWithXmlDeclaration, NOT_IMAGES.text]) {
        const res = await send(t, `${SITE}/${path}`, { key, body: imageForm(bytes, { field, type: 'image/png', filename: 'logo.png' }) });
        expect(res.status).toBe(400);
        const body = await res.json();
        expect(body.errors).toEqual([{ field: `body.${field}`, message: expect.stringContaining('PNG, JPEG, WebP or GIF') }]);
        expect(body.message).toContain(`body.${field}`);
      }
      const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
      big.set(IMAGES.png);
      const over = await send(t, `${SITE}/${path}`, { key, body: imageForm(big, { field }) });
      expect(over.status).toBe(413);
      expect((await over.json()).code).toBe('PAYLOAD_TOO_LARGE');
      const wrong = await send(t, `${SITE}/${path}`, { key, body: imageForm(IMAGES.png, { field: 'image' }) });
      expect(wrong.status).toBe(400);
      expect((await wrong.json()).message).toContain(`body.${field}`);
      const json = await send(t, `${SITE}/${path}`, { key, body: '{}', headers: { 'content-type': 'application/json' } });
      expect(json.status).toBe(415);
      expect(t.storage.objects.size).toBe(before);
      expect(await t.db.$count(uploads, eq(uploads.clinicId, clinic.id))).toBe(0);
      expect(await t.db.$count(customWebsites, eq(customWebsites.clinicId, clinic.id))).toBe(0);
    },
  );

  it('needs the write scope', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await send(t, `${SITE}/upload-logo`, { key: readOnly.raw, body: imageForm(IMAGES.png, { field: 'logo' }) });
    expect(res.status).toBe(403);
  });
});

describe('GET /api/v1/custom-website/logo-proxy', () => {
  const proxy = (key: string, headers: Record<string, string> = {}) => send(t, `${SITE}/logo-proxy`, { key, method: 'GET', headers });

  it('streams the stored logo bytes with Content-Type, Content-Length, ETag and Cache-Control; 304 on a matching If-None-Match', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const uploaded = (await (await send(t, `${SITE}/upload-logo`, { key, body: imageForm(IMAGES.gif, { field: 'logo' }) })).json()).data;

    const res = await proxy(readOnly.raw);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(res.headers.get('content-length')).toBe(String(IMAGES.gif.byteLength));
    expect(res.headers.get('cache-control')).toBe('private, max-age=300');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(res.headers.get('last-modified')).toBe(new Date(uploaded.upload.createdAt).toUTCString());
    const etag = res.headers.get('etag')!;
    expect(etag).toBe(`"${uploaded.upload.id}"`);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(IMAGES.gif))).toBe(true);

    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const cached = await proxy(key, { 'if-none-match': header });
      expect(cached.status, header).toBe(304);
      expect(cached.headers.get('etag')).toBe(etag);
      expect(cached.headers.get('cache-control')).toBe('private, max-age=300');
      expect(cached.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(await cached.text()).toBe('');
    }
    expect((await proxy(key, { 'if-none-match': '"something-else"' })).status).toBe(200);

    // A new logo: the old ETag no longer matches and the new bytes come back.
    await send(t, `${SITE}/upload-logo`, { key, body: imageForm(IMAGES.png, { field: 'logo' }) });
    const fresh = await proxy(key, { 'if-none-match': etag });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('content-type')).toBe('image/png');
    expect(fresh.headers.get('etag')).not.toBe(etag);
    expect(Buffer.from(await fresh.arrayBuffer()).equals(Buffer.from(IMAGES.png))).toBe(true);
  });

  it('serves a polyglot (a GIF that is also HTML with a script) sandboxed, so its script can never run', async () => {
    const { key } = await makeTenant(t.db);
    const script = new TextEncoder().encode('<html><body><script>alert(document.domain)</script></body></html>');
    const polyglot = new Uint8Array([...IMAGES.gif, ...script]);
    const upload = await send(t, `${SITE}/upload-logo`, { key, body: imageForm(polyglot, { field: 'logo', filename: 'logo.gif' }) });
    expect(upload.status).toBe(200);
    const res = await proxy(key);
    expect(res.status).toBe(200);
    // Declared an image, never sniffed as HTML, and even opened as a document: no script, no origin.
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(polyglot))).toBe(true);
  });

  it('answers 404 without a website, without a logo, and when the stored file is missing', async () => {
    const notFound = { success: false, message: 'Logo not found', code: 'NOT_FOUND' };
    const none = await makeTenant(t.db);
    const res = await proxy(none.key);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(notFound);

    const noLogo = await makeTenant(t.db);
    await save(noLogo.key, { heroTitle: 'No logo yet' });
    await send(t, `${SITE}/upload-hero`, { key: noLogo.key, body: imageForm(IMAGES.png, { field: 'heroImage' }) });
    expect(await (await proxy(noLogo.key)).json()).toEqual(notFound);

    const missing = await makeTenant(t.db);
    const uploaded = (
      await (await send(t, `${SITE}/upload-logo`, { key: missing.key, body: imageForm(IMAGES.png, { field: 'logo' }) })).json()
    ).data;
    await t.storage.delete(uploaded.upload.key);
    const gone = await proxy(missing.key);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual(notFound);
  });

  it("never serves another clinic's logo", async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    await send(t, `${SITE}/upload-logo`, { key: a.key, body: imageForm(IMAGES.png, { field: 'logo' }) });
    expect((await proxy(b.key)).status).toBe(404);
    expect((await current(b.key)).logoUrl).toBeNull();
    expect((await proxy(a.key)).status).toBe(200);
  });

  it('declares the binary response and the 304 in the OpenAPI document', async () => {
    const doc = await (await t.request('/api/v1/openapi.json')).json();
    const operation = doc.paths['/api/v1/custom-website/logo-proxy'].get;
    expect(Object.keys(operation.responses[200].content).sort()).toEqual(['image/gif', 'image/jpeg', 'image/png', 'image/webp']);
    expect(operation.responses[200].content['image/png'].schema).toMatchObject({ type: 'string', format: 'binary' });
    expect(Object.keys(operation.responses[200].headers)).toEqual(expect.arrayContaining(['ETag', 'Cache-Control', 'Content-Length']));
    expect(operation.responses[304]).toBeDefined();
    expect(operation.responses[404].content['application/json']).toBeDefined();
  });
});
