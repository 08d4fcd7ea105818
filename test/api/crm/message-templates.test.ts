// Message templates: create/list/get/update/delete/duplicate/upload-image, merge fields, versions,
// soft delete, tenant isolation (docs/crm-sequences.md).
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messageTemplates, sequenceSteps, sequences, uploads } from '../../../drizzle/schema';
import { MAX_IMAGE_BYTES } from '../../../src/modules/catalog/uploads/schemas';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { IMAGES, imageForm, NOT_IMAGES } from '../../helpers/images';
import { countStatements } from '../../helpers/statements';
import { send } from '../catalog/uploads-fixtures';

const t = useTestApp();
const BASE = '/api/v1/message-templates';

const email = {
  name: 'Welcome',
  type: 'email',
  subject: 'Welcome to {{clinicName}}, {{firstName}}',
  body: '<p>Hi {{ firstName }} {{lastName}}, your email is {{email}}. See you at {{clinicName}}. {{firstName}}</p>',
};
const sms = { name: 'Reminder', type: 'sms', body: 'Hi {{firstName}}, reply STOP to opt out. {{clinicName}}' };

async function tenant() {
  const tenant = await makeTenant(t.db);
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, readKey: readOnly.raw };
}

async function create(key: string, body: unknown = email) {
  const res = await t.request(BASE, { key, body });
  expect(res.status, JSON.stringify(body)).toBe(201);
  return (await res.json()).data;
}

const put = (key: string, id: string, body: unknown) => t.request(`${BASE}/${id}`, { key, method: 'PUT', body });

const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

/** A sequence of the clinic in `status` whose one step uses the template. */
async function sequenceUsing(
  clinicId: string,
  templateId: string,
  type: 'email' | 'sms',
  status: 'draft' | 'active' | 'paused' | 'archived',
) {
  const [seq] = await t.db
    .insert(sequences)
    .values({ clinicId, name: `Uses ${status}`, status, triggerEvent: 'manual' })
    .returning();
  await t.db.insert(sequenceSteps).values({ clinicId, sequenceId: seq!.id, position: 0, type, templateId });
  return seq!;
}

