// Treatments (legacy): the clinic's treatments, the brand's selections of them, and their logos.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { brandTreatments, treatments, uploads } from '../../../drizzle/schema';
import { MAX_IMAGE_BYTES } from '../../../src/modules/catalog/uploads/schemas';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { IMAGES, imageForm, NOT_IMAGES } from '../../helpers/images';
import { send } from '../catalog/uploads-fixtures';

const t = useTestApp();

const UNKNOWN = '00000000-0000-4000-8000-00000000abcd';

async function tenant() {
  const tenant = await makeTenant(t.db);
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, readKey: readOnly.raw };
}

const create = (key: string, body: unknown) => t.request('/api/v1/treatments', { key, body });

async function treatment(key: string, body: Record<string, unknown> = {}) {
  const res = await create(key, { name: 'Medical Weight Loss', description: 'GLP-1 programs', ...body });
  expect(res.status).toBe(201);
  return (await res.json()).data as { id: string; slug: string };
}

/** Two responses' bodies, for "another clinic's id answers exactly what an unknown id answers". */
async function sameBody(
  a: Promise<{ status: number; json(): Promise<unknown> }>,
  b: Promise<{ status: number; json(): Promise<unknown> }>,
) {
  const [ra, rb] = await Promise.all([a, b]);
  expect(ra.status).toBe(404);
  expect(rb.status).toBe(404);
  expect(await ra.json()).toEqual(await rb.json());
}

describe('POST /api/v1/treatments', () => {
  it('creates a treatment with a slug from its name, defaults, and the clinic slug (201)', async () => {
    const { clinic, key } = await tenant();
    const res = await create(key, {
      name: 'Médical  Weight-Loss!',
      description: 'GLP-1 programs',
      brandColor: '#2F6FED',
      productsPrice: 199.5,
    });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toMatchObject({
      name: 'Médical  Weight-Loss!',
      slug: 'medical-weight-loss',
      description: 'GLP-1 programs',
      selected: false,
      brandColor: '#2F6FED',
      brandLogo: null,
      clinicSlug: clinic.slug,
      productsPrice: 199.5,
      isActive: true,
    });
    const [row] = await t.db.select().from(treatments).where(eq(treatments.id, data.id));
    expect(row).toMatchObject({ clinicId: clinic.id, productsPriceCents: 19_950 });
  });

  it('suffixes the slug on a collision within the clinic, but not across clinics', async () => {
    const a = await tenant();
    const b = await tenant();
    expect((await treatment(a.key)).slug).toBe('medical-weight-loss');
    expect((await treatment(a.key)).slug).toBe('medical-weight-loss-2');
    expect((await treatment(a.key, { name: 'Medical weight loss' })).slug).toBe('medical-weight-loss-3');
    expect((await treatment(b.key)).slug).toBe('medical-weight-loss');
    expect((await treatment(a.key, { name: '!!!' })).slug).toBe('treatment');
  });

  it('refuses bad input with 400 naming the field', async () => {
    const { key } = await tenant();
    const cases: [unknown, string][] = [
      [{ description: 'x' }, 'body.name'],
      [{ name: '   ' }, 'body.name'],
      [{ name: 'x'.repeat(121) }, 'body.name'],
      [{ name: 'A', brandColor: 'blue' }, 'body.brandColor'],
      [{ name: 'A', productsPrice: 1.999 }, 'body.productsPrice'],
      [{ name: 'A', productsPrice: -1 }, 'body.productsPrice'],
      [{ name: 'A', slug: 'mine' }, 'body'],
      [{ name: 'a\u0000b' }, 'body.name'],
    ];
    for (const [body, field] of cases) {
      const res = await create(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = await res.json();
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.errors.map((e: { field: string }) => e.field).join(' ')).toContain(field);
    }
  });

  it('needs the write scope', async () => {
    const { readKey } = await tenant();
    expect((await (await create(readKey, { name: 'A' })).json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/treatments and /treatments/{id}', () => {
  it("lists only the clinic's treatments, oldest first, paged, with selected from the brand treatments", async () => {
    const { key, readKey } = await tenant();
    const other = await tenant();
    t.clock.freezeAt(Date.now());
    await treatment(other.key, { name: 'Other clinic' });
    const first = await treatment(key, { name: 'First' });
    t.clock.advance(1_000);
    const second = await treatment(key, { name: 'Second' });
    expect((await t.request('/api/v1/brand-treatments', { key, body: { treatmentId: second.id } })).status).toBe(201);
    const res = await t.request('/api/v1/treatments', { key: readKey });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.map((x: { id: string }) => x.id)).toEqual([first.id, second.id]);
    expect(body.data.map((x: { selected: boolean }) => x.selected)).toEqual([false, true]);
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });
    const page2 = await (await t.request('/api/v1/treatments?page=2&limit=1', { key })).json();
    expect(page2.data.map((x: { id: string }) => x.id)).toEqual([second.id]);
    expect(page2.pagination.total).toBe(2);
    const past = await (await t.request('/api/v1/treatments?page=9&limit=1', { key })).json();
    expect(past.data).toEqual([]);
    expect(past.pagination.total).toBe(2);
  });

  it("gets one treatment; another clinic's, an unknown and a malformed id answer the same 404", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const mine = await treatment(key);
    const theirs = await treatment(other.key);
    const res = await t.request(`/api/v1/treatments/${mine.id}`, { key });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ id: mine.id, slug: 'medical-weight-loss', selected: false });
    await sameBody(t.request(`/api/v1/treatments/${theirs.id}`, { key }), t.request(`/api/v1/treatments/${UNKNOWN}`, { key }));
    await sameBody(t.request('/api/v1/treatments/not-a-uuid', { key }), t.request(`/api/v1/treatments/${UNKNOWN}`, { key }));
  });
});

