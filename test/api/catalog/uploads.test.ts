// POST /api/v1/programs/{id}/upload-image and POST /api/v1/global-products/{id}/upload-image: images
// only (type from the bytes), the size limit, storage + uploads row + target row, tenant isolation.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { globalProductImageOverrides, globalProducts, programs, uploads } from '../../../drizzle/schema';
import { MAX_IMAGE_BYTES } from '../../../src/modules/catalog/uploads/schemas';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { IMAGES, imageForm, NOT_IMAGES } from '../../helpers/images';
import { insertGlobalProduct, insertProgram, send } from './uploads-fixtures';

const t = useTestApp();

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const programPath = (id: string) => `/api/v1/programs/${id}/upload-image`;
const globalPath = (id: string) => `/api/v1/global-products/${id}/upload-image`;

async function uploadRows(clinicId: string) {
  return t.db.select().from(uploads).where(eq(uploads.clinicId, clinicId));
}

/** A PNG of exactly `size` bytes: the real 1×1 PNG, padded (the signature is what is checked). */
function pngOfSize(size: number) {
  const bytes = new Uint8Array(size);
  bytes.set(IMAGES.png);
  return bytes;
}

describe('POST /api/v1/programs/{id}/upload-image', () => {
  it('stores a PNG under the clinic, sets heroImageUrl, records the upload and answers the stored image', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await insertProgram(t.db, clinic.id);
    const res = await send(t, programPath(program.id), { key, body: imageForm(IMAGES.png, { filename: 'cover.png', type: 'image/png' }) });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    const keyPattern = new RegExp(`^clinics/${clinic.id}/program_image/${UUID}\\.png$`);
    expect(data.programId).toBe(program.id);
    expect(data.upload).toMatchObject({ contentType: 'image/png', sizeBytes: IMAGES.png.byteLength, purpose: 'program_image' });
    expect(data.upload.key).toMatch(keyPattern);
    expect(data.upload.url).toBe(`/uploads/${data.upload.key}`);
    expect(data.imageUrl).toBe(data.upload.url);

    const [row] = await t.db.select().from(programs).where(eq(programs.id, program.id));
    expect(row!.heroImageUrl).toBe(data.imageUrl);
    const [upload] = await uploadRows(clinic.id);
    expect(upload).toMatchObject({
      id: data.upload.id,
      objectKey: data.upload.key,
      contentType: 'image/png',
      sizeBytes: IMAGES.png.byteLength,
      purpose: 'program_image',
    });
    const stored = await t.storage.get(data.upload.key);
    expect(stored?.contentType).toBe('image/png');
    expect(Buffer.from(stored!.bytes).equals(Buffer.from(IMAGES.png))).toBe(true);
  });

  it.each([
    ['jpeg', IMAGES.jpeg, 'image/jpeg', 'jpg'],
    ['gif', IMAGES.gif, 'image/gif', 'gif'],
    ['webp', IMAGES.webp, 'image/webp', 'webp'],
  ] as const)('accepts %s and stores it with its real type and extension', async (_name, bytes, contentType, extension) => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await insertProgram(t.db, clinic.id);
    const res = await send(t, programPath(program.id), { key, body: imageForm(bytes) });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.upload.contentType).toBe(contentType);
    expect(data.upload.key.endsWith(`.${extension}`)).toBe(true);
    expect((await t.storage.get(data.upload.key))?.contentType).toBe(contentType);
  });

  it('goes by the bytes, not the declared type or file name', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await insertProgram(t.db, clinic.id);
    // A GIF sent as image/svg+xml named logo.svg is stored as the GIF it is.
    const res = await send(t, programPath(program.id), {
      key,
      body: imageForm(IMAGES.gif, { type: 'image/svg+xml', filename: 'logo.svg' }),
    });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.upload.contentType).toBe('image/gif');
    expect(data.upload.key).toMatch(/\.gif$/);
  });

  it.each(Object.entries(NOT_IMAGES))('refuses %s with 400 naming body.image, storing nothing', async (_name, bytes) => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await insertProgram(t.db, clinic.id, { heroImageUrl: 'https://old.example.test/cover.png' });
    const before = t.storage.objects.size;
    // Declared as a PNG with a .png name: neither matters.
    const res = await send(t, programPath(program.id), { key, body: imageForm(bytes, { type: 'image/png', filename: 'cover.png' }) });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.errors[0].field).toBe('body.image');
    expect(body.message).toContain('body.image');
    expect(t.storage.objects.size).toBe(before);
    expect(await uploadRows(clinic.id)).toEqual([]);
    const [row] = await t.db.select().from(programs).where(eq(programs.id, program.id));
    expect(row!.heroImageUrl).toBe('https://old.example.test/cover.png');
  });

  it('refuses a body without the image field, a text value in it, two files, or an extra field (400 naming the field)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await insertProgram(t.db, clinic.id);
    const cases: [FormData, string][] = [];
    cases.push([imageForm(IMAGES.png, { field: 'file' }), 'body.image']);
    const text = new FormData();
    text.append('image', 'not a file');
    cases.push([text, 'body.image']);
    const two = imageForm(IMAGES.png);
    two.append('image', new Blob([IMAGES.png]), 'second.png');
    cases.push([two, 'body.image']);
    cases.push([imageForm(IMAGES.png, { extra: { caption: 'hello' } }), 'body']);
    for (const [form, field] of cases) {
      const res = await send(t, programPath(program.id), { key, body: form });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.errors.map((e: { field: string }) => e.field).join(' ')).toContain(field);
    }
    expect(await uploadRows(clinic.id)).toEqual([]);
  });

  it('answers 415 to a JSON or text body', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await insertProgram(t.db, clinic.id);
    for (const [contentType, body] of [
      ['application/json', '{"image":"x"}'],
      ['text/plain', 'hello'],
      ['image/png', IMAGES.png],
    ] as const) {
      const res = await send(t, programPath(program.id), { key, body, headers: { 'content-type': contentType } });
      expect(res.status, contentType).toBe(415);
      expect((await res.json()).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it(`accepts an image of exactly ${MAX_IMAGE_BYTES} bytes and refuses one byte more with 413`, async () => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await insertProgram(t.db, clinic.id);
    const atLimit = await send(t, programPath(program.id), { key, body: imageForm(pngOfSize(MAX_IMAGE_BYTES)) });
    expect(atLimit.status).toBe(200);
    expect((await atLimit.json()).data.upload.sizeBytes).toBe(MAX_IMAGE_BYTES);

    const before = t.storage.objects.size;
    const over = await send(t, programPath(program.id), { key, body: imageForm(pngOfSize(MAX_IMAGE_BYTES + 1)) });
    expect(over.status).toBe(413);
    expect((await over.json()).code).toBe('PAYLOAD_TOO_LARGE');
    expect(t.storage.objects.size).toBe(before);
    expect(await uploadRows(clinic.id)).toHaveLength(1);
  });

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await insertProgram(t.db, clinic.id);
    // The body itself is a tiny valid image; the declared length alone decides.
    const request = new Request('http://x', { method: 'POST', body: imageForm(IMAGES.png) });
    const contentType = request.headers.get('content-type')!;
    const res = await send(t, programPath(program.id), {
      key,
      body: await request.arrayBuffer(),
      headers: { 'content-type': contentType, 'content-length': String(6 * 1024 * 1024) },
    });
    expect(res.status).toBe(413);
    expect((await res.json()).code).toBe('PAYLOAD_TOO_LARGE');
    expect(await uploadRows(clinic.id)).toEqual([]);
  });

  it("answers the same 404 for another clinic's program, an unknown id and a malformed id, storing nothing", async () => {
    const { key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const theirs = await insertProgram(t.db, other.clinic.id, { heroImageUrl: null });
    const before = t.storage.objects.size;
    const bodies = [];
    for (const id of [theirs.id, '00000000-0000-0000-0000-000000000000', 'not-a-uuid']) {
      const res = await send(t, programPath(id), { key, body: imageForm(IMAGES.png) });
      expect(res.status, id).toBe(404);
      bodies.push(await res.json());
    }
    expect(bodies[0]).toEqual({ success: false, message: 'Program not found', code: 'NOT_FOUND' });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    expect(t.storage.objects.size).toBe(before);
    const [row] = await t.db.select().from(programs).where(eq(programs.id, theirs.id));
    expect(row!.heroImageUrl).toBeNull();
    expect(await uploadRows(other.clinic.id)).toEqual([]);
  });

  it('refuses a read-only key with 403 INSUFFICIENT_SCOPE', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const program = await insertProgram(t.db, clinic.id);
    const res = await send(t, programPath(program.id), { key: readOnly.raw, body: imageForm(IMAGES.png) });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });

  it('replaces the image on a second upload, keeping both stored objects (docs/uploads.md)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await insertProgram(t.db, clinic.id);
    const first = (await (await send(t, programPath(program.id), { key, body: imageForm(IMAGES.png) })).json()).data;
    const second = (await (await send(t, programPath(program.id), { key, body: imageForm(IMAGES.jpeg) })).json()).data;
    expect(second.upload.key).not.toBe(first.upload.key);
    const [row] = await t.db.select().from(programs).where(eq(programs.id, program.id));
    expect(row!.heroImageUrl).toBe(second.imageUrl);
    expect(await uploadRows(clinic.id)).toHaveLength(2);
    expect(await t.storage.get(first.upload.key)).not.toBeNull();
  });
});

