// GET/POST /api/v1/contacts and PUT /api/v1/contacts/{id}: contacts are the clinic's patients, with
// their tags and last contact date; creating one sends a welcome email in the same transaction;
// opting out sets optOutDate and records contact.unsubscribed in the outbox.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messages, outboxEvents, patients, patientTags, tags } from '../../../drizzle/schema';
import type { MessageSender } from '../../../src/platform/providers/messaging';
import { buildTestApp, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();
// A fixed instant (whole seconds) while the test keys are valid.
const T0 = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;

async function tenant() {
  const tenant = await makeTenant(t.db);
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, readKey: readOnly.raw };
}

const unique = () => randomUUID().slice(0, 8);

async function patient(clinicId: string, values: Partial<typeof patients.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(patients)
    .values({ clinicId, firstName: 'Pat', lastName: 'Ient', email: `p-${unique()}@example.test`, ...values })
    .returning();
  return row!;
}

async function tag(clinicId: string, values: Partial<typeof tags.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(tags)
    .values({ clinicId, name: `Tag ${unique()}`, color: '#123456', ...values })
    .returning();
  return row!;
}

const create = (key: string, body: unknown) => t.request('/api/v1/contacts', { key, body });
const update = (key: string, id: string, body: unknown) => t.request(`/api/v1/contacts/${id}`, { key, method: 'PUT', body });

const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

const outboxOf = (clinicId: string) =>
  t.db
    .select()
    .from(outboxEvents)
    .where(and(eq(outboxEvents.clinicId, clinicId), eq(outboxEvents.eventType, 'contact.unsubscribed')));

