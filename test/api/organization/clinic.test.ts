// The clinic profile, its slug and its logo (docs/organization.md, "Clinic").
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { clinics, uploads } from '../../../drizzle/schema';
import { MAX_IMAGE_BYTES } from '../../../src/modules/catalog/uploads/schemas';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { IMAGES, imageForm, NOT_IMAGES } from '../../helpers/images';
import { send } from '../catalog/uploads-fixtures';

const t = useTestApp();

const UNKNOWN = '00000000-0000-4000-8000-00000000abcd';
const update = (key: string, id: string, body: unknown) => t.request(`/api/v1/clinic/${id}`, { key, method: 'PUT', body });
const checkSlug = (key: string, slug: string) => t.request(`/api/v1/clinic/check-slug/${slug}`, { key });
const slug = () => `brand-${crypto.randomUUID().slice(0, 8)}`;
const logoForm = (bytes: Uint8Array, extra?: Record<string, string>) =>
  imageForm(bytes, { field: 'logo', type: 'image/png', filename: 'logo.png', extra });

describe('GET /api/v1/clinic', () => {
  it('answers the clinic profile from explicit fields', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const res = await t.request('/api/v1/clinic', { key });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      id: clinic.id,
      name: clinic.name,
      slug: clinic.slug,
      mode: 'live',
      isActive: true,
      logoUrl: null,
      description: null,
      primaryColor: null,
      contactEmail: null,
      contactPhone: null,
      customDomain: null,
      sandboxExpiresAt: null,
      createdAt: clinic.createdAt.toISOString(),
      updatedAt: clinic.updatedAt.toISOString(),
    });
  });

  it('shows a sandbox clinic its window', async () => {
    const { clinic, key } = await makeTenant(t.db, { mode: 'sandbox' });
    const { data } = await (await t.request('/api/v1/clinic', { key })).json();
    expect(data).toMatchObject({ mode: 'sandbox', sandboxExpiresAt: clinic.sandboxExpiresAt!.toISOString() });
  });
});

describe('PUT /api/v1/clinic/{id}', () => {
  it('updates only the fields sent, normalizing color, email and phone', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const newSlug = slug();
    const res = await update(key, clinic.id, {
      name: ' Brand Health ',
      slug: newSlug,
      description: 'Weight care\nfor everyone',
      primaryColor: '#0f7',
      contactEmail: 'Hello@BrandHealth.com',
      contactPhone: '(415) 555-0123',
    });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      id: clinic.id,
      name: 'Brand Health',
      slug: newSlug,
      description: 'Weight care\nfor everyone',
      primaryColor: '#00FF77',
      contactEmail: 'hello@brandhealth.com',
      contactPhone: '+14155550123',
    });
    const partial = await update(key, clinic.id, { description: null, primaryColor: '#0F766E' });
    expect((await partial.json()).data).toMatchObject({ name: 'Brand Health', slug: newSlug, description: null, primaryColor: '#0F766E' });
    const [row] = await t.db.select().from(clinics).where(eq(clinics.id, clinic.id));
    expect(row).toMatchObject({ slug: newSlug, contactPhone: '+14155550123', description: null });
  });

  it("answers the same 404 for another clinic's id, an unknown id and a malformed id, changing nothing", async () => {
    const { key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const bodies = [];
    for (const id of [other.clinic.id, UNKNOWN, 'not-a-uuid']) {
      const res = await update(key, id, { name: 'Hijacked' });
      expect(res.status, id).toBe(404);
      bodies.push(await res.json());
    }
    expect(bodies[0]).toEqual(bodies[1]);
    expect(bodies[1]).toEqual(bodies[2]);
    expect(bodies[0].message).toBe('Clinic not found');
    const [row] = await t.db.select().from(clinics).where(eq(clinics.id, other.clinic.id));
    expect(row!.name).toBe(other.clinic.name);
  });

  it('refuses a slug another clinic has, or a reserved one, with 409; its own slug is fine', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const taken = await update(key, clinic.id, { slug: other.clinic.slug });
    expect(taken.status).toBe(409);
    expect((await taken.json()).code).toBe('CONFLICT');
    const reserved = await update(key, clinic.id, { slug: 'admin' });
    expect(reserved.status).toBe(409);
    expect((await update(key, clinic.id, { slug: clinic.slug })).status).toBe(200);
  });

  it('validates strictly: formats, unknown fields, an empty body', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const cases: [unknown, string][] = [
      [{ slug: 'Has-Caps' }, 'body.slug'],
      [{ slug: 'ab' }, 'body.slug'],
      [{ slug: '-brand' }, 'body.slug'],
      [{ slug: 'brand--x' }, 'body.slug'],
      [{ slug: 'brand_x' }, 'body.slug'],
      [{ slug: 'x'.repeat(64) }, 'body.slug'],
      [{ name: '' }, 'body.name'],
      [{ name: 'x'.repeat(101) }, 'body.name'],
      [{ primaryColor: 'teal' }, 'body.primaryColor'],
      [{ primaryColor: '#12345' }, 'body.primaryColor'],
      [{ contactEmail: 'nope' }, 'body.contactEmail'],
      [{ contactPhone: '555' }, 'body.contactPhone'],
      [{ logoUrl: 'https://x.test/l.png' }, 'body'],
      [{ mode: 'live' }, 'body'],
      [{}, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await update(key, clinic.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message, JSON.stringify(body)).toContain(field);
    }
  });

  it('needs the write scope', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await update(readOnly.raw, clinic.id, { name: 'X' })).status).toBe(403);
  });
});