describe('POST /api/v1/global-products/{id}/upload-image', () => {
  it('stores a brand-scoped override and never changes the shared global product', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const product = await insertGlobalProduct(t.db);
    const [before] = await t.db.select().from(globalProducts).where(eq(globalProducts.id, product.id));

    const res = await send(t, globalPath(product.id), { key, body: imageForm(IMAGES.webp) });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ globalProductId: product.id, upload: { contentType: 'image/webp', purpose: 'global_product_image' } });
    expect(data.upload.key).toMatch(new RegExp(`^clinics/${clinic.id}/global_product_image/${UUID}\\.webp$`));
    expect(data.imageUrl).toBe(data.upload.url);

    const [after] = await t.db.select().from(globalProducts).where(eq(globalProducts.id, product.id));
    expect(after).toEqual(before);
    const overrides = await t.db
      .select()
      .from(globalProductImageOverrides)
      .where(eq(globalProductImageOverrides.globalProductId, product.id));
    expect(overrides).toHaveLength(1);
    expect(overrides[0]).toMatchObject({ clinicId: clinic.id, imageUrl: data.imageUrl });
    expect((await uploadRows(clinic.id)).map((u) => u.objectKey)).toEqual([data.upload.key]);
  });

  it("replaces the clinic's override on the next upload and leaves another clinic's alone", async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    const product = await insertGlobalProduct(t.db);
    const first = (await (await send(t, globalPath(product.id), { key: a.key, body: imageForm(IMAGES.png) })).json()).data;
    const theirs = (await (await send(t, globalPath(product.id), { key: b.key, body: imageForm(IMAGES.gif) })).json()).data;
    const second = (await (await send(t, globalPath(product.id), { key: a.key, body: imageForm(IMAGES.jpeg) })).json()).data;
    expect(second.imageUrl).not.toBe(first.imageUrl);

    const overrideOf = async (clinicId: string) =>
      t.db
        .select({ imageUrl: globalProductImageOverrides.imageUrl })
        .from(globalProductImageOverrides)
        .where(and(eq(globalProductImageOverrides.clinicId, clinicId), eq(globalProductImageOverrides.globalProductId, product.id)));
    expect(await overrideOf(a.clinic.id)).toEqual([{ imageUrl: second.imageUrl }]);
    expect(await overrideOf(b.clinic.id)).toEqual([{ imageUrl: theirs.imageUrl }]);
    const [shared] = await t.db.select({ imageUrl: globalProducts.imageUrl }).from(globalProducts).where(eq(globalProducts.id, product.id));
    expect(shared!.imageUrl).toBe('https://images.example.test/shared.png');
  });

  it('answers the same 404 for an unknown and a malformed id, storing nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const before = t.storage.objects.size;
    const bodies = [];
    for (const id of ['00000000-0000-0000-0000-000000000000', 'not-a-uuid', 'x'.repeat(300)]) {
      const res = await send(t, globalPath(id), { key, body: imageForm(IMAGES.png) });
      expect(res.status, id).toBe(404);
      bodies.push(await res.json());
    }
    expect(bodies[0]).toEqual({ success: false, message: 'Global product not found', code: 'NOT_FOUND' });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    expect(t.storage.objects.size).toBe(before);
    expect(await uploadRows(clinic.id)).toEqual([]);
  });

  it('refuses an SVG (400), a JSON body (415) and a read-only key (403), changing nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const product = await insertGlobalProduct(t.db);
    const svg = await send(t, globalPath(product.id), {
      key,
      body: imageForm(NOT_IMAGES.svg, { type: 'image/svg+xml', filename: 'x.svg' }),
    });
    expect(svg.status).toBe(400);
    expect((await svg.json()).errors[0].field).toBe('body.image');
    const json = await send(t, globalPath(product.id), { key, body: '{}', headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(415);
    const scope = await send(t, globalPath(product.id), { key: readOnly.raw, body: imageForm(IMAGES.png) });
    expect(scope.status).toBe(403);
    expect((await scope.json()).code).toBe('INSUFFICIENT_SCOPE');
    expect(await t.db.select().from(globalProductImageOverrides).where(eq(globalProductImageOverrides.clinicId, clinic.id))).toEqual([]);
    expect(await uploadRows(clinic.id)).toEqual([]);
  });

  it('refuses an image over the limit with 413', async () => {
    const { key } = await makeTenant(t.db);
    const product = await insertGlobalProduct(t.db);
    const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
    big.set(IMAGES.jpeg);
    const res = await send(t, globalPath(product.id), { key, body: imageForm(big) });
    expect(res.status).toBe(413);
  });
});
