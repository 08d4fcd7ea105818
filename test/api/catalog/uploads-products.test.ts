// POST /api/v1/products/{id}/upload-image: multipart field image, or JSON { removeImage: true };
// only the clinic's own products.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { products, uploads } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { IMAGES, imageForm, NOT_IMAGES } from '../../helpers/images';
import { insertGlobalProduct, insertProduct, send } from './uploads-fixtures';

const t = useTestApp();

const path = (id: string) => `/api/v1/products/${id}/upload-image`;
const json = (body: unknown) => ({
  body: typeof body === 'string' ? body : JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});
const imageUrlOf = async (id: string) =>
  (await t.db.select({ imageUrl: products.imageUrl }).from(products).where(eq(products.id, id)))[0]!.imageUrl;

describe('POST /api/v1/products/{id}/upload-image', () => {
  it('stores a multipart image and sets the product imageUrl', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const product = await insertProduct(t.db, clinic.id);
    const res = await send(t, path(product.id), { key, body: imageForm(IMAGES.jpeg, { type: 'image/jpeg', filename: 'vial.jpg' }) });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      productId: product.id,
      upload: { contentType: 'image/jpeg', purpose: 'product_image', sizeBytes: IMAGES.jpeg.byteLength },
    });
    expect(data.upload.key).toMatch(new RegExp(`^clinics/${clinic.id}/product_image/[0-9a-f-]{36}\\.jpg$`));
    expect(data.imageUrl).toBe(data.upload.url);
    expect(await imageUrlOf(product.id)).toBe(data.imageUrl);
    const rows = await t.db.select().from(uploads).where(eq(uploads.clinicId, clinic.id));
    expect(rows.map((r) => [r.objectKey, r.purpose])).toEqual([[data.upload.key, 'product_image']]);
    expect((await t.storage.get(data.upload.key))?.contentType).toBe('image/jpeg');
  });

  it('clears the image with JSON { removeImage: true }', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const product = await insertProduct(t.db, clinic.id, { imageUrl: 'https://old.example.test/p.png' });
    const res = await send(t, path(product.id), { key, ...json({ removeImage: true }) });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ productId: product.id, imageUrl: null, upload: null });
    expect(await imageUrlOf(product.id)).toBeNull();
  });

  it('answers 400 for a body that is neither an image nor { removeImage: true }', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const product = await insertProduct(t.db, clinic.id, { imageUrl: 'https://old.example.test/p.png' });
    const cases: [string, Parameters<typeof send>[2], string][] = [
      ['removeImage false', { key, ...json({ removeImage: false }) }, 'body.removeImage'],
      ['removeImage as a string', { key, ...json({ removeImage: 'true' }) }, 'body.removeImage'],
      ['empty object', { key, ...json({}) }, 'body.removeImage'],
      ['an extra key', { key, ...json({ removeImage: true, imageUrl: 'x' }) }, 'body'],
      ['no body', { key }, 'image'],
      ['multipart without image', { key, body: imageForm(IMAGES.png, { field: 'file' }) }, 'body.image'],
      ['an SVG', { key, body: imageForm(NOT_IMAGES.svg, { type: 'image/png', filename: 'p.png' }) }, 'body.image'],
    ];
    for (const [label, options, field] of cases) {
      const res = await send(t, path(product.id), options);
      expect(res.status, label).toBe(400);
      const body = await res.json();
      expect(body.code, label).toBe('VALIDATION_ERROR');
      expect(body.message, label).toContain(field);
    }
    const invalid = await send(t, path(product.id), { key, ...json('{"removeImage":') });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).code).toBe('INVALID_JSON');
    expect(await imageUrlOf(product.id)).toBe('https://old.example.test/p.png');
  });

  it('answers 415 to a body that is neither multipart nor JSON', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const product = await insertProduct(t.db, clinic.id);
    const res = await send(t, path(product.id), { key, body: IMAGES.png, headers: { 'content-type': 'image/png' } });
    expect(res.status).toBe(415);
    expect((await res.json()).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it("answers the same 404 for another clinic's product, a shared global product, an unknown and a malformed id (both body forms)", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const theirs = await insertProduct(t.db, other.clinic.id, { imageUrl: 'https://theirs.example.test/p.png' });
    const shared = await insertGlobalProduct(t.db);
    const before = t.storage.objects.size;
    const expected = { success: false, message: 'Product not found', code: 'NOT_FOUND' };
    for (const id of [theirs.id, shared.id, '00000000-0000-0000-0000-000000000000', 'not-a-uuid']) {
      for (const options of [{ body: imageForm(IMAGES.png) }, json({ removeImage: true })]) {
        const res = await send(t, path(id), { key, ...options });
        expect(res.status, id).toBe(404);
        expect(await res.json()).toEqual(expected);
      }
    }
    expect(t.storage.objects.size).toBe(before);
    expect(await imageUrlOf(theirs.id)).toBe('https://theirs.example.test/p.png');
    expect(await t.db.select().from(uploads).where(eq(uploads.clinicId, clinic.id))).toEqual([]);
  });

  it('refuses a read-only key with 403 INSUFFICIENT_SCOPE, for both body forms', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const product = await insertProduct(t.db, clinic.id, { imageUrl: 'https://old.example.test/p.png' });
    for (const options of [{ body: imageForm(IMAGES.png) }, json({ removeImage: true })]) {
      const res = await send(t, path(product.id), { key: readOnly.raw, ...options });
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
    }
    expect(await imageUrlOf(product.id)).toBe('https://old.example.test/p.png');
  });
});
