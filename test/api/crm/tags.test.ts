// /api/v1/tags: list (category, isActive), create, update, delete (assignments cascade), assign and
// unassign on the clinic's own contacts; names unique per clinic ignoring case; tenant isolation.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { patients, patientTags, tags } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const unique = () => randomUUID().slice(0, 8);

async function tenant() {
  const tenant = await makeTenant(t.db);
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, readKey: readOnly.raw };
}

async function patient(clinicId: string) {
  const [row] = await t.db
    .insert(patients)
    .values({ clinicId, firstName: 'Pat', lastName: 'Ient', email: `p-${unique()}@example.test` })
    .returning();
  return row!;
}

async function tag(clinicId: string, values: Partial<typeof tags.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(tags)
    .values({ clinicId, name: `Tag ${unique()}`, color: '#abc', ...values })
    .returning();
  return row!;
}

const create = (key: string, body: unknown) => t.request('/api/v1/tags', { key, body });
const update = (key: string, id: string, body: unknown) => t.request(`/api/v1/tags/${id}`, { key, method: 'PUT', body });
const remove = (key: string, id: string) => t.request(`/api/v1/tags/${id}`, { key, method: 'DELETE' });
const assign = (key: string, id: string, userId: unknown) => t.request(`/api/v1/tags/${id}/assign`, { key, body: { userId } });
const unassign = (key: string, id: string, userId: string) => t.request(`/api/v1/tags/${id}/assign/${userId}`, { key, method: 'DELETE' });
const assignments = (tagId: string) => t.db.select().from(patientTags).where(eq(patientTags.tagId, tagId));

/** The same 404 body (message and code) for every id. */
async function expectSame404(responses: Promise<{ status: number; json(): Promise<{ message: string; code: string }> }>[]) {
  const bodies = [];
  for (const pending of responses) {
    const res = await pending;
    expect(res.status).toBe(404);
    const { message, code } = await res.json();
    bodies.push(JSON.stringify({ message, code }));
  }
  expect(new Set(bodies).size).toBe(1);
}

