// Sequences: create/list/get/update (status transitions), steps replacement and its validation,
// the manual trigger, tenant isolation (docs/crm-sequences.md). The runner: sequences-runner.test.ts.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { patients, patientTags, sequenceEnrollments, sequenceSteps, sequences, tags } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();
const BASE = '/api/v1/sequences';
const MANUAL = '/api/v1/sequence-triggers/manual';

async function tenant() {
  const tenant = await makeTenant(t.db);
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, readKey: readOnly.raw };
}

async function template(key: string, type: 'email' | 'sms' = 'email') {
  const body =
    type === 'email'
      ? { name: 'Mail', type, subject: 'Hi {{firstName}}', body: '<p>Hello</p>' }
      : { name: 'Text', type, body: 'Hello {{firstName}}' };
  const res = await t.request('/api/v1/message-templates', { key, body });
  expect(res.status).toBe(201);
  return (await res.json()).data as { id: string };
}

async function createSequence(key: string, body: Record<string, unknown> = {}) {
  const res = await t.request(BASE, { key, body: { name: 'Welcome series', triggerEvent: 'manual', ...body } });
  expect(res.status, JSON.stringify(body)).toBe(201);
  return (await res.json()).data;
}

const put = (key: string, id: string, body: unknown) => t.request(`${BASE}/${id}`, { key, method: 'PUT', body });
const putSteps = (key: string, id: string, steps: unknown) => t.request(`${BASE}/${id}/steps`, { key, method: 'PUT', body: { steps } });

async function patient(clinicId: string, values: Partial<typeof patients.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(patients)
    .values({ clinicId, firstName: 'Pat', lastName: 'Ient', email: `p-${randomUUID().slice(0, 8)}@example.test`, ...values })
    .returning();
  return row!;
}

async function tag(clinicId: string, patientIds: string[] = []) {
  const [row] = await t.db
    .insert(tags)
    .values({ clinicId, name: `Tag ${randomUUID().slice(0, 8)}`, color: '#ff0000' })
    .returning();
  if (patientIds.length) await t.db.insert(patientTags).values(patientIds.map((patientId) => ({ clinicId, tagId: row!.id, patientId })));
  return row!;
}

/** An active sequence with one email step. */
async function activeSequence(key: string) {
  const mail = await template(key);
  const seq = await createSequence(key);
  expect((await putSteps(key, seq.id, [{ type: 'email', templateId: mail.id }])).status).toBe(200);
  expect((await put(key, seq.id, { status: 'active' })).status).toBe(200);
  return seq as { id: string };
}

const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

const zero = { enrolled: 0, active: 0, completed: 0, cancelled: 0, sent: 0, skipped: 0, failed: 0 };