describe('reads make one query after the key lookup', () => {
  it('GET /treatments, /treatments/{id} and /brand-treatments', async () => {
    const { key } = await tenant();
    const mine = await treatment(key);
    await t.request('/api/v1/brand-treatments', { key, body: { treatmentId: mine.id } });
    for (const path of ['/api/v1/treatments', `/api/v1/treatments/${mine.id}`, '/api/v1/brand-treatments']) {
      await t.flush();
      t.forgetKeys(); // a cold key: the key lookup is counted
      t.queries.length = 0;
      expect((await t.request(path, { key })).status).toBe(200);
      await t.flush();
      expect(
        t.queries.filter((q) => !q.includes('"request_logs"')),
        path,
      ).toHaveLength(2);
    }
  });
});

describe('PUT /api/v1/treatments/{id}', () => {
  it('changes only the fields sent; the slug stays', async () => {
    const { key } = await tenant();
    const mine = await treatment(key, { brandColor: '#abc', productsPrice: 100 });
    const res = await t.request(`/api/v1/treatments/${mine.id}`, {
      key,
      method: 'PUT',
      body: { name: 'Weight Care', productsPrice: null, isActive: false },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({
      id: mine.id,
      name: 'Weight Care',
      slug: 'medical-weight-loss',
      brandColor: '#abc',
      productsPrice: null,
      isActive: false,
      description: 'GLP-1 programs',
    });
    const [row] = await t.db.select().from(treatments).where(eq(treatments.id, mine.id));
    expect(row).toMatchObject({ name: 'Weight Care', productsPriceCents: null, isActive: false });
  });

  it("refuses an empty body (400) and answers 404 for another clinic's treatment without changing it", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const mine = await treatment(key);
    const theirs = await treatment(other.key);
    expect((await t.request(`/api/v1/treatments/${mine.id}`, { key, method: 'PUT', body: {} })).status).toBe(400);
    await sameBody(
      t.request(`/api/v1/treatments/${theirs.id}`, { key, method: 'PUT', body: { name: 'Hijacked' } }),
      t.request(`/api/v1/treatments/${UNKNOWN}`, { key, method: 'PUT', body: { name: 'Hijacked' } }),
    );
    const [row] = await t.db.select().from(treatments).where(eq(treatments.id, theirs.id));
    expect(row!.name).toBe('Medical Weight Loss');
  });
});

describe('brand treatments', () => {
  it('adds (201), lists, refuses a second add (409) and removes (200, then 404)', async () => {
    const { clinic, key, readKey } = await tenant();
    const mine = await treatment(key, { brandColor: '#112233' });
    const added = await t.request('/api/v1/brand-treatments', { key, body: { treatmentId: mine.id } });
    expect(added.status).toBe(201);
    const { data } = await added.json();
    expect(data).toMatchObject({
      treatmentId: mine.id,
      name: 'Medical Weight Loss',
      treatmentLogo: null,
      active: true,
      selected: true,
      brandColor: '#112233',
      clinicSlug: clinic.slug,
      brandLogo: null,
    });

    const again = await t.request('/api/v1/brand-treatments', { key, body: { treatmentId: mine.id } });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('CONFLICT');

    const list = await (await t.request('/api/v1/brand-treatments', { key: readKey })).json();
    expect(list.data.map((x: { id: string }) => x.id)).toEqual([data.id]);
    expect(list.pagination.total).toBe(1);

    const removed = await t.request('/api/v1/brand-treatments', { key, method: 'DELETE', body: { treatmentId: mine.id } });
    expect(removed.status).toBe(200);
    expect((await removed.json()).data).toEqual({ treatmentId: mine.id, removed: true });
    expect(await t.db.select().from(brandTreatments).where(eq(brandTreatments.clinicId, clinic.id))).toEqual([]);
    expect((await (await t.request(`/api/v1/treatments/${mine.id}`, { key })).json()).data.selected).toBe(false);
    expect((await t.request('/api/v1/brand-treatments', { key, method: 'DELETE', body: { treatmentId: mine.id } })).status).toBe(404);
  });

  it('reactivates an inactive selection instead of refusing it', async () => {
    const { clinic, key } = await tenant();
    const mine = await treatment(key);
    await t.db.insert(brandTreatments).values({ clinicId: clinic.id, treatmentId: mine.id, isActive: false });
    expect((await (await t.request(`/api/v1/treatments/${mine.id}`, { key })).json()).data.selected).toBe(false);
    const res = await t.request('/api/v1/brand-treatments', { key, body: { treatmentId: mine.id } });
    expect(res.status).toBe(201);
    expect((await res.json()).data.selected).toBe(true);
  });

  it("answers 404 for another clinic's treatment (the same body as an unknown one), 400 for a malformed id", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await treatment(other.key);
    await sameBody(
      t.request('/api/v1/brand-treatments', { key, body: { treatmentId: theirs.id } }),
      t.request('/api/v1/brand-treatments', { key, body: { treatmentId: UNKNOWN } }),
    );
    // Selected by its own clinic: another clinic cannot remove it.
    expect((await t.request('/api/v1/brand-treatments', { key: other.key, body: { treatmentId: theirs.id } })).status).toBe(201);
    await sameBody(
      t.request('/api/v1/brand-treatments', { key, method: 'DELETE', body: { treatmentId: theirs.id } }),
      t.request('/api/v1/brand-treatments', { key, method: 'DELETE', body: { treatmentId: UNKNOWN } }),
    );
    expect((await (await t.request(`/api/v1/treatments/${theirs.id}`, { key: other.key })).json()).data.selected).toBe(true);
    const bad = await t.request('/api/v1/brand-treatments', { key, body: { treatmentId: 'nope' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors[0].field).toBe('body.treatmentId');
    expect((await t.request('/api/v1/brand-treatments', { key, method: 'DELETE', body: {} })).status).toBe(400);
  });
});

describe('POST /api/v1/treatment/{id}/upload-logo', () => {
  const path = (id: string) => `/api/v1/treatment/${id}/upload-logo`;
  const logoForm = (bytes: Uint8Array, extra: Record<string, string> = {}) => imageForm(bytes, { field: 'logo', extra });

  it('stores the logo under the clinic and sets brandLogo', async () => {
    const { clinic, key } = await tenant();
    const mine = await treatment(key);
    const res = await send(t, path(mine.id), { key, body: logoForm(IMAGES.png) });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.treatmentId).toBe(mine.id);
    expect(data.upload).toMatchObject({ contentType: 'image/png', purpose: 'treatment_logo', sizeBytes: IMAGES.png.byteLength });
    expect(data.upload.key).toMatch(new RegExp(`^clinics/${clinic.id}/treatment_logo/.+\\.png$`));
    expect(data.logoUrl).toBe(data.upload.url);
    expect((await t.storage.get(data.upload.key))?.contentType).toBe('image/png');
    const got = await (await t.request(`/api/v1/treatments/${mine.id}`, { key })).json();
    expect(got.data.brandLogo).toBe(data.logoUrl);
    // The brand treatment shows it as its treatment logo.
    await t.request('/api/v1/brand-treatments', { key, body: { treatmentId: mine.id } });
    expect((await (await t.request('/api/v1/brand-treatments', { key })).json()).data[0].treatmentLogo).toBe(data.logoUrl);
  });

  it('clears the logo with removeLogo=true as a form field or as the query', async () => {
    const { key } = await tenant();
    const mine = await treatment(key);
    for (const request of [
      () =>
        send(t, path(mine.id), {
          key,
          body: (() => {
            const f = new FormData();
            f.append('removeLogo', 'true');
            return f;
          })(),
        }),
      () => send(t, `${path(mine.id)}?removeLogo=true`, { key }),
    ]) {
      await send(t, path(mine.id), { key, body: logoForm(IMAGES.gif) });
      expect((await (await t.request(`/api/v1/treatments/${mine.id}`, { key })).json()).data.brandLogo).not.toBeNull();
      const res = await request();
      expect(res.status).toBe(200);
      expect((await res.json()).data).toEqual({ treatmentId: mine.id, logoUrl: null, upload: null });
      expect((await (await t.request(`/api/v1/treatments/${mine.id}`, { key })).json()).data.brandLogo).toBeNull();
    }
  });

  it('refuses a logo with removeLogo=true, a request with neither, and removeLogo=false alone (400)', async () => {
    const { clinic, key } = await tenant();
    const mine = await treatment(key);
    for (const res of [
      await send(t, path(mine.id), { key, body: logoForm(IMAGES.png, { removeLogo: 'true' }) }),
      await send(t, `${path(mine.id)}?removeLogo=true`, { key, body: logoForm(IMAGES.png) }),
      await send(t, path(mine.id), { key }),
      await send(t, `${path(mine.id)}?removeLogo=false`, { key }),
      await send(t, `${path(mine.id)}?removeLogo=yes`, { key }),
    ]) {
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe('VALIDATION_ERROR');
    }
    expect(await t.db.select().from(uploads).where(eq(uploads.clinicId, clinic.id))).toEqual([]);
  });

  it.each(Object.entries(NOT_IMAGES))('refuses %s with 400 naming body.logo, storing nothing', async (_name, bytes) => {
    const { clinic, key } = await tenant();
    const mine = await treatment(key);
    const before = t.storage.objects.size;
    const res = await send(t, path(mine.id), { key, body: imageForm(bytes, { field: 'logo', type: 'image/png', filename: 'logo.png' }) });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.errors[0].field).toBe('body.logo');
    expect(t.storage.objects.size).toBe(before);
    expect(await t.db.select().from(uploads).where(eq(uploads.clinicId, clinic.id))).toEqual([]);
  });

  it('refuses a logo over 5 MiB with 413 (declared length and actual size), storing nothing', async () => {
    const { clinic, key } = await tenant();
    const mine = await treatment(key);
    const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
    big.set(IMAGES.png);
    const res = await send(t, path(mine.id), { key, body: logoForm(big) });
    expect(res.status).toBe(413);
    expect((await res.json()).code).toBe('PAYLOAD_TOO_LARGE');
    const declared = await send(t, path(mine.id), {
      key,
      body: logoForm(IMAGES.png),
      headers: { 'content-length': String(MAX_IMAGE_BYTES * 2) },
    });
    expect(declared.status).toBe(413);
    expect(await t.db.select().from(uploads).where(eq(uploads.clinicId, clinic.id))).toEqual([]);
  });

  it('answers 415 to JSON, an extra form field is 400, a text logo is 400', async () => {
    const { key } = await tenant();
    const mine = await treatment(key);
    const json = await send(t, path(mine.id), { key, body: '{"removeLogo":true}', headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(415);
    expect((await json.json()).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await send(t, path(mine.id), { key, body: logoForm(IMAGES.png, { caption: 'x' }) })).status).toBe(400);
    const text = new FormData();
    text.append('logo', 'not a file');
    const res = await send(t, path(mine.id), { key, body: text });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].field).toBe('body.logo');
  });

  it("answers 404 for another clinic's or an unknown treatment (same body), storing nothing; 403 for a read-only key", async () => {
    const { clinic, key, readKey } = await tenant();
    const other = await tenant();
    const theirs = await treatment(other.key);
    const before = t.storage.objects.size;
    const a = await send(t, path(theirs.id), { key, body: logoForm(IMAGES.png) });
    const b = await send(t, path(UNKNOWN), { key, body: logoForm(IMAGES.png) });
    const c = await send(t, `${path(theirs.id)}?removeLogo=true`, { key });
    expect([a.status, b.status, c.status]).toEqual([404, 404, 404]);
    const bodyA = await a.json();
    expect(bodyA).toEqual(await b.json());
    expect(bodyA).toEqual(await c.json());
    expect(t.storage.objects.size).toBe(before);
    expect(await t.db.select().from(uploads).where(eq(uploads.clinicId, clinic.id))).toEqual([]);
    const readOnly = await send(t, path(theirs.id), { key: readKey, body: logoForm(IMAGES.png) });
    expect((await readOnly.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});