describe('POST /api/v1/tags', () => {
  it('creates a tag with defaults and answers it in full (201)', async () => {
    const { key, clinic } = await tenant();
    t.clock.freezeAt(T0);
    const res = await create(key, { name: ' VIP ', color: '#1F8A70', description: 'Premium patients', category: 'tier' });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toEqual({
      id: expect.any(String),
      name: 'VIP',
      description: 'Premium patients',
      category: 'tier',
      color: '#1f8a70',
      clinicId: clinic.id,
      isActive: true,
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
    });
    const minimal = await (await create(key, { name: 'Lead', color: '#FFF' })).json();
    expect(minimal.data).toMatchObject({ name: 'Lead', color: '#fff', description: null, category: null, isActive: true });
    const inactive = await (await create(key, { name: 'Old', color: '#000000', isActive: false })).json();
    expect(inactive.data.isActive).toBe(false);
  });

  it('answers 409 to a name the clinic already has, ignoring case; another clinic may use it', async () => {
    const { key, clinic } = await tenant();
    expect((await create(key, { name: 'Follow Up', color: '#123' })).status).toBe(201);
    const again = await create(key, { name: 'follow up', color: '#456' });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('CONFLICT');
    expect(await t.db.select().from(tags).where(eq(tags.clinicId, clinic.id))).toHaveLength(1);
    const other = await tenant();
    expect((await create(other.key, { name: 'FOLLOW UP', color: '#123' })).status).toBe(201);
  });

  it('refuses bad input with 400 naming the field, and a read-only key with 403', async () => {
    const { key, readKey } = await tenant();
    const cases: [unknown, string][] = [
      [{ color: '#123' }, 'body.name'],
      [{ name: '', color: '#123' }, 'body.name'],
      [{ name: 'x'.repeat(51), color: '#123' }, 'body.name'],
      [{ name: 'A' }, 'body.color'],
      [{ name: 'A', color: 'red' }, 'body.color'],
      [{ name: 'A', color: '#12345' }, 'body.color'],
      [{ name: 'A', color: '#gggggg' }, 'body.color'],
      [{ name: 'A', color: '123456' }, 'body.color'],
      [{ name: 'A', color: '#123', category: '' }, 'body.category'],
      [{ name: 'A', color: '#123', description: 'x'.repeat(501) }, 'body.description'],
      [{ name: 'A\u0000', color: '#123' }, 'body.name'],
      [{ name: 'A', color: '#123', clinicId: randomUUID() }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await create(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message).toContain(field);
    }
    const scope = await create(readKey, { name: 'A', color: '#123' });
    expect(scope.status).toBe(403);
    expect((await scope.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/tags', () => {
  it("lists the clinic's tags newest first, filtered by category and isActive, paged", async () => {
    const { readKey, clinic } = await tenant();
    const a = await tag(clinic.id, { name: 'A', category: 'tier', createdAt: new Date(T0) });
    const b = await tag(clinic.id, { name: 'B', category: 'tier', isActive: false, createdAt: new Date(T0 + 1000) });
    const c = await tag(clinic.id, { name: 'C', category: 'source', createdAt: new Date(T0 + 2000) });
    const d = await tag(clinic.id, { name: 'D', category: null, createdAt: new Date(T0 + 3000) });
    const other = await tenant();
    await tag(other.clinic.id, { name: 'Theirs', category: 'tier' });

    const ids = async (query: string) => {
      const res = await t.request(`/api/v1/tags${query}`, { key: readKey });
      expect(res.status, query).toBe(200);
      return (await res.json()).data.map((x: { id: string }) => x.id);
    };
    expect(await ids('')).toEqual([d.id, c.id, b.id, a.id]);
    expect(await ids('?category=tier')).toEqual([b.id, a.id]);
    expect(await ids('?isActive=true')).toEqual([d.id, c.id, a.id]);
    expect(await ids('?isActive=false')).toEqual([b.id]);
    expect(await ids('?category=tier&isActive=true')).toEqual([a.id]);
    expect(await ids('?category=Tier')).toEqual([]);
    expect(await ids('?category=nothing')).toEqual([]);

    const page = await (await t.request('/api/v1/tags?limit=3&page=2', { key: readKey })).json();
    expect(page.data.map((x: { id: string }) => x.id)).toEqual([a.id]);
    expect(page.pagination).toEqual({ page: 2, limit: 3, total: 4, totalPages: 2 });
    const first = (await (await t.request('/api/v1/tags?limit=1', { key: readKey })).json()).data[0];
    expect(first).toEqual({
      id: d.id,
      name: 'D',
      description: null,
      category: null,
      color: '#abc',
      clinicId: clinic.id,
      isActive: true,
      createdAt: d.createdAt.toISOString(),
      updatedAt: d.updatedAt.toISOString(),
    });
  });

  it('refuses bad filters with 400', async () => {
    const { readKey } = await tenant();
    for (const query of ['?isActive=yes', '?isActive=1', '?category=', `?category=${'x'.repeat(51)}`, '?limit=0']) {
      expect((await t.request(`/api/v1/tags${query}`, { key: readKey })).status, query).toBe(400);
    }
  });
});

describe('PUT /api/v1/tags/{id}', () => {
  it('changes only the fields sent and moves updatedAt', async () => {
    const { key, clinic } = await tenant();
    const row = await tag(clinic.id, { name: 'Old', category: 'x', description: 'keep' });
    t.clock.freezeAt(T0);
    const res = await update(key, row.id, { name: 'New', color: '#ABCDEF', isActive: false });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({
      id: row.id,
      name: 'New',
      color: '#abcdef',
      isActive: false,
      category: 'x',
      description: 'keep',
      updatedAt: new Date(T0).toISOString(),
    });
    const cleared = await (await update(key, row.id, { category: null, description: null })).json();
    expect(cleared.data).toMatchObject({ category: null, description: null, name: 'New' });
  });

  it("answers 409 when renamed to another tag's name (ignoring case); renaming to itself in another case is fine", async () => {
    const { key, clinic } = await tenant();
    await tag(clinic.id, { name: 'Taken' });
    const row = await tag(clinic.id, { name: 'Mine' });
    const res = await update(key, row.id, { name: 'TAKEN' });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('CONFLICT');
    expect((await update(key, row.id, { name: 'MINE' })).status).toBe(200);
  });

  it("answers the same 404 to another clinic's, an unknown and a malformed id; 400 to an empty body", async () => {
    const { key, clinic } = await tenant();
    const other = await tenant();
    const theirs = await tag(other.clinic.id, { name: 'Theirs' });
    await expectSame404([theirs.id, randomUUID(), 'nope'].map((id) => update(key, id, { name: 'Hacked' })));
    const [row] = await t.db.select().from(tags).where(eq(tags.id, theirs.id));
    expect(row!.name).toBe('Theirs');
    const mine = await tag(clinic.id);
    expect((await update(key, mine.id, {})).status).toBe(400);
    expect((await update(key, mine.id, { color: 'blue' })).status).toBe(400);
  });
});

describe('DELETE /api/v1/tags/{id}', () => {
  it('deletes the tag, answers it as it was, and takes it off every contact', async () => {
    const { key, clinic } = await tenant();
    const row = await tag(clinic.id, { name: 'Gone', category: 'c' });
    const keep = await tag(clinic.id, { name: 'Kept' });
    const [p1, p2] = [await patient(clinic.id), await patient(clinic.id)];
    await t.db.insert(patientTags).values([
      { clinicId: clinic.id, tagId: row.id, patientId: p1.id },
      { clinicId: clinic.id, tagId: row.id, patientId: p2.id },
      { clinicId: clinic.id, tagId: keep.id, patientId: p1.id },
    ]);
    const res = await remove(key, row.id);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ id: row.id, name: 'Gone', category: 'c', clinicId: clinic.id });
    expect(await t.db.select().from(tags).where(eq(tags.id, row.id))).toEqual([]);
    expect(await assignments(row.id)).toEqual([]);
    expect(await assignments(keep.id)).toHaveLength(1);
    expect((await remove(key, row.id)).status).toBe(404);
    // The contacts stay.
    expect(await t.db.select().from(patients).where(eq(patients.clinicId, clinic.id))).toHaveLength(2);
  });

  it("answers the same 404 to another clinic's, an unknown and a malformed id, deleting nothing", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await tag(other.clinic.id);
    await expectSame404([theirs.id, randomUUID(), 'x'.repeat(40)].map((id) => remove(key, id)));
    expect(await t.db.select().from(tags).where(eq(tags.id, theirs.id))).toHaveLength(1);
    const { readKey, clinic } = await tenant();
    const mine = await tag(clinic.id);
    expect((await remove(readKey, mine.id)).status).toBe(403);
  });
});

describe('POST /api/v1/tags/{id}/assign', () => {
  it('puts the tag on a contact (201); assigning again is idempotent; GET /contacts shows it', async () => {
    const { key, clinic } = await tenant();
    const row = await tag(clinic.id, { name: 'VIP' });
    const contact = await patient(clinic.id);
    t.clock.freezeAt(T0);
    const res = await assign(key, row.id, contact.id);
    expect(res.status).toBe(201);
    expect((await res.json()).data).toEqual({
      tagId: row.id,
      userId: contact.id,
      assignedAt: new Date(T0).toISOString(),
      alreadyAssigned: false,
    });
    t.clock.advance(60_000);
    const again = await assign(key, row.id, contact.id);
    expect(again.status).toBe(201);
    expect((await again.json()).data).toEqual({
      tagId: row.id,
      userId: contact.id,
      assignedAt: new Date(T0).toISOString(),
      alreadyAssigned: true,
    });
    expect(await assignments(row.id)).toEqual([{ clinicId: clinic.id, tagId: row.id, patientId: contact.id, createdAt: new Date(T0) }]);
    const listed = await (await t.request('/api/v1/contacts', { key })).json();
    expect(listed.data[0].tags.map((x: { name: string }) => x.name)).toEqual(['VIP']);
  });

  it("answers 404 for another clinic's contact or tag (the same body as an unknown one), changing nothing", async () => {
    const { key, clinic } = await tenant();
    const other = await tenant();
    const mine = await tag(clinic.id);
    const myContact = await patient(clinic.id);
    const theirTag = await tag(other.clinic.id);
    const theirContact = await patient(other.clinic.id);

    await expectSame404([assign(key, mine.id, theirContact.id), assign(key, mine.id, randomUUID())]);
    await expectSame404([
      assign(key, theirTag.id, myContact.id),
      assign(key, randomUUID(), myContact.id),
      assign(key, 'bad-id', myContact.id),
    ]);
    expect(await assignments(mine.id)).toEqual([]);
    expect(await assignments(theirTag.id)).toEqual([]);
  });

  it('refuses a new assignment of an inactive tag with 409, but answers an existing one', async () => {
    const { key, clinic } = await tenant();
    const row = await tag(clinic.id, { isActive: false });
    const [had, fresh] = [await patient(clinic.id), await patient(clinic.id)];
    await t.db.insert(patientTags).values({ clinicId: clinic.id, tagId: row.id, patientId: had.id });
    const res = await assign(key, row.id, fresh.id);
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('CONFLICT');
    expect((await assign(key, row.id, had.id)).status).toBe(201);
    expect((await assignments(row.id)).map((a) => a.patientId)).toEqual([had.id]);
  });

  it('refuses a missing or malformed userId with 400 and a read-only key with 403', async () => {
    const { key, readKey, clinic } = await tenant();
    const row = await tag(clinic.id);
    for (const body of [{}, { userId: 'nope' }, { userId: 12 }, { userId: randomUUID(), extra: 1 }]) {
      const res = await t.request(`/api/v1/tags/${row.id}/assign`, { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const contact = await patient(clinic.id);
    expect((await assign(readKey, row.id, contact.id)).status).toBe(403);
  });
});

describe('DELETE /api/v1/tags/{id}/assign/{userId}', () => {
  it('takes the tag off the contact (200); a second time answers 404', async () => {
    const { key, clinic } = await tenant();
    const row = await tag(clinic.id);
    const contact = await patient(clinic.id);
    await t.db.insert(patientTags).values({ clinicId: clinic.id, tagId: row.id, patientId: contact.id });
    const res = await unassign(key, row.id, contact.id);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ tagId: row.id, userId: contact.id, removed: true });
    expect(await assignments(row.id)).toEqual([]);
    expect((await unassign(key, row.id, contact.id)).status).toBe(404);
  });

  it("answers the same 404 for another clinic's assignment, unknown and malformed ids, removing nothing", async () => {
    const { key, readKey, clinic } = await tenant();
    const other = await tenant();
    const theirTag = await tag(other.clinic.id);
    const theirContact = await patient(other.clinic.id);
    await t.db.insert(patientTags).values({ clinicId: other.clinic.id, tagId: theirTag.id, patientId: theirContact.id });
    const mine = await tag(clinic.id);
    const myContact = await patient(clinic.id);
    await expectSame404([
      unassign(key, theirTag.id, theirContact.id),
      unassign(key, mine.id, myContact.id),
      unassign(key, randomUUID(), randomUUID()),
      unassign(key, 'nope', myContact.id),
      unassign(key, mine.id, 'nope'),
    ]);
    expect(
      await t.db
        .select()
        .from(patientTags)
        .where(and(eq(patientTags.tagId, theirTag.id), eq(patientTags.patientId, theirContact.id))),
    ).toHaveLength(1);
    expect((await unassign(readKey, mine.id, myContact.id)).status).toBe(403);
  });
});