describe('POST /api/v1/sequences', () => {
  it('creates a draft without steps, zero analytics, createdBy null', async () => {
    const { key, clinic } = await tenant();
    const res = await t.request(BASE, { key, body: { name: 'Onboarding', triggerEvent: 'manual', description: 'First week' } });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toMatchObject({
      clinicId: clinic.id,
      name: 'Onboarding',
      description: 'First week',
      status: 'draft',
      isActive: false,
      trigger: { event: 'manual', tagId: null },
      steps: [],
      analytics: zero,
    });
    const [row] = await t.db.select().from(sequences).where(eq(sequences.id, data.id));
    expect(row).toMatchObject({ createdBy: null, status: 'draft', triggerEvent: 'manual' });
  });

  it("takes contact_created, and tag_added with one of the clinic's tags", async () => {
    const { key, clinic } = await tenant();
    expect((await createSequence(key, { triggerEvent: 'contact_created' })).trigger).toEqual({ event: 'contact_created', tagId: null });
    const mine = await tag(clinic.id);
    expect((await createSequence(key, { triggerEvent: 'tag_added', triggerTagId: mine.id })).trigger).toEqual({
      event: 'tag_added',
      tagId: mine.id,
    });
  });

  it("refuses bad input with 400 naming the field (another clinic's tag like an unknown one)", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await tag(other.clinic.id);
    const cases: [unknown, string][] = [
      [{ triggerEvent: 'manual' }, 'body.name'],
      [{ name: '', triggerEvent: 'manual' }, 'body.name'],
      [{ name: 'x'.repeat(201), triggerEvent: 'manual' }, 'body.name'],
      [{ name: 'A' }, 'body.triggerEvent'],
      [{ name: 'A', triggerEvent: 'order_placed' }, 'body.triggerEvent'],
      [{ name: 'A', triggerEvent: 'tag_added' }, 'body.triggerTagId'],
      [{ name: 'A', triggerEvent: 'manual', triggerTagId: randomUUID() }, 'body.triggerTagId'],
      [{ name: 'A', triggerEvent: 'tag_added', triggerTagId: 'nope' }, 'body.triggerTagId'],
      [{ name: 'A', triggerEvent: 'tag_added', triggerTagId: theirs.id }, 'body.triggerTagId'],
      [{ name: 'A', triggerEvent: 'tag_added', triggerTagId: randomUUID() }, 'body.triggerTagId'],
      [{ name: 'A', triggerEvent: 'manual', status: 'active' }, 'body'],
    ];
    const messages = [];
    for (const [body, field] of cases) {
      const res = await t.request(BASE, { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const json = await res.json();
      expect(json.message, JSON.stringify(body)).toContain(field);
      messages.push(json.message);
    }
    expect(messages[8]).toBe(messages[9]);
  });

  it('needs the write scope', async () => {
    const { readKey } = await tenant();
    expect((await t.request(BASE, { key: readKey, body: { name: 'A', triggerEvent: 'manual' } })).status).toBe(403);
  });
});

describe('GET /api/v1/sequences and /sequences/{id}', () => {
  it("lists the clinic's sequences newest first with steps and analytics, filtered by status, paged, in one query", async () => {
    const { key, readKey } = await tenant();
    t.clock.freezeAt(Date.now());
    const draft = await createSequence(key, { name: 'Draft one' });
    t.clock.advance(1_000);
    const active = await activeSequence(key);
    const other = await tenant();
    await createSequence(other.key);

    const body = await (await t.request(BASE, { key: readKey })).json();
    expect(body.data.map((s: { id: string }) => s.id)).toEqual([active.id, draft.id]);
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });
    expect(body.data[0]).toMatchObject({ status: 'active', isActive: true, analytics: zero });
    expect(body.data[0].steps).toHaveLength(1);
    const onlyDrafts = await (await t.request(`${BASE}?status=draft`, { key })).json();
    expect(onlyDrafts.data.map((s: { id: string }) => s.id)).toEqual([draft.id]);
    expect((await t.request(`${BASE}?status=done`, { key })).status).toBe(400);
    expect((await (await t.request(`${BASE}?limit=1&page=3`, { key })).json()).pagination.total).toBe(2);
    expect(await statements(() => t.request(BASE, { key }))).toEqual({ status: 200, count: 2 });
  });

  it("answers one sequence with its analytics in one query; another clinic's, unknown and malformed ids the same 404", async () => {
    const { key } = await tenant();
    const seq = await activeSequence(key);
    const res = await t.request(`${BASE}/${seq.id}`, { key });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ id: seq.id, status: 'active', analytics: zero });
    expect(await statements(() => t.request(`${BASE}/${seq.id}`, { key }))).toEqual({ status: 200, count: 2 });

    const other = await tenant();
    const theirs = await createSequence(other.key);
    const bodies = [];
    for (const id of [theirs.id, randomUUID(), 'not-a-uuid']) {
      const miss = await t.request(`${BASE}/${id}`, { key });
      expect(miss.status).toBe(404);
      bodies.push(JSON.stringify(await miss.json()));
    }
    expect(new Set(bodies).size).toBe(1);
  });
});