describe('POST /api/v1/message-templates', () => {
  it('creates an email template: version 1, mergeFields from subject then body (unique, in order), createdBy null', async () => {
    const { key, clinic } = await tenant();
    const res = await t.request(BASE, { key, body: { ...email, description: 'First touch', category: 'onboarding' } });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toMatchObject({
      clinicId: clinic.id,
      name: 'Welcome',
      type: 'email',
      subject: email.subject,
      body: email.body,
      description: 'First touch',
      category: 'onboarding',
      isActive: true,
      version: 1,
      createdBy: null,
      mergeFields: ['clinicName', 'firstName', 'lastName', 'email'],
    });
    const [row] = await t.db.select().from(messageTemplates).where(eq(messageTemplates.id, data.id));
    expect(row).toMatchObject({
      createdBy: null,
      version: 1,
      deletedAt: null,
      mergeFields: ['clinicName', 'firstName', 'lastName', 'email'],
    });
  });

  it('creates an sms template without a subject; no tokens means no merge fields', async () => {
    const { key } = await tenant();
    expect(await create(key, sms)).toMatchObject({ type: 'sms', subject: null, mergeFields: ['firstName', 'clinicName'] });
    expect((await create(key, { ...sms, body: 'Plain { {x}} { x } {x}' })).mergeFields).toEqual([]);
    // Double braces hold a merge field or nothing: anything else is a template expression, refused.
    for (const body of ['Plain {{ }}', 'Plain {{1abc}}']) {
      expect((await t.request(BASE, { key, body: { ...sms, body } })).status, body).toBe(400);
    }
  });

  it('refuses bad input with 400 naming the field', async () => {
    const { key } = await tenant();
    const cases: [unknown, string][] = [
      [{ ...email, subject: undefined }, 'body.subject'],
      [{ ...email, subject: null }, 'body.subject'],
      [{ ...sms, subject: 'Hello' }, 'body.subject'],
      [{ ...sms, body: 'x'.repeat(1_601) }, 'body.body'],
      [{ ...email, body: 'x'.repeat(50_001) }, 'body.body'],
      [{ ...email, body: '' }, 'body.body'],
      [{ ...email, name: '' }, 'body.name'],
      [{ ...email, name: 'x'.repeat(201) }, 'body.name'],
      [{ ...email, type: 'push' }, 'body.type'],
      [{ ...email, subject: 'a\nb' }, 'body.subject'],
      [{ ...email, body: 'a\u0000b' }, 'body.body'],
      [{ ...email, isActive: 'yes' }, 'body.isActive'],
      [{ ...email, version: 5 }, 'body'],
      [{ ...email, createdBy: randomUUID() }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request(BASE, { key, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const json = await res.json();
      expect(json.code).toBe('VALIDATION_ERROR');
      expect(json.message, JSON.stringify(body).slice(0, 80)).toContain(field);
    }
  });

  it('needs the write scope', async () => {
    const { readKey } = await tenant();
    const res = await t.request(BASE, { key: readKey, body: email });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/message-templates', () => {
  it("lists the clinic's templates newest first, without deleted ones or other clinics', paged, in one query", async () => {
    const { key, readKey } = await tenant();
    t.clock.freezeAt(Date.now());
    const first = await create(key, { ...email, name: 'First' });
    t.clock.advance(1_000);
    const second = await create(key, { ...sms, name: 'Second' });
    t.clock.advance(1_000);
    const third = await create(key, { ...email, name: 'Third' });
    expect((await t.request(`${BASE}/${second.id}`, { key, method: 'DELETE' })).status).toBe(200);
    const other = await tenant();
    await create(other.key, { ...email, name: 'Theirs' });

    const res = await t.request(BASE, { key: readKey });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.map((x: { id: string }) => x.id)).toEqual([third.id, first.id]);
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });

    const paged = await (await t.request(`${BASE}?limit=1&page=2`, { key })).json();
    expect(paged.data.map((x: { id: string }) => x.id)).toEqual([first.id]);
    expect(paged.pagination.total).toBe(2);
    const past = await (await t.request(`${BASE}?limit=1&page=5`, { key })).json();
    expect(past).toMatchObject({ data: [], pagination: { total: 2 } });

    const smsOnly = await (await t.request(`${BASE}?type=sms`, { key })).json();
    expect(smsOnly.data).toEqual([]);
    const emailOnly = await (await t.request(`${BASE}?type=email`, { key })).json();
    expect(emailOnly.data).toHaveLength(2);
    expect((await t.request(`${BASE}?type=push`, { key })).status).toBe(400);
    expect(await statements(() => t.request(BASE, { key }))).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/message-templates/{id}', () => {
  it("answers the template; another clinic's, an unknown, a malformed and a deleted id answer the same 404", async () => {
    const { key } = await tenant();
    const mine = await create(key);
    const got = await t.request(`${BASE}/${mine.id}`, { key });
    expect(got.status).toBe(200);
    expect((await got.json()).data).toEqual(mine);
    expect(await statements(() => t.request(`${BASE}/${mine.id}`, { key }))).toEqual({ status: 200, count: 2 });

    const other = await tenant();
    const theirs = await create(other.key);
    const deleted = await create(key);
    await t.request(`${BASE}/${deleted.id}`, { key, method: 'DELETE' });
    const bodies = [];
    for (const id of [theirs.id, randomUUID(), 'not-a-uuid', deleted.id]) {
      const miss = await t.request(`${BASE}/${id}`, { key });
      expect(miss.status, id).toBe(404);
      bodies.push(await miss.json());
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]).toEqual({ success: false, message: 'Message template not found', code: 'NOT_FOUND' });
  });
});

describe('PUT /api/v1/message-templates/{id}', () => {
  it('updates only the fields sent, moves version up by one on every update and derives mergeFields again', async () => {
    const { key } = await tenant();
    const created = await create(key);
    const r1 = await put(key, created.id, { body: 'Hello {{lastName}} and {{ customField }}' });
    expect(r1.status).toBe(200);
    const v2 = (await r1.json()).data;
    expect(v2).toMatchObject({ version: 2, name: 'Welcome', subject: email.subject, body: 'Hello {{lastName}} and {{ customField }}' });
    expect(v2.mergeFields).toEqual(['clinicName', 'firstName', 'lastName', 'customField']);

    const v3 = (await (await put(key, created.id, { name: 'Renamed', description: null, category: 'c', isActive: false })).json()).data;
    expect(v3).toMatchObject({
      version: 3,
      name: 'Renamed',
      description: null,
      category: 'c',
      isActive: false,
      mergeFields: v2.mergeFields,
    });
    const v4 = (await (await put(key, created.id, { subject: 'No tokens' })).json()).data;
    expect(v4).toMatchObject({ version: 4, mergeFields: ['lastName', 'customField'] });
    // Same values again still count as an update.
    const v5 = (await (await put(key, created.id, { subject: 'No tokens' })).json()).data;
    expect(v5.version).toBe(5);
    const [row] = await t.db.select().from(messageTemplates).where(eq(messageTemplates.id, created.id));
    expect(row!.version).toBe(5);
  });

  it('gives concurrent updates each their own version', async () => {
    const { key } = await tenant();
    const created = await create(key);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => put(key, created.id, { name: `N${i}` })));
    const versions = await Promise.all(results.map(async (r) => (await r.json()).data.version));
    expect(versions.sort()).toEqual([2, 3, 4, 5, 6]);
  });

  it('validates the merged template: email needs a subject, sms has none and a short body', async () => {
    const { key } = await tenant();
    const mail = await create(key);
    const text = await create(key, sms);
    const cases: [string, unknown, string][] = [
      [mail.id, { subject: null }, 'body.subject'],
      [text.id, { subject: 'Hi' }, 'body.subject'],
      [text.id, { body: 'x'.repeat(1_601) }, 'body.body'],
      [text.id, { type: 'email' }, 'body.subject'],
      [mail.id, { type: 'sms', subject: 'keep' }, 'body.subject'],
      [mail.id, {}, 'body'],
      [mail.id, { unknown: 1 }, 'body'],
      [mail.id, { name: '' }, 'body.name'],
    ];
    for (const [id, body, field] of cases) {
      const res = await put(key, id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message, JSON.stringify(body)).toContain(field);
    }
    // Nothing changed.
    expect((await (await t.request(`${BASE}/${mail.id}`, { key })).json()).data.version).toBe(1);
  });

  it('changes the type when no step uses the template (to sms the subject is cleared; to email one is needed)', async () => {
    const { key } = await tenant();
    const mail = await create(key);
    const asSms = (await (await put(key, mail.id, { type: 'sms', body: 'Hi {{firstName}}' })).json()).data;
    expect(asSms).toMatchObject({ type: 'sms', subject: null, version: 2, mergeFields: ['firstName'] });
    const back = (await (await put(key, mail.id, { type: 'email', subject: 'Back {{email}}' })).json()).data;
    expect(back).toMatchObject({ type: 'email', subject: 'Back {{email}}', mergeFields: ['email', 'firstName'] });
  });

  it('refuses a type change with 409 while any sequence step uses the template', async () => {
    const { key, clinic } = await tenant();
    const mail = await create(key);
    await sequenceUsing(clinic.id, mail.id, 'email', 'draft');
    // (An HTML body is no SMS body: the change sends a plain-text one, or it is a 400 before the 409.)
    const res = await put(key, mail.id, { type: 'sms', body: 'Hi {{firstName}}' });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('CONFLICT');
    expect((await put(key, mail.id, { body: 'still editable' })).status).toBe(200);
  });

  it("answers 404 for another clinic's, an unknown and a deleted template, changing nothing", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await create(other.key);
    const deleted = await create(key);
    await t.request(`${BASE}/${deleted.id}`, { key, method: 'DELETE' });
    for (const id of [theirs.id, randomUUID(), 'nope', deleted.id]) {
      expect((await put(key, id, { name: 'Mine now' })).status, id).toBe(404);
    }
    const [row] = await t.db.select().from(messageTemplates).where(eq(messageTemplates.id, theirs.id));
    expect(row).toMatchObject({ name: 'Welcome', version: 1 });
  });
});