describe('POST /api/v1/contacts', () => {
  it("provisions a patient, answers the contact (201) and records the welcome email in the clinic's name", async () => {
    const { key, clinic } = await tenant();
    t.clock.freezeAt(T0);
    const res = await create(key, {
      firstName: ' Jane ',
      lastName: 'Doe',
      email: ' Jane.Doe@Example.COM ',
      phoneNumber: '+1 (555) 010-2000',
    });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toEqual({
      id: expect.any(String),
      firstName: 'Jane',
      lastName: 'Doe',
      email: 'jane.doe@example.com',
      phoneNumber: '+15550102000',
      emailOptedOut: false,
      smsOptedOut: false,
      optOutDate: null,
      createdAt: new Date(T0).toISOString(),
      lastLoginAt: null,
      lastContactDate: new Date(T0).toISOString(),
      tags: [],
    });
    const [row] = await t.db.select().from(patients).where(eq(patients.id, data.id));
    expect(row).toMatchObject({ clinicId: clinic.id, email: 'jane.doe@example.com', phoneNumber: '+15550102000' });

    const sent = await t.db.select().from(messages).where(eq(messages.patientId, data.id));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      clinicId: clinic.id,
      channel: 'email',
      kind: 'welcome',
      toAddress: 'jane.doe@example.com',
      status: 'sent',
      provider: 'development',
      subject: `Welcome to ${clinic.name}`,
    });
    expect(sent[0]!.body).toContain('Hi Jane,');
    expect(sent[0]!.body).toContain(`Welcome to ${clinic.name}!`);
    expect(sent[0]!.createdAt.getTime()).toBe(T0);
  });

  it('phoneNumber is optional; null and absent store none', async () => {
    const { key } = await tenant();
    for (const extra of [{}, { phoneNumber: null }]) {
      const res = await create(key, { firstName: 'A', lastName: 'B', email: `x-${unique()}@example.com`, ...extra });
      expect(res.status).toBe(201);
      expect((await res.json()).data.phoneNumber).toBeNull();
    }
  });

  it('answers 409 CONFLICT to an email the clinic already has, ignoring case, and sends nothing', async () => {
    const { key, clinic } = await tenant();
    expect((await create(key, { firstName: 'A', lastName: 'B', email: 'dup@example.com' })).status).toBe(201);
    const again = await create(key, { firstName: 'C', lastName: 'D', email: 'DUP@Example.com' });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('CONFLICT');
    expect(await t.db.select().from(patients).where(eq(patients.clinicId, clinic.id))).toHaveLength(1);
    expect(await t.db.select().from(messages).where(eq(messages.clinicId, clinic.id))).toHaveLength(1);

    // Another clinic may have the same person.
    const other = await tenant();
    expect((await create(other.key, { firstName: 'A', lastName: 'B', email: 'dup@example.com' })).status).toBe(201);
  });

  it('is race-safe: concurrent creates of one email give one 201 and 409s', async () => {
    const { key, clinic } = await tenant();
    const results = await Promise.all(
      ['race@example.com', 'Race@example.com', 'RACE@example.com'].map((email) => create(key, { firstName: 'R', lastName: 'C', email })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await t.db.select().from(patients).where(eq(patients.clinicId, clinic.id))).toHaveLength(1);
    expect(await t.db.select().from(messages).where(eq(messages.clinicId, clinic.id))).toHaveLength(1);
  });

  it('rolls the contact back when the welcome email cannot be recorded', async () => {
    const { key, clinic } = await tenant();
    const failing: MessageSender = { provider: 'broken', send: () => Promise.reject(new Error('provider down')) };
    const app = buildTestApp(t.db, t.databaseUrl, { messaging: failing });
    const res = await app.request('/api/v1/contacts', { key, body: { firstName: 'A', lastName: 'B', email: 'rollback@example.com' } });
    expect(res.status).toBe(500);
    expect(await t.db.select().from(patients).where(eq(patients.clinicId, clinic.id))).toEqual([]);
  });

  it('refuses bad input with 400 naming the field, and a read-only key with 403', async () => {
    const { key, readKey, clinic } = await tenant();
    const valid = { firstName: 'A', lastName: 'B', email: 'ok@example.com' };
    const cases: [unknown, string][] = [
      [{ ...valid, email: 'not-an-email' }, 'body.email'],
      [{ ...valid, email: `${'a'.repeat(250)}@example.com` }, 'body.email'],
      [{ firstName: 'A', email: 'ok@example.com' }, 'body.lastName'],
      [{ ...valid, firstName: '   ' }, 'body.firstName'],
      [{ ...valid, firstName: 'x'.repeat(101) }, 'body.firstName'],
      [{ ...valid, lastName: 'B\u0000' }, 'body.lastName'],
      [{ ...valid, phoneNumber: '555-0102' }, 'body.phoneNumber'],
      [{ ...valid, phoneNumber: '+0123456789' }, 'body.phoneNumber'],
      [{ ...valid, tags: [] }, 'body'],
      [{ ...valid, emailOptedOut: true }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await create(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const json = await res.json();
      expect(json.code).toBe('VALIDATION_ERROR');
      expect(json.message).toContain(field);
    }
    const scope = await create(readKey, valid);
    expect(scope.status).toBe(403);
    expect((await scope.json()).code).toBe('INSUFFICIENT_SCOPE');
    expect(await t.db.select().from(patients).where(eq(patients.clinicId, clinic.id))).toEqual([]);
  });
});

describe('GET /api/v1/contacts', () => {
  it("lists the clinic's contacts newest first with tags (by name) and the newest message date, in one query", async () => {
    const { key, readKey, clinic } = await tenant();
    const day = 86_400_000;
    const older = await patient(clinic.id, { firstName: 'Old', createdAt: new Date(T0 - 3 * day), lastLoginAt: new Date(T0 - day) });
    const newer = await patient(clinic.id, {
      firstName: 'New',
      createdAt: new Date(T0 - day),
      emailOptedOut: true,
      optOutDate: new Date(T0 - 2 * day),
    });
    const vip = await tag(clinic.id, { name: 'vip', category: 'tier', description: 'Big spender' });
    const alpha = await tag(clinic.id, { name: 'Alpha', isActive: false });
    await t.db.insert(patientTags).values([
      { clinicId: clinic.id, tagId: vip.id, patientId: older.id },
      { clinicId: clinic.id, tagId: alpha.id, patientId: older.id },
    ]);
    await t.db.insert(messages).values([
      {
        clinicId: clinic.id,
        channel: 'email',
        kind: 'welcome',
        toAddress: older.email,
        body: 'x',
        provider: 'development',
        patientId: older.id,
        createdAt: new Date(T0 - 2 * day),
      },
      {
        clinicId: clinic.id,
        channel: 'sms',
        kind: 'sequence',
        toAddress: '+15550100000',
        body: 'y',
        provider: 'development',
        patientId: older.id,
        createdAt: new Date(T0 - day / 2),
      },
    ]);
    // Another clinic's contact, tag and message are never seen.
    const other = await tenant();
    const theirs = await patient(other.clinic.id);
    const theirTag = await tag(other.clinic.id);
    await t.db.insert(patientTags).values({ clinicId: other.clinic.id, tagId: theirTag.id, patientId: theirs.id });

    const res = await t.request('/api/v1/contacts', { key: readKey });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });
    expect(body.data.map((c: { id: string }) => c.id)).toEqual([newer.id, older.id]);
    expect(body.data[0]).toMatchObject({
      emailOptedOut: true,
      optOutDate: new Date(T0 - 2 * day).toISOString(),
      lastContactDate: null,
      tags: [],
    });
    expect(body.data[1]).toMatchObject({
      lastLoginAt: new Date(T0 - day).toISOString(),
      lastContactDate: new Date(T0 - day / 2).toISOString(),
    });
    expect(body.data[1].tags).toEqual([
      {
        id: alpha.id,
        name: 'Alpha',
        description: null,
        category: null,
        color: '#123456',
        clinicId: clinic.id,
        isActive: false,
        createdAt: alpha.createdAt.toISOString(),
        updatedAt: alpha.updatedAt.toISOString(),
      },
      {
        id: vip.id,
        name: 'vip',
        description: 'Big spender',
        category: 'tier',
        color: '#123456',
        clinicId: clinic.id,
        isActive: true,
        createdAt: vip.createdAt.toISOString(),
        updatedAt: vip.updatedAt.toISOString(),
      },
    ]);
    expect(await statements(() => t.request('/api/v1/contacts', { key }))).toEqual({ status: 200, count: 2 });
  });

  it('pages with page and limit; a page past the end is empty with the real total; bad paging is 400', async () => {
    const { key, clinic } = await tenant();
    for (let i = 0; i < 3; i++) await patient(clinic.id, { createdAt: new Date(T0 + i * 1000) });
    const page2 = await (await t.request('/api/v1/contacts?page=2&limit=2', { key })).json();
    expect(page2.data).toHaveLength(1);
    expect(page2.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    const past = await (await t.request('/api/v1/contacts?page=9&limit=2', { key })).json();
    expect(past.data).toEqual([]);
    expect(past.pagination.total).toBe(3);
    expect((await t.request('/api/v1/contacts?limit=201', { key })).status).toBe(400);
  });
});