describe('PUT /api/v1/sequences/{id}', () => {
  it('updates name and description only when sent', async () => {
    const { key } = await tenant();
    const seq = await createSequence(key, { description: 'keep' });
    const { data } = await (await put(key, seq.id, { name: 'Renamed' })).json();
    expect(data).toMatchObject({ name: 'Renamed', description: 'keep', status: 'draft' });
    const cleared = (await (await put(key, seq.id, { description: null })).json()).data;
    expect(cleared).toMatchObject({ name: 'Renamed', description: null });
    for (const body of [{}, { status: 'running' }, { name: '' }, { createdBy: null }]) {
      expect((await put(key, seq.id, body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('moves draft -> active -> paused -> active -> archived and refuses every other move with 409 ILLEGAL_TRANSITION', async () => {
    const { key } = await tenant();
    const mail = await template(key);
    const seq = await createSequence(key);
    await putSteps(key, seq.id, [{ type: 'email', templateId: mail.id }]);
    const status = async (to: string) => put(key, seq.id, { status: to });
    const refused = async (to: string) => {
      const res = await status(to);
      expect(res.status, to).toBe(409);
      expect((await res.json()).code).toBe('ILLEGAL_TRANSITION');
    };
    await refused('paused');
    expect((await (await status('draft')).json()).data.status).toBe('draft'); // same status: no-op
    expect((await (await status('active')).json()).data).toMatchObject({ status: 'active', isActive: true });
    await refused('draft');
    expect((await (await status('paused')).json()).data).toMatchObject({ status: 'paused', isActive: false });
    await refused('draft');
    expect((await (await status('active')).json()).data.status).toBe('active');
    expect((await (await status('archived')).json()).data.status).toBe('archived');
    for (const to of ['active', 'paused', 'draft', 'archived']) await refused(to);
    await expect(put(key, seq.id, { name: 'x' }).then((r) => r.status)).resolves.toBe(409);
  });

  it('archives a draft or paused sequence too', async () => {
    const { key } = await tenant();
    const draft = await createSequence(key);
    expect((await (await put(key, draft.id, { status: 'archived' })).json()).data.status).toBe('archived');
    const seq = await activeSequence(key);
    await put(key, seq.id, { status: 'paused' });
    expect((await (await put(key, seq.id, { status: 'archived' })).json()).data.status).toBe('archived');
  });

  it('refuses to activate without steps, or with a step whose template was deleted (409)', async () => {
    const { key } = await tenant();
    const seq = await createSequence(key);
    const empty = await put(key, seq.id, { status: 'active' });
    expect(empty.status).toBe(409);
    expect((await empty.json()).message).toContain('without steps');

    const mail = await template(key);
    await putSteps(key, seq.id, [
      { type: 'delay', timeSeconds: 60 },
      { type: 'email', templateId: mail.id },
    ]);
    expect((await t.request(`/api/v1/message-templates/${mail.id}`, { key, method: 'DELETE' })).status).toBe(200);
    const res = await put(key, seq.id, { status: 'active' });
    expect(res.status).toBe(409);
    expect((await res.json()).message).toContain('Step 1');
    expect((await (await t.request(`${BASE}/${seq.id}`, { key })).json()).data.status).toBe('draft');
  });

  it('archiving cancels the enrollments in progress; completed ones stay', async () => {
    const { key, clinic } = await tenant();
    const seq = await activeSequence(key);
    const [a, b] = [await patient(clinic.id), await patient(clinic.id)];
    await t.request(MANUAL, { key, body: { sequenceId: seq.id, userId: a.id } });
    await t.request(MANUAL, { key, body: { sequenceId: seq.id, userId: b.id } });
    await t.db.update(sequenceEnrollments).set({ status: 'completed', nextRunAt: null }).where(eq(sequenceEnrollments.patientId, b.id));
    const { data } = await (await put(key, seq.id, { status: 'archived' })).json();
    expect(data.analytics).toMatchObject({ enrolled: 2, active: 0, completed: 1, cancelled: 1 });
    const [row] = await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.patientId, a.id));
    expect(row).toMatchObject({ status: 'cancelled', nextRunAt: null });
  });

  it("changes the trigger (tag_added needs one of the clinic's tags; other events take none)", async () => {
    const { key, clinic } = await tenant();
    const seq = await createSequence(key);
    const mine = await tag(clinic.id);
    const other = await tenant();
    const theirs = await tag(other.clinic.id);
    expect((await put(key, seq.id, { triggerEvent: 'tag_added' })).status).toBe(400);
    expect((await put(key, seq.id, { triggerEvent: 'tag_added', triggerTagId: theirs.id })).status).toBe(400);
    const tagged = (await (await put(key, seq.id, { triggerEvent: 'tag_added', triggerTagId: mine.id })).json()).data;
    expect(tagged.trigger).toEqual({ event: 'tag_added', tagId: mine.id });
    expect((await put(key, seq.id, { triggerTagId: null })).status).toBe(400);
    expect((await (await put(key, seq.id, { name: 'still tagged' })).json()).data.trigger).toEqual({ event: 'tag_added', tagId: mine.id });
    expect((await put(key, seq.id, { triggerEvent: 'manual', triggerTagId: mine.id })).status).toBe(400);
    const manual = (await (await put(key, seq.id, { triggerEvent: 'manual' })).json()).data;
    expect(manual.trigger).toEqual({ event: 'manual', tagId: null });
  });

  it("answers 404 for another clinic's sequence, leaving it alone; 403 without write", async () => {
    const { key, readKey } = await tenant();
    const other = await tenant();
    const theirs = await createSequence(other.key);
    expect((await put(key, theirs.id, { name: 'Mine' })).status).toBe(404);
    expect((await put(key, randomUUID(), { name: 'Mine' })).status).toBe(404);
    const [row] = await t.db.select().from(sequences).where(eq(sequences.id, theirs.id));
    expect(row!.name).toBe('Welcome series');
    const mine = await createSequence(key);
    expect((await put(readKey, mine.id, { name: 'x' })).status).toBe(403);
  });
});

describe('PUT /api/v1/sequences/{id}/steps', () => {
  it('replaces all steps in order, storing only the fields each type uses', async () => {
    const { key } = await tenant();
    const mail = await template(key);
    const text = await template(key, 'sms');
    const seq = await createSequence(key);
    const res = await putSteps(key, seq.id, [
      { type: 'email', templateId: mail.id },
      { type: 'delay', timeSeconds: 86_400 },
      { type: 'sms', templateId: text.id, useCustomText: false },
      { type: 'email', useCustomText: true, customText: '<p>Hi {{firstName}}</p>', customSubject: 'Custom {{firstName}}' },
      { type: 'sms', useCustomText: true, customText: 'Text {{firstName}}' },
    ]);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.steps.map((s: Record<string, unknown>) => ({ ...s, id: undefined }))).toEqual([
      {
        id: undefined,
        position: 0,
        type: 'email',
        timeSeconds: null,
        useCustomText: false,
        templateId: mail.id,
        customText: null,
        customSubject: null,
      },
      {
        id: undefined,
        position: 1,
        type: 'delay',
        timeSeconds: 86_400,
        useCustomText: false,
        templateId: null,
        customText: null,
        customSubject: null,
      },
      {
        id: undefined,
        position: 2,
        type: 'sms',
        timeSeconds: null,
        useCustomText: false,
        templateId: text.id,
        customText: null,
        customSubject: null,
      },
      {
        id: undefined,
        position: 3,
        type: 'email',
        timeSeconds: null,
        useCustomText: true,
        templateId: null,
        customText: '<p>Hi {{firstName}}</p>',
        customSubject: 'Custom {{firstName}}',
      },
      {
        id: undefined,
        position: 4,
        type: 'sms',
        timeSeconds: null,
        useCustomText: true,
        templateId: null,
        customText: 'Text {{firstName}}',
        customSubject: null,
      },
    ]);

    const again = await (await putSteps(key, seq.id, [{ type: 'delay', timeSeconds: 5 }])).json();
    expect(again.data.steps).toHaveLength(1);
    const rows = await t.db.select().from(sequenceSteps).where(eq(sequenceSteps.sequenceId, seq.id));
    expect(rows.map((r) => [r.position, r.type, r.timeSeconds])).toEqual([[0, 'delay', 5]]);
    expect((await (await putSteps(key, seq.id, [])).json()).data.steps).toEqual([]);
  });

  it('validates each step: positive delays, own templates of the right type, custom text with its subject', async () => {
    const { key } = await tenant();
    const mail = await template(key);
    const text = await template(key, 'sms');
    const other = await tenant();
    const theirs = await template(other.key);
    const deleted = await template(key);
    await t.request(`/api/v1/message-templates/${deleted.id}`, { key, method: 'DELETE' });
    const seq = await createSequence(key);
    const cases: [unknown[], string][] = [
      [[{ type: 'delay', timeSeconds: 0 }], 'body.steps.0.timeSeconds'],
      [[{ type: 'delay', timeSeconds: -5 }], 'body.steps.0.timeSeconds'],
      [[{ type: 'delay' }], 'body.steps.0.timeSeconds'],
      [[{ type: 'delay', timeSeconds: 1.5 }], 'body.steps.0.timeSeconds'],
      [[{ type: 'delay', timeSeconds: 366 * 86_400 }], 'body.steps.0.timeSeconds'],
      [[{ type: 'delay', timeSeconds: 5, templateId: mail.id }], 'body.steps.0.templateId'],
      [[{ type: 'email', templateId: mail.id, timeSeconds: 5 }], 'body.steps.0.timeSeconds'],
      [[{ type: 'email' }], 'body.steps.0.templateId'],
      [
        [
          { type: 'delay', timeSeconds: 5 },
          { type: 'email', templateId: theirs.id },
        ],
        'body.steps.1.templateId',
      ],
      [[{ type: 'email', templateId: randomUUID() }], 'body.steps.0.templateId'],
      [[{ type: 'email', templateId: deleted.id }], 'body.steps.0.templateId'],
      [[{ type: 'email', templateId: 'nope' }], 'body.steps.0.templateId'],
      [[{ type: 'sms', templateId: mail.id }], 'body.steps.0.templateId'],
      [[{ type: 'email', templateId: text.id }], 'body.steps.0.templateId'],
      [[{ type: 'email', useCustomText: true, customText: 'Hi' }], 'body.steps.0.customSubject'],
      [[{ type: 'email', useCustomText: true, customSubject: 'Hi' }], 'body.steps.0.customText'],
      [[{ type: 'sms', useCustomText: true, customText: 'Hi', customSubject: 'S' }], 'body.steps.0.customSubject'],
      [[{ type: 'sms', useCustomText: true, customText: 'x'.repeat(1_601) }], 'body.steps.0.customText'],
      [[{ type: 'sms', useCustomText: true, customText: 'Hi', templateId: text.id }], 'body.steps.0.templateId'],
      [[{ type: 'sms', templateId: text.id, customText: 'Hi' }], 'body.steps.0.customText'],
      [[{ type: 'push', templateId: text.id }], 'body.steps.0.type'],
      [[{ type: 'delay', timeSeconds: 5, extra: 1 }], 'body.steps.0'],
      [Array.from({ length: 51 }, () => ({ type: 'delay', timeSeconds: 5 })), 'body.steps'],
    ];
    const messages: Record<string, string> = {};
    for (const [steps, field] of cases) {
      const res = await putSteps(key, seq.id, steps);
      expect(res.status, JSON.stringify(steps).slice(0, 120)).toBe(400);
      const json = await res.json();
      expect(json.code).toBe('VALIDATION_ERROR');
      expect(json.message, JSON.stringify(steps).slice(0, 120)).toContain(field);
      messages[JSON.stringify(steps).slice(0, 120)] = json.message;
    }
    // Another clinic's template is refused exactly like an unknown one.
    expect(messages[JSON.stringify([{ type: 'email', templateId: deleted.id }])]).toBe(
      'Invalid body: body.steps.0.templateId: no message template of the clinic has this id',
    );
    expect(messages[JSON.stringify([{ type: 'sms', templateId: mail.id }])]).toBe(
      'Invalid body: body.steps.0.templateId: is a template of type email; sms steps need sms templates',
    );
    const foreign = Object.entries(messages).find(([k]) => k.includes(theirs.id))![1];
    expect(foreign).toBe('Invalid body: body.steps.1.templateId: no message template of the clinic has this id');
    expect(await t.db.select().from(sequenceSteps).where(eq(sequenceSteps.sequenceId, seq.id))).toEqual([]);
  });

  it('keeps the old steps when the new ones are refused', async () => {
    const { key } = await tenant();
    const seq = await createSequence(key);
    await putSteps(key, seq.id, [{ type: 'delay', timeSeconds: 10 }]);
    expect(
      (
        await putSteps(key, seq.id, [
          { type: 'delay', timeSeconds: 20 },
          { type: 'email', templateId: randomUUID() },
        ])
      ).status,
    ).toBe(400);
    const { data } = await (await t.request(`${BASE}/${seq.id}`, { key })).json();
    expect(data.steps.map((s: { timeSeconds: number }) => s.timeSeconds)).toEqual([10]);
  });

  it('answers 409 while the sequence is active (pause first) or archived; a paused one can be changed', async () => {
    const { key } = await tenant();
    const seq = await activeSequence(key);
    const refused = await putSteps(key, seq.id, [{ type: 'delay', timeSeconds: 5 }]);
    expect(refused.status).toBe(409);
    expect((await refused.json()).message).toContain('pause');
    await put(key, seq.id, { status: 'paused' });
    expect((await putSteps(key, seq.id, [{ type: 'delay', timeSeconds: 5 }])).status).toBe(200);
    await put(key, seq.id, { status: 'archived' });
    expect((await putSteps(key, seq.id, [{ type: 'delay', timeSeconds: 5 }])).status).toBe(409);
  });

  it("answers 404 for another clinic's sequence and 403 without write", async () => {
    const { key, readKey } = await tenant();
    const other = await tenant();
    const theirs = await createSequence(other.key);
    expect((await putSteps(key, theirs.id, [{ type: 'delay', timeSeconds: 5 }])).status).toBe(404);
    expect(await t.db.select().from(sequenceSteps).where(eq(sequenceSteps.sequenceId, theirs.id))).toEqual([]);
    const mine = await createSequence(key);
    expect((await putSteps(readKey, mine.id, [])).status).toBe(403);
  });
});

describe('POST /api/v1/sequence-triggers/manual', () => {
  it('enrolls one contact once: 201 { enrolled: 1 }, then { alreadyEnrolled: 1 }', async () => {
    const { key, clinic } = await tenant();
    const seq = await activeSequence(key);
    const a = await patient(clinic.id);
    t.clock.freezeAt(Math.floor(Date.now() / 1000) * 1000);
    const res = await t.request(MANUAL, { key, body: { sequenceId: seq.id, userId: a.id } });
    expect(res.status).toBe(201);
    expect((await res.json()).data).toEqual({ sequenceId: seq.id, enrolled: 1, alreadyEnrolled: 0 });
    const [row] = await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.patientId, a.id));
    expect(row).toMatchObject({ clinicId: clinic.id, sequenceId: seq.id, status: 'active', nextStepPosition: 0 });
    expect(row!.nextRunAt?.getTime()).toBe(t.clock.now());
    const again = await t.request(MANUAL, { key, body: { sequenceId: seq.id, userId: a.id } });
    expect(again.status).toBe(201);
    expect((await again.json()).data).toEqual({ sequenceId: seq.id, enrolled: 0, alreadyEnrolled: 1 });
    expect((await (await t.request(`${BASE}/${seq.id}`, { key })).json()).data.analytics).toMatchObject({ enrolled: 1, active: 1 });
  });

  it('enrolls every contact with a tag, skipping those already enrolled', async () => {
    const { key, clinic } = await tenant();
    const seq = await activeSequence(key);
    const [a, b, c] = [await patient(clinic.id), await patient(clinic.id), await patient(clinic.id)];
    const group = await tag(clinic.id, [a.id, b.id]);
    await t.request(MANUAL, { key, body: { sequenceId: seq.id, userId: a.id } });
    const res = await t.request(MANUAL, { key, body: { sequenceId: seq.id, tag: group.id } });
    expect(res.status).toBe(201);
    expect((await res.json()).data).toEqual({ sequenceId: seq.id, enrolled: 1, alreadyEnrolled: 1 });
    await t.db.insert(patientTags).values({ clinicId: clinic.id, tagId: group.id, patientId: c.id });
    expect((await (await t.request(MANUAL, { key, body: { sequenceId: seq.id, tag: group.id } })).json()).data).toEqual({
      sequenceId: seq.id,
      enrolled: 1,
      alreadyEnrolled: 2,
    });
    const empty = await tag(clinic.id);
    expect((await (await t.request(MANUAL, { key, body: { sequenceId: seq.id, tag: empty.id } })).json()).data).toEqual({
      sequenceId: seq.id,
      enrolled: 0,
      alreadyEnrolled: 0,
    });
    const rows = await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.sequenceId, seq.id));
    expect(rows.map((r) => r.patientId).sort()).toEqual([a.id, b.id, c.id].sort());
  });

  it('takes exactly one of userId and tag (400 otherwise)', async () => {
    const { key, clinic } = await tenant();
    const seq = await activeSequence(key);
    const a = await patient(clinic.id);
    const group = await tag(clinic.id, [a.id]);
    for (const body of [
      { sequenceId: seq.id },
      { sequenceId: seq.id, userId: a.id, tag: group.id },
      { userId: a.id },
      { sequenceId: seq.id, userId: a.id, extra: 1 },
    ]) {
      const res = await t.request(MANUAL, { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).code).toBe('VALIDATION_ERROR');
    }
    const neither = await (await t.request(MANUAL, { key, body: { sequenceId: seq.id } })).json();
    expect(neither.message).toContain('exactly one of userId and tag');
    expect(await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.sequenceId, seq.id))).toEqual([]);
  });

  it('answers 409 unless the sequence is active (draft, paused, archived)', async () => {
    const { key, clinic } = await tenant();
    const a = await patient(clinic.id);
    const draft = await createSequence(key);
    const seq = await activeSequence(key);
    await put(key, seq.id, { status: 'paused' });
    const archived = await createSequence(key);
    await put(key, archived.id, { status: 'archived' });
    for (const id of [draft.id, seq.id, archived.id]) {
      const res = await t.request(MANUAL, { key, body: { sequenceId: id, userId: a.id } });
      expect(res.status).toBe(409);
      expect((await res.json()).code).toBe('CONFLICT');
    }
    await put(key, seq.id, { status: 'active' });
    expect((await t.request(MANUAL, { key, body: { sequenceId: seq.id, userId: a.id } })).status).toBe(201);
  });

  it("answers the same 404 for another clinic's or an unknown sequence, contact or tag", async () => {
    const { key, clinic } = await tenant();
    const seq = await activeSequence(key);
    const mine = await patient(clinic.id);
    const other = await tenant();
    const theirSeq = await activeSequence(other.key);
    const theirPatient = await patient(other.clinic.id);
    const theirTag = await tag(other.clinic.id, [theirPatient.id]);
    const cases: [Record<string, string>, string][] = [
      [{ sequenceId: theirSeq.id, userId: mine.id }, 'Sequence not found'],
      [{ sequenceId: randomUUID(), userId: mine.id }, 'Sequence not found'],
      [{ sequenceId: 'nope', userId: mine.id }, 'Sequence not found'],
      [{ sequenceId: seq.id, userId: theirPatient.id }, 'Contact not found'],
      [{ sequenceId: seq.id, userId: randomUUID() }, 'Contact not found'],
      [{ sequenceId: seq.id, userId: 'nope' }, 'Contact not found'],
      [{ sequenceId: seq.id, tag: theirTag.id }, 'Tag not found'],
      [{ sequenceId: seq.id, tag: randomUUID() }, 'Tag not found'],
    ];
    for (const [body, message] of cases) {
      const res = await t.request(MANUAL, { key, body });
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(await res.json()).toEqual({ success: false, message, code: 'NOT_FOUND' });
    }
    const enrolled = await t.db
      .select()
      .from(sequenceEnrollments)
      .where(and(eq(sequenceEnrollments.sequenceId, theirSeq.id), eq(sequenceEnrollments.patientId, mine.id)));
    expect(enrolled).toEqual([]);
    expect(await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.patientId, theirPatient.id))).toEqual([]);
  });

  it('needs the write scope', async () => {
    const { key, readKey, clinic } = await tenant();
    const seq = await activeSequence(key);
    const a = await patient(clinic.id);
    expect((await t.request(MANUAL, { key: readKey, body: { sequenceId: seq.id, userId: a.id } })).status).toBe(403);
  });
});
