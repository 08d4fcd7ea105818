// The sequence runner under a simulated clock: sequences that run to completion, opted-out contacts
// skipped, merge fields, pause and resume, triggers, no double sends, bounded batches, analytics
// through GET /sequences/{id} (docs/crm-sequences.md, "The runner").
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { messages, messageTemplates, patients, patientTags, sequenceEnrollments, sequenceStepRuns, tags } from '../../../drizzle/schema';
import { runSequences, sequenceSweep } from '../../../src/modules/crm/sequences/runner';
import { DevelopmentMessageSender, type MessageSender } from '../../../src/platform/providers/messaging';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();
const DAY = 86_400_000;
const sender = new DevelopmentMessageSender();

/** Runs the sweep at the harness clock's time. */
const sweep = (options: Parameters<typeof runSequences>[3] = {}, using: MessageSender = sender) =>
  runSequences(t.db, new Date(t.clock.now()), using, options);

/** Starts each test on a frozen clock, whole seconds, near real time (keys expire a year from now). */
const freeze = () => t.clock.freezeAt(Math.floor(Date.now() / 1000) * 1000);

async function api(key: string, path: string, body?: unknown, method?: string) {
  const res = await t.request(path, { key, body, method });
  expect(res.status, `${method ?? (body ? 'POST' : 'GET')} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return (await res.json()).data;
}

async function patient(clinicId: string, values: Partial<typeof patients.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(patients)
    .values({
      clinicId,
      firstName: 'Pat',
      lastName: 'Ient',
      email: `p-${randomUUID().slice(0, 8)}@example.test`,
      phoneNumber: '+15550100000',
      ...values,
    })
    .returning();
  return row!;
}

async function tag(clinicId: string, patientIds: string[] = [], createdAt = new Date(t.clock.now())) {
  const [row] = await t.db
    .insert(tags)
    .values({ clinicId, name: `Tag ${randomUUID().slice(0, 8)}`, color: '#00aa00' })
    .returning();
  if (patientIds.length)
    await t.db.insert(patientTags).values(patientIds.map((patientId) => ({ clinicId, tagId: row!.id, patientId, createdAt })));
  return row!;
}

/** An active sequence with these steps (templates made on the way). */
async function sequenceWith(key: string, steps: unknown[], trigger: Record<string, unknown> = { triggerEvent: 'manual' }) {
  const seq = await api(key, '/api/v1/sequences', { name: 'Runner test', ...trigger });
  await api(key, `/api/v1/sequences/${seq.id}/steps`, { steps }, 'PUT');
  await api(key, `/api/v1/sequences/${seq.id}`, { status: 'active' }, 'PUT');
  return seq.id as string;
}

const emailTemplate = (key: string, values: Record<string, unknown> = {}) =>
  api(key, '/api/v1/message-templates', {
    name: 'Mail',
    type: 'email',
    subject: 'Hello {{firstName}}',
    body: '<p>Hi {{firstName}}</p>',
    ...values,
  });

const messagesOf = (clinicId: string) =>
  t.db.select().from(messages).where(eq(messages.clinicId, clinicId)).orderBy(asc(messages.createdAt), asc(messages.toAddress));

const analytics = async (key: string, id: string) => (await api(key, `/api/v1/sequences/${id}`)).analytics;

describe('the sequence runner', () => {
  it('runs a sequence to completion under a simulated clock, skipping opted-out contacts, with analytics on GET /sequences/{id}', async () => {
    freeze();
    const { key, clinic } = await makeTenant(t.db);
    const welcome = await emailTemplate(key, {
      subject: 'Welcome to {{clinicName}}, {{firstName}}',
      body: '<p>Hi {{firstName}} {{lastName}} ({{ email }}){{nickname}}!</p>',
    });
    const reminder = await api(key, '/api/v1/message-templates', {
      name: 'SMS',
      type: 'sms',
      body: 'Hi {{firstName}}, see you at {{clinicName}}. {{unknown}}',
    });
    const seqId = await sequenceWith(key, [
      { type: 'email', templateId: welcome.id },
      { type: 'delay', timeSeconds: 86_400 },
      { type: 'sms', templateId: reminder.id },
      { type: 'delay', timeSeconds: 2 * 86_400 },
      { type: 'email', useCustomText: true, customSubject: 'Last one, {{firstName}}', customText: 'Bye {{firstName}} & co' },
    ]);
    const alice = await patient(clinic.id, {
      firstName: 'Al<i>ce',
      lastName: "O'Hara",
      email: 'alice@example.test',
      phoneNumber: '+15550000001',
    });
    const bob = await patient(clinic.id, { firstName: 'Bob', email: 'bob@example.test', phoneNumber: '+15550000002', smsOptedOut: true });
    const carol = await patient(clinic.id, {
      firstName: 'Carol',
      email: 'carol@example.test',
      phoneNumber: '+15550000003',
      emailOptedOut: true,
    });
    const dave = await patient(clinic.id, { firstName: 'Dave', email: 'dave@example.test', phoneNumber: null });
    const everyone = await tag(clinic.id, [alice.id, bob.id, carol.id, dave.id]);
    expect(await api(key, '/api/v1/sequence-triggers/manual', { sequenceId: seqId, tag: everyone.id })).toMatchObject({ enrolled: 4 });

    // Day 0: the welcome email (Carol opted out of email), then the one-day delay starts.
    const t0 = t.clock.now();
    await sweep();
    const day0 = await messagesOf(clinic.id);
    expect(day0.map((m) => [m.channel, m.toAddress, m.subject])).toEqual([
      ['email', 'alice@example.test', `Welcome to ${clinic.name}, Al<i>ce`],
      ['email', 'bob@example.test', `Welcome to ${clinic.name}, Bob`],
      ['email', 'dave@example.test', `Welcome to ${clinic.name}, Dave`],
    ]);
    // Email bodies are HTML: values are escaped; unknown fields render empty.
    expect(day0[0]!.body).toBe('<p>Hi Al&lt;i&gt;ce O&#39;Hara (alice@example.test)!</p>');
    expect(day0[0]).toMatchObject({ kind: 'sequence', provider: 'development', status: 'sent', patientId: alice.id });
    expect(await analytics(key, seqId)).toEqual({ enrolled: 4, active: 4, completed: 0, cancelled: 0, sent: 3, skipped: 1, failed: 0 });
    const afterDay0 = await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.sequenceId, seqId));
    for (const e of afterDay0) {
      expect(e).toMatchObject({ status: 'active', nextStepPosition: 2 });
      expect(e.nextRunAt!.getTime()).toBe(t0 + DAY);
    }

    // Nothing more is due until the delay is over.
    await sweep();
    t.clock.advance(DAY - 1_000);
    await sweep();
    expect(await messagesOf(clinic.id)).toHaveLength(3);

    // Day 1: the SMS (Bob opted out of SMS, Dave has no phone).
    t.clock.advance(1_000);
    await sweep();
    const day1 = (await messagesOf(clinic.id)).slice(3);
    expect(day1.map((m) => [m.channel, m.toAddress, m.subject, m.body])).toEqual([
      ['sms', '+15550000001', null, `Hi Al<i>ce, see you at ${clinic.name}. `],
      ['sms', '+15550000003', null, `Hi Carol, see you at ${clinic.name}. `],
    ]);
    expect(await analytics(key, seqId)).toMatchObject({ active: 4, completed: 0, sent: 5, skipped: 3 });

    // Day 3: the last email, then every enrollment is complete.
    t.clock.advance(2 * DAY - 1_000);
    await sweep();
    expect(await messagesOf(clinic.id)).toHaveLength(5);
    t.clock.advance(1_000);
    await sweep();
    const day3 = (await messagesOf(clinic.id)).slice(5);
    expect(day3.map((m) => [m.toAddress, m.subject, m.body])).toEqual([
      ['alice@example.test', 'Last one, Al<i>ce', 'Bye Al&lt;i&gt;ce & co'],
      ['bob@example.test', 'Last one, Bob', 'Bye Bob & co'],
      ['dave@example.test', 'Last one, Dave', 'Bye Dave & co'],
    ]);
    expect(await analytics(key, seqId)).toEqual({ enrolled: 4, active: 0, completed: 4, cancelled: 0, sent: 8, skipped: 4, failed: 0 });
    const done = await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.sequenceId, seqId));
    for (const e of done) {
      expect(e).toMatchObject({ status: 'completed', nextRunAt: null, nextStepPosition: 5 });
      expect(e.completedAt!.getTime()).toBe(t.clock.now());
    }

    // Every message step left one run; sent ones point at their message.
    const runs = await t.db.select().from(sequenceStepRuns).where(eq(sequenceStepRuns.sequenceId, seqId));
    const byPatient = (p: { id: string }) => {
      const enrollment = done.find((e) => e.patientId === p.id)!;
      return runs
        .filter((r) => r.enrollmentId === enrollment.id)
        .sort((a, b) => a.stepPosition - b.stepPosition)
        .map((r) => [r.stepPosition, r.stepType, r.outcome, r.reason, r.messageId !== null]);
    };
    expect(byPatient(alice)).toEqual([
      [0, 'email', 'sent', null, true],
      [2, 'sms', 'sent', null, true],
      [4, 'email', 'sent', null, true],
    ]);
    expect(byPatient(bob)).toEqual([
      [0, 'email', 'sent', null, true],
      [2, 'sms', 'skipped', 'sms_opted_out', false],
      [4, 'email', 'sent', null, true],
    ]);
    expect(byPatient(carol)).toEqual([
      [0, 'email', 'skipped', 'email_opted_out', false],
      [2, 'sms', 'sent', null, true],
      [4, 'email', 'skipped', 'email_opted_out', false],
    ]);
    expect(byPatient(dave)).toEqual([
      [0, 'email', 'sent', null, true],
      [2, 'sms', 'skipped', 'no_phone', false],
      [4, 'email', 'sent', null, true],
    ]);
    const linked = await t.db
      .select()
      .from(messages)
      .where(inArray(messages.id, runs.map((r) => r.messageId!).filter(Boolean)));
    expect(linked).toHaveLength(8);

    // Finished: later sweeps send nothing.
    t.clock.advance(10 * DAY);
    await sweep();
    expect(await messagesOf(clinic.id)).toHaveLength(8);
  });

  it('lets enrollments of a paused sequence wait, and continues them on resume', async () => {
    freeze();
    const { key, clinic } = await makeTenant(t.db);
    const mail = await emailTemplate(key);
    const seqId = await sequenceWith(key, [
      { type: 'delay', timeSeconds: 3_600 },
      { type: 'email', templateId: mail.id },
    ]);
    const a = await patient(clinic.id, { firstName: 'Ann' });
    await api(key, '/api/v1/sequence-triggers/manual', { sequenceId: seqId, userId: a.id });
    await sweep();
    await api(key, `/api/v1/sequences/${seqId}`, { status: 'paused' }, 'PUT');
    t.clock.advance(2 * 3_600_000);
    await sweep();
    expect(await messagesOf(clinic.id)).toEqual([]);
    expect(await analytics(key, seqId)).toMatchObject({ active: 1, sent: 0 });

    t.clock.advance(DAY);
    await api(key, `/api/v1/sequences/${seqId}`, { status: 'active' }, 'PUT');
    await sweep();
    const sent = await messagesOf(clinic.id);
    expect(sent.map((m) => m.subject)).toEqual(['Hello Ann']);
    expect(await analytics(key, seqId)).toMatchObject({ active: 0, completed: 1, sent: 1 });
  });

  it('continues paused enrollments at their position with replaced steps', async () => {
    freeze();
    const { key, clinic } = await makeTenant(t.db);
    const mail = await emailTemplate(key);
    const seqId = await sequenceWith(key, [
      { type: 'email', templateId: mail.id },
      { type: 'delay', timeSeconds: 60 },
      { type: 'email', templateId: mail.id },
    ]);
    const a = await patient(clinic.id, { firstName: 'Ann' });
    await api(key, '/api/v1/sequence-triggers/manual', { sequenceId: seqId, userId: a.id });
    await sweep(); // sends step 0, waits at step 2
    await api(key, `/api/v1/sequences/${seqId}`, { status: 'paused' }, 'PUT');
    await api(
      key,
      `/api/v1/sequences/${seqId}/steps`,
      {
        steps: [
          { type: 'email', templateId: mail.id },
          { type: 'delay', timeSeconds: 60 },
          { type: 'sms', useCustomText: true, customText: 'New step for {{firstName}}' },
          { type: 'delay', timeSeconds: 60 },
        ],
      },
      'PUT',
    );
    await api(key, `/api/v1/sequences/${seqId}`, { status: 'active' }, 'PUT');
    t.clock.advance(60_000);
    await sweep();
    expect((await messagesOf(clinic.id)).map((m) => m.body)).toEqual(['<p>Hi Ann</p>', 'New step for Ann']);
    t.clock.advance(60_000);
    await sweep();
    expect(await analytics(key, seqId)).toMatchObject({ completed: 1, sent: 2 });
  });

  it('never sends a step twice: a recorded run is not sent again, and concurrent sweeps share the work', async () => {
    freeze();
    const { key, clinic } = await makeTenant(t.db);
    const mail = await emailTemplate(key);
    const seqId = await sequenceWith(key, [
      { type: 'email', templateId: mail.id },
      { type: 'sms', useCustomText: true, customText: 'Two' },
    ]);
    const people = await Promise.all(Array.from({ length: 24 }, (_, i) => patient(clinic.id, { firstName: `P${i}` })));
    const group = await tag(
      clinic.id,
      people.map((p) => p.id),
    );
    await api(key, '/api/v1/sequence-triggers/manual', { sequenceId: seqId, tag: group.id });

    // As if a crash had happened after the first step of people[0] was recorded (with its message).
    const [first] = await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.patientId, people[0]!.id));
    await t.db
      .insert(sequenceStepRuns)
      .values({ clinicId: clinic.id, sequenceId: seqId, enrollmentId: first!.id, stepPosition: 0, stepType: 'email', outcome: 'sent' });

    await Promise.all([sweep({ batchSize: 5 }), sweep({ batchSize: 5 }), sweep({ batchSize: 3 })]);
    const sent = await messagesOf(clinic.id);
    expect(sent.filter((m) => m.channel === 'email')).toHaveLength(23);
    expect(sent.filter((m) => m.channel === 'sms')).toHaveLength(24);
    const perPatient = new Map<string, number>();
    for (const m of sent) perPatient.set(`${m.patientId}:${m.channel}`, (perPatient.get(`${m.patientId}:${m.channel}`) ?? 0) + 1);
    expect([...perPatient.values()].every((n) => n === 1)).toBe(true);
    expect(perPatient.has(`${people[0]!.id}:email`)).toBe(false);
    expect(await analytics(key, seqId)).toMatchObject({ enrolled: 24, completed: 24, active: 0, sent: 48 });
  });

  it('works in bounded batches: a sweep runs at most maxSteps steps, with a fixed number of statements besides the messages', async () => {
    freeze();
    await sweep(); // anything other tests left due
    const { key, clinic } = await makeTenant(t.db);
    const mail = await emailTemplate(key);
    const seqId = await sequenceWith(key, [{ type: 'email', templateId: mail.id }]);
    const people = await Promise.all(Array.from({ length: 12 }, () => patient(clinic.id)));
    await api(key, '/api/v1/sequence-triggers/manual', {
      sequenceId: seqId,
      tag: (
        await tag(
          clinic.id,
          people.map((p) => p.id),
        )
      ).id,
    });

    const stats = await sweep({ batchSize: 5, maxSteps: 7 });
    expect(stats).toMatchObject({ steps: 7, sent: 7, completed: 7 });
    expect(await messagesOf(clinic.id)).toHaveLength(7);
    expect(await analytics(key, seqId)).toMatchObject({ active: 5, completed: 7 });

    await t.flush();
    t.queries.length = 0;
    await sweep({ batchSize: 100 });
    const statements = t.queries.filter((q) => !q.startsWith('insert into "messages"'));
    const inserts = t.queries.length - statements.length;
    expect(inserts).toBe(5);
    // 2 trigger inserts; a batch: begin, select, runs, run message ids, enrollments, commit; the empty round: begin, select, commit.
    expect(statements.length).toBeLessThanOrEqual(12);
    expect(await analytics(key, seqId)).toMatchObject({ active: 0, completed: 12, sent: 12 });
  });

  it('records a failed run when a template went missing and goes on with the next steps', async () => {
    freeze();
    const { key, clinic } = await makeTenant(t.db);
    const mail = await emailTemplate(key);
    const seqId = await sequenceWith(key, [
      { type: 'email', templateId: mail.id },
      { type: 'sms', useCustomText: true, customText: 'Still here' },
    ]);
    const a = await patient(clinic.id);
    await api(key, '/api/v1/sequence-triggers/manual', { sequenceId: seqId, userId: a.id });
    // Not possible through the API while the sequence is active; the runner copes anyway.
    await t.db.update(messageTemplates).set({ deletedAt: new Date() }).where(eq(messageTemplates.id, mail.id));
    await sweep();
    expect((await messagesOf(clinic.id)).map((m) => m.body)).toEqual(['Still here']);
    expect(await analytics(key, seqId)).toMatchObject({ completed: 1, sent: 1, failed: 1 });
    const [run] = await t.db
      .select()
      .from(sequenceStepRuns)
      .where(and(eq(sequenceStepRuns.sequenceId, seqId), eq(sequenceStepRuns.stepPosition, 0)));
    expect(run).toMatchObject({ outcome: 'failed', reason: 'template_deleted', messageId: null });
  });

  it('sends email bodies as HTML, and never sends one stored before the markup rule (failed unsafe_markup)', async () => {
    freeze();
    const { key, clinic } = await makeTenant(t.db);
    const mail = await emailTemplate(key);
    const old = await emailTemplate(key, { name: 'Old' });
    const seqId = await sequenceWith(key, [
      { type: 'email', templateId: mail.id },
      { type: 'email', templateId: old.id },
      { type: 'email', useCustomText: true, customSubject: 'Custom', customText: '<p>Custom {{firstName}}</p>' },
    ]);
    const a = await patient(clinic.id, { firstName: '<b>Al</b>' });
    await api(key, '/api/v1/sequence-triggers/manual', { sequenceId: seqId, userId: a.id });
    // A body saved before the rule (written behind the API's back, as such a row was).
    await t.db
      .update(messageTemplates)
      .set({ body: '<p>Hi {{firstName}}</p><img src=x onerror=alert(1)>' })
      .where(eq(messageTemplates.id, old.id));
    await sweep();
    expect((await messagesOf(clinic.id)).map((m) => [m.format, m.body])).toEqual([
      ['html', '<p>Hi &lt;b&gt;Al&lt;/b&gt;</p>'],
      ['html', '<p>Custom &lt;b&gt;Al&lt;/b&gt;</p>'],
    ]);
    const runs = await t.db
      .select()
      .from(sequenceStepRuns)
      .where(eq(sequenceStepRuns.sequenceId, seqId))
      .orderBy(sequenceStepRuns.stepPosition);
    expect(runs.map((r) => [r.outcome, r.reason])).toEqual([
      ['sent', null],
      ['failed', 'unsafe_markup'],
      ['sent', null],
    ]);
  });

  it('keeps going when one enrollment cannot be sent: the others advance, that one waits for the next sweep', async () => {
    freeze();
    const { key, clinic } = await makeTenant(t.db);
    const seqId = await sequenceWith(key, [{ type: 'sms', useCustomText: true, customText: 'Hi {{firstName}}' }]);
    const people = await Promise.all(['A', 'B', 'Broken', 'D'].map((firstName) => patient(clinic.id, { firstName })));
    await api(key, '/api/v1/sequence-triggers/manual', {
      sequenceId: seqId,
      tag: (
        await tag(
          clinic.id,
          people.map((p) => p.id),
        )
      ).id,
    });
    const failing: MessageSender = {
      provider: 'development',
      async send(db, message, now) {
        if (message.body.includes('Broken')) throw new Error('provider refused');
        return sender.send(db, message, now);
      },
    };
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    await sweep({}, failing);
    // The batch failed, was retried one by one, and the one that failed again was logged.
    expect(logged.mock.calls.map((c) => JSON.parse(String(c[0])).msg)).toEqual([
      'sequence batch failed; retrying one by one',
      'sequence enrollment step failed',
    ]);
    logged.mockRestore();
    expect((await messagesOf(clinic.id)).map((m) => m.body).sort()).toEqual(['Hi A', 'Hi B', 'Hi D']);
    expect(await analytics(key, seqId)).toMatchObject({ active: 1, completed: 3, sent: 3 });
    await sweep();
    expect(await analytics(key, seqId)).toMatchObject({ active: 0, completed: 4, sent: 4 });
  });

  it('enrolls contacts created after a contact_created sequence started (also while paused), not earlier ones', async () => {
    freeze();
    const { key, clinic } = await makeTenant(t.db);
    const before = await patient(clinic.id, { firstName: 'Before', createdAt: new Date(t.clock.now() - 60_000) });
    const mail = await emailTemplate(key);
    const seqId = await sequenceWith(key, [{ type: 'email', templateId: mail.id }], { triggerEvent: 'contact_created' });
    t.clock.advance(1_000);
    await patient(clinic.id, { firstName: 'After', createdAt: new Date(t.clock.now()) });
    const stats = await sweep();
    expect(stats.enrolled).toBeGreaterThanOrEqual(1);
    expect((await messagesOf(clinic.id)).map((m) => m.subject)).toEqual(['Hello After']);

    await api(key, `/api/v1/sequences/${seqId}`, { status: 'paused' }, 'PUT');
    t.clock.advance(1_000);
    await patient(clinic.id, { firstName: 'Paused', createdAt: new Date(t.clock.now()) });
    await sweep();
    expect(await analytics(key, seqId)).toMatchObject({ enrolled: 2, active: 1, completed: 1 });
    await api(key, `/api/v1/sequences/${seqId}`, { status: 'active' }, 'PUT');
    await sweep();
    await sweep();
    expect((await messagesOf(clinic.id)).map((m) => m.subject)).toEqual(['Hello After', 'Hello Paused']);
    const enrolled = await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.sequenceId, seqId));
    expect(enrolled.map((e) => e.patientId)).not.toContain(before.id);
    expect(enrolled).toHaveLength(2);
  });

  it("enrolls contacts given a tag_added sequence's tag after it started", async () => {
    freeze();
    const { key, clinic } = await makeTenant(t.db);
    const [early, late, untagged] = [
      await patient(clinic.id, { firstName: 'Early' }),
      await patient(clinic.id, { firstName: 'Late' }),
      await patient(clinic.id),
    ];
    const vip = await tag(clinic.id, [early.id], new Date(t.clock.now() - 60_000));
    const mail = await emailTemplate(key);
    const seqId = await sequenceWith(key, [{ type: 'email', templateId: mail.id }], { triggerEvent: 'tag_added', triggerTagId: vip.id });
    t.clock.advance(1_000);
    await t.db.insert(patientTags).values({ clinicId: clinic.id, tagId: vip.id, patientId: late.id, createdAt: new Date(t.clock.now()) });
    await sweep();
    expect((await messagesOf(clinic.id)).map((m) => m.subject)).toEqual(['Hello Late']);
    const enrolled = await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.sequenceId, seqId));
    expect(enrolled.map((e) => e.patientId)).toEqual([late.id]);
    expect(enrolled.map((e) => e.patientId)).not.toContain(untagged.id);
  });

  it('is the Sweep the Worker cron runs (sender from the configuration)', async () => {
    freeze();
    const { key, clinic } = await makeTenant(t.db);
    const seqId = await sequenceWith(key, [{ type: 'email', useCustomText: true, customSubject: 'Cron', customText: 'From cron' }]);
    const a = await patient(clinic.id);
    await api(key, '/api/v1/sequence-triggers/manual', { sequenceId: seqId, userId: a.id });
    await sequenceSweep(t.db, new Date(t.clock.now()), t.services);
    expect((await messagesOf(clinic.id)).map((m) => [m.subject, m.body, m.provider])).toEqual([['Cron', 'From cron', 'development']]);
  });
});