describe('PUT /api/v1/contacts/{id}', () => {
  it('changes only the fields sent', async () => {
    const { key, clinic } = await tenant();
    const row = await patient(clinic.id, { firstName: 'Old', phoneNumber: '+15550100001' });
    t.clock.freezeAt(T0);
    const res = await update(key, row.id, { firstName: 'New', email: 'NEW@Example.com' });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      id: row.id,
      firstName: 'New',
      lastName: 'Ient',
      email: 'new@example.com',
      phoneNumber: '+15550100001',
      optOutDate: null,
    });
    const cleared = await (await update(key, row.id, { phoneNumber: null })).json();
    expect(cleared.data.phoneNumber).toBeNull();
    const [stored] = await t.db.select().from(patients).where(eq(patients.id, row.id));
    expect(stored!.updatedAt.getTime()).toBe(T0);
    expect(await outboxOf(clinic.id)).toEqual([]);
  });

  it('answers 409 when the new email belongs to another contact of the clinic (ignoring case)', async () => {
    const { key, clinic } = await tenant();
    await patient(clinic.id, { email: 'taken@example.com' });
    const row = await patient(clinic.id);
    const res = await update(key, row.id, { email: 'Taken@Example.com' });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('CONFLICT');
    // Its own email, in another case, is fine.
    expect((await update(key, row.id, { email: row.email.toUpperCase() })).status).toBe(200);
  });

  it('opting out sets optOutDate and records contact.unsubscribed (ids only) in the outbox, once per change', async () => {
    const { key, clinic } = await tenant();
    const row = await patient(clinic.id);
    t.clock.freezeAt(T0);
    const res = await update(key, row.id, { emailOptedOut: true });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ emailOptedOut: true, smsOptedOut: false, optOutDate: new Date(T0).toISOString() });
    let events = await outboxOf(clinic.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toEqual({ contactId: row.id, channels: 'email' });
    expect(events[0]!.createdAt.getTime()).toBe(T0);
    expect(JSON.stringify(events[0]!.payload)).not.toContain('@');

    // Saying it again changes nothing and emits nothing.
    t.clock.advance(60_000);
    const again = await (await update(key, row.id, { emailOptedOut: true })).json();
    expect(again.data.optOutDate).toBe(new Date(T0).toISOString());
    expect(await outboxOf(clinic.id)).toHaveLength(1);

    // The other channel later: a new date and an event for sms only.
    const sms = await (await update(key, row.id, { smsOptedOut: true })).json();
    expect(sms.data.optOutDate).toBe(new Date(T0 + 60_000).toISOString());
    events = await outboxOf(clinic.id);
    expect(events.map((e) => e.payload)).toContainEqual({ contactId: row.id, channels: 'sms' });
    expect(events).toHaveLength(2);
  });

  it('opting out of both at once is one event; opting back in keeps optOutDate until neither channel is opted out', async () => {
    const { key, clinic } = await tenant();
    const row = await patient(clinic.id);
    t.clock.freezeAt(T0);
    await update(key, row.id, { emailOptedOut: true, smsOptedOut: true });
    const events = await outboxOf(clinic.id);
    expect(events.map((e) => e.payload)).toEqual([{ contactId: row.id, channels: 'email,sms' }]);

    t.clock.advance(1_000);
    const partly = await (await update(key, row.id, { emailOptedOut: false })).json();
    expect(partly.data).toMatchObject({ emailOptedOut: false, smsOptedOut: true, optOutDate: new Date(T0).toISOString() });
    const back = await (await update(key, row.id, { smsOptedOut: false })).json();
    expect(back.data).toMatchObject({ emailOptedOut: false, smsOptedOut: false, optOutDate: null });
    expect(await outboxOf(clinic.id)).toHaveLength(1);
  });

  it("answers the same 404 to another clinic's, an unknown and a malformed id, changing nothing", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await patient(other.clinic.id, { firstName: 'Theirs' });
    const bodies = [];
    for (const id of [theirs.id, randomUUID(), 'not-a-uuid']) {
      const res = await update(key, id, { firstName: 'Hacked', emailOptedOut: true });
      expect(res.status, id).toBe(404);
      const { message, code } = await res.json();
      bodies.push({ message, code });
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    const [row] = await t.db.select().from(patients).where(eq(patients.id, theirs.id));
    expect(row).toMatchObject({ firstName: 'Theirs', emailOptedOut: false });
    expect(await outboxOf(other.clinic.id)).toEqual([]);
  });

  it('refuses an empty body, unknown fields and bad values with 400, a read-only key with 403', async () => {
    const { key, readKey, clinic } = await tenant();
    const row = await patient(clinic.id);
    for (const body of [
      {},
      { optOutDate: '2030-01-01T00:00:00Z' },
      { emailOptedOut: 'yes' },
      { email: 'nope' },
      { phoneNumber: 'call me' },
    ]) {
      const res = await update(key, row.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await update(readKey, row.id, { firstName: 'X' })).status).toBe(403);
  });
});