describe('DELETE /api/v1/message-templates/{id}', () => {
  it('soft-deletes: the row stays with deletedAt, and list, get, put, delete and duplicate answer 404 afterwards', async () => {
    const { key } = await tenant();
    const created = await create(key);
    const at = Math.floor(Date.now() / 1000) * 1000 + 60_000;
    t.clock.freezeAt(at);
    const res = await t.request(`${BASE}/${created.id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ id: created.id, deleted: true });
    const [row] = await t.db.select().from(messageTemplates).where(eq(messageTemplates.id, created.id));
    expect(row!.deletedAt?.getTime()).toBe(at);

    expect((await (await t.request(BASE, { key })).json()).data).toEqual([]);
    expect((await t.request(`${BASE}/${created.id}`, { key })).status).toBe(404);
    expect((await put(key, created.id, { name: 'x' })).status).toBe(404);
    expect((await t.request(`${BASE}/${created.id}`, { key, method: 'DELETE' })).status).toBe(404);
    expect((await t.request(`${BASE}/${created.id}/duplicate`, { key, method: 'POST' })).status).toBe(404);
  });

  it('refuses with 409 while a step of an active or paused sequence uses the template; draft and archived ones do not block', async () => {
    const { key, clinic } = await tenant();
    for (const status of ['active', 'paused'] as const) {
      const mail = await create(key);
      const seq = await sequenceUsing(clinic.id, mail.id, 'email', status);
      const res = await t.request(`${BASE}/${mail.id}`, { key, method: 'DELETE' });
      expect(res.status, status).toBe(409);
      const body = await res.json();
      expect(body.code).toBe('CONFLICT');
      expect(body.message).toContain(seq.id);
      expect((await t.request(`${BASE}/${mail.id}`, { key })).status).toBe(200);
    }
    for (const status of ['draft', 'archived'] as const) {
      const mail = await create(key);
      await sequenceUsing(clinic.id, mail.id, 'email', status);
      expect((await t.request(`${BASE}/${mail.id}`, { key, method: 'DELETE' })).status, status).toBe(200);
    }
  });

  it("answers 404 for another clinic's template and leaves it alone; needs the write scope", async () => {
    const { key, readKey } = await tenant();
    const other = await tenant();
    const theirs = await create(other.key);
    expect((await t.request(`${BASE}/${theirs.id}`, { key, method: 'DELETE' })).status).toBe(404);
    expect((await t.request(`${BASE}/${theirs.id}`, { key: other.key })).status).toBe(200);
    const mine = await create(key);
    const res = await t.request(`${BASE}/${mine.id}`, { key: readKey, method: 'DELETE' });
    expect(res.status).toBe(403);
  });
});

describe('a body stored before the markup rule (docs/api-conventions.md, "Markup in stored fields")', () => {
  it('is not copied by duplicate, and blocks updates until the body is corrected (400 naming body)', async () => {
    const { key, clinic } = await tenant();
    const created = await create(key);
    // Written behind the API's back, as a row saved before the rule was.
    await t.db
      .update(messageTemplates)
      .set({ body: '<p>Hi</p><style>@import url(https://evil.example/x.css)</style>' })
      .where(eq(messageTemplates.id, created.id));
    const dup = await t.request(`${BASE}/${created.id}/duplicate`, { key, method: 'POST' });
    expect(dup.status).toBe(400);
    expect((await dup.json()).errors).toEqual([
      { field: 'body', message: expect.stringMatching(/<style> element.*update the template before duplicating it$/) },
    ]);
    expect(await t.db.$count(messageTemplates, eq(messageTemplates.clinicId, clinic.id))).toBe(1);

    const rename = await put(key, created.id, { name: 'Renamed' });
    expect(rename.status).toBe(400);
    expect((await rename.json()).errors).toEqual([{ field: 'body.body', message: expect.stringContaining('<style> element') }]);
    const fixed = await put(key, created.id, { name: 'Renamed', body: '<p>Hi</p>' });
    expect(fixed.status).toBe(200);
    expect((await t.request(`${BASE}/${created.id}/duplicate`, { key, method: 'POST' })).status).toBe(201);
  });
});

describe('POST /api/v1/message-templates/{id}/duplicate', () => {
  it('copies the template as "<name> (copy)", version 1, createdBy null, with its own id', async () => {
    const { key, clinic } = await tenant();
    const created = await create(key, { ...email, category: 'onboarding', description: 'd' });
    await put(key, created.id, { body: 'Edited {{firstName}}' });
    await put(key, created.id, { isActive: false });
    const res = await t.request(`${BASE}/${created.id}/duplicate`, { key, method: 'POST' });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data.id).not.toBe(created.id);
    expect(data).toMatchObject({
      clinicId: clinic.id,
      name: 'Welcome (copy)',
      type: 'email',
      subject: email.subject,
      body: 'Edited {{firstName}}',
      category: 'onboarding',
      description: 'd',
      isActive: false,
      version: 1,
      createdBy: null,
      mergeFields: ['clinicName', 'firstName'],
    });
    const list = await (await t.request(BASE, { key })).json();
    expect(list.data).toHaveLength(2);
    // A copy of a copy.
    const again = await (await t.request(`${BASE}/${data.id}/duplicate`, { key, method: 'POST' })).json();
    expect(again.data.name).toBe('Welcome (copy) (copy)');
  });

  it('cuts a long name so the copy still fits 200 characters', async () => {
    const { key } = await tenant();
    const created = await create(key, { ...sms, name: 'n'.repeat(200) });
    const { data } = await (await t.request(`${BASE}/${created.id}/duplicate`, { key, method: 'POST' })).json();
    expect(data.name).toBe(`${'n'.repeat(193)} (copy)`);
    expect(data.name).toHaveLength(200);
    expect((await put(key, data.id, { name: data.name })).status).toBe(200);
  });

  it("answers 404 for another clinic's or an unknown template and 403 without write", async () => {
    const { key, readKey } = await tenant();
    const other = await tenant();
    const theirs = await create(other.key);
    for (const id of [theirs.id, randomUUID(), 'x']) {
      expect((await t.request(`${BASE}/${id}/duplicate`, { key, method: 'POST' })).status, id).toBe(404);
    }
    const mine = await create(key);
    expect((await t.request(`${BASE}/${mine.id}/duplicate`, { key: readKey, method: 'POST' })).status).toBe(403);
    const rows = await t.db.select().from(messageTemplates).where(eq(messageTemplates.clinicId, other.clinic.id));
    expect(rows).toHaveLength(1);
  });
});

describe('POST /api/v1/message-templates/upload-image', () => {
  const path = `${BASE}/upload-image`;

  it('stores the image under the clinic (purpose template_image) and answers its url for embedding', async () => {
    const { key, clinic } = await tenant();
    const res = await send(t, path, { key, body: imageForm(IMAGES.png, { filename: 'logo.png', type: 'image/png' }) });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data.upload).toMatchObject({ contentType: 'image/png', purpose: 'template_image', sizeBytes: IMAGES.png.byteLength });
    expect(data.upload.key).toMatch(new RegExp(`^clinics/${clinic.id}/template_image/[0-9a-f-]{36}\\.png$`));
    expect(data.url).toBe(data.upload.url);
    const stored = await t.storage.get(data.upload.key);
    expect(Buffer.from(stored!.bytes).equals(Buffer.from(IMAGES.png))).toBe(true);
    const rows = await t.db
      .select()
      .from(uploads)
      .where(and(eq(uploads.clinicId, clinic.id), eq(uploads.purpose, 'template_image')));
    expect(rows.map((r) => r.id)).toEqual([data.upload.id]);
    // The url can be embedded in a template.
    const template = await create(key, { ...email, body: `<img src="${data.url}"> Hi {{firstName}}` });
    expect(template.body).toContain(data.url);
  });

  it('refuses what is not an image (400), a missing field (400), a body over 5 MiB (413), JSON (4xx), and a read-only key (403)', async () => {
    const { key, readKey, clinic } = await tenant();
    for (const bytes of [NOT_IMAGES.svg, NOT_IMAGES.text, NOT_IMAGES.empty]) {
      const res = await send(t, path, { key, body: imageForm(bytes) });
      expect(res.status).toBe(400);
      expect((await res.json()).message).toContain('body.image');
    }
    expect((await send(t, path, { key, body: imageForm(IMAGES.png, { field: 'file' }) })).status).toBe(400);
    const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
    big.set(IMAGES.png);
    const tooBig = await send(t, path, { key, body: imageForm(big) });
    expect(tooBig.status).toBe(413);
    expect((await tooBig.json()).code).toBe('PAYLOAD_TOO_LARGE');
    const json = await send(t, path, { key, body: JSON.stringify({ image: 'x' }), headers: { 'content-type': 'application/json' } });
    expect([400, 415]).toContain(json.status);
    expect((await send(t, path, { key: readKey, body: imageForm(IMAGES.png) })).status).toBe(403);
    expect(await t.db.select().from(uploads).where(eq(uploads.clinicId, clinic.id))).toEqual([]);
  });
});