describe('GET /api/v1/clinic/check-slug/{slug}', () => {
  it('answers { success, available } at top level: free true, taken false, own true, reserved false', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const free = await checkSlug(key, slug());
    expect(free.status).toBe(200);
    const body = await free.json();
    expect(body).toMatchObject({ success: true, available: true });
    expect(body.data).toBeUndefined();
    expect((await (await checkSlug(key, other.clinic.slug)).json()).available).toBe(false);
    expect((await (await checkSlug(key, clinic.slug)).json()).available).toBe(true);
    expect((await (await checkSlug(other.key, clinic.slug)).json()).available).toBe(false);
    expect((await (await checkSlug(key, 'www')).json()).available).toBe(false);
  });

  it('answers 400 for a slug that is not well-formed', async () => {
    const { key } = await makeTenant(t.db);
    for (const bad of ['Has-Caps', 'ab', 'brand--x', '-x-brand', 'brand_x', 'x'.repeat(64), '%00abc', 'caf%C3%A9']) {
      const res = await checkSlug(key, bad);
      expect(res.status, bad).toBe(400);
      expect((await res.json()).code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('clinic logo uploads', () => {
  const routes = [(id: string) => `/api/v1/clinic/${id}/upload-logo`, () => '/api/v1/upload/logo'];

  it.each([0, 1])('route %i stores the logo and sets clinics.logo_url (the path id is ignored)', async (which) => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const res = await send(t, routes[which]!(other.clinic.id), { key, body: logoForm(IMAGES.png) });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      clinicId: clinic.id,
      logoUrl: data.upload.url,
      upload: { purpose: 'clinic_logo', contentType: 'image/png', sizeBytes: IMAGES.png.byteLength },
    });
    expect(data.upload.key).toMatch(new RegExp(`^clinics/${clinic.id}/clinic_logo/[0-9a-f-]{36}\\.png$`));
    expect(t.storage.objects.has(data.upload.key)).toBe(true);
    const [mine] = await t.db.select().from(clinics).where(eq(clinics.id, clinic.id));
    expect(mine!.logoUrl).toBe(data.logoUrl);
    const [theirs] = await t.db.select().from(clinics).where(eq(clinics.id, other.clinic.id));
    expect(theirs!.logoUrl).toBeNull();
    expect((await (await t.request('/api/v1/clinic', { key })).json()).data.logoUrl).toBe(data.logoUrl);
  });

  it('takes the type from the bytes: a GIF named logo.svg is stored as a GIF', async () => {
    const { key } = await makeTenant(t.db);
    const res = await send(t, '/api/v1/upload/logo', {
      key,
      body: imageForm(IMAGES.gif, { field: 'logo', type: 'image/svg+xml', filename: 'logo.svg' }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data.upload).toMatchObject({ contentType: 'image/gif', key: expect.stringMatching(/\.gif$/) });
  });

  it.each(Object.entries(NOT_IMAGES))('refuses %s with 400 naming body.logo, storing nothing', async (_name, bytes) => {
    const { clinic, key } = await makeTenant(t.db);
    const before = t.storage.objects.size;
    const res = await send(t, '/api/v1/upload/logo', { key, body: logoForm(bytes) });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].field).toBe('body.logo');
    expect(t.storage.objects.size).toBe(before);
    expect(await t.db.select().from(uploads).where(eq(uploads.clinicId, clinic.id))).toEqual([]);
  });

  it('refuses a logo over 5 MiB with 413 (actual size and declared length), storing nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
    big.set(IMAGES.png);
    for (const path of ['/api/v1/upload/logo', `/api/v1/clinic/${clinic.id}/upload-logo`]) {
      const res = await send(t, path, { key, body: logoForm(big) });
      expect(res.status, path).toBe(413);
      expect((await res.json()).code).toBe('PAYLOAD_TOO_LARGE');
      const declared = await send(t, path, { key, body: logoForm(IMAGES.png), headers: { 'content-length': String(MAX_IMAGE_BYTES * 2) } });
      expect(declared.status, path).toBe(413);
    }
    expect(await t.db.select().from(uploads).where(eq(uploads.clinicId, clinic.id))).toEqual([]);
    const [row] = await t.db.select().from(clinics).where(eq(clinics.id, clinic.id));
    expect(row!.logoUrl).toBeNull();
  });

  it('answers 415 to JSON; a missing logo, a text logo or an extra field is 400; a read key is 403', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const json = await send(t, '/api/v1/upload/logo', { key, body: '{}', headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(415);
    expect((await send(t, '/api/v1/upload/logo', { key, body: logoForm(IMAGES.png, { caption: 'x' }) })).status).toBe(400);
    expect((await send(t, '/api/v1/upload/logo', { key, body: imageForm(IMAGES.png) })).status).toBe(400);
    const text = new FormData();
    text.append('logo', 'not a file');
    const res = await send(t, '/api/v1/upload/logo', { key, body: text });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].field).toBe('body.logo');
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await send(t, '/api/v1/upload/logo', { key: readOnly.raw, body: logoForm(IMAGES.png) })).status).toBe(403);
  });
});
