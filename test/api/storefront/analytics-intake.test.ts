// The intake events: intake.started recorded by the development simulator's session start (POST
// /_dev/intake/sessions) in the transaction that creates the session, and intake.abandoned recorded by
// the sweep that abandons stale sessions, exactly once each.
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { type FormSessionStatus, formSessions, outboxEvents, patients, questionnaires } from '../../../drizzle/schema';
import {
  abandonStaleFormSessions,
  abandonStaleFormSessionsSweep,
  STALE_SESSION_HOURS,
} from '../../../src/modules/storefront/analytics/intake-events';
import { buildTestApp, type TestApp, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { makeProgram } from '../../helpers/program-fixtures';

const t = useTestApp();
let dev: TestApp;
beforeAll(() => {
  dev = buildTestApp(t.db, t.databaseUrl);
  dev.config.devSimulator = true;
});

const HOUR = 3_600_000;
const NOW = Date.UTC(2030, 0, 15, 12, 0, 0);

async function tenant() {
  const made = await makeTenant(t.db);
  const c = made.clinic.id;
  const [form] = await t.db.insert(questionnaires).values({ clinicId: c, name: 'Weight intake' }).returning();
  const program = await makeProgram(t.db, c);
  const [patient] = await t.db
    .insert(patients)
    .values({ clinicId: c, firstName: 'Pat', lastName: 'Ient', email: `p-${randomUUID()}@example.test` })
    .returning();
  return {
    ...made,
    key: (await makeKey(t.db, c, { expiresAt: null })).raw,
    readKey: (await makeKey(t.db, c, { expiresAt: null, scopes: ['read'] })).raw,
    form: form!,
    program,
    patient: patient!,
  };
}

const start = (key: string | undefined, body: unknown, app = dev) => {
  app.clock.freezeAt(NOW);
  return app.request('/_dev/intake/sessions', { method: 'POST', key, body });
};
const progress = (key: string, id: string, body: unknown) => {
  dev.clock.freezeAt(NOW + HOUR);
  return dev.request(`/_dev/intake/sessions/${id}/progress`, { method: 'POST', key, body });
};

const eventsOf = (clinicId: string) =>
  t.db.select().from(outboxEvents).where(eq(outboxEvents.clinicId, clinicId)).orderBy(asc(outboxEvents.createdAt), asc(outboxEvents.id));

describe('POST /_dev/intake/sessions', () => {
  it('answers the generic 404 of an unknown route when DEV_SIMULATOR is not "true"', async () => {
    const w = await tenant();
    const res = await start(w.key, { formId: w.form.id, totalSteps: 5 }, t);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, code: 'NOT_FOUND', message: 'No route for POST /_dev/intake/sessions' });
    expect(await eventsOf(w.clinic.id)).toEqual([]);
  });

  it('starts a session and records intake.started (ids only) in the same transaction', async () => {
    const w = await tenant();
    const res = await start(w.key, { formId: w.form.id, programId: w.program.id, patientId: w.patient.id, totalSteps: 5 });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toMatchObject({
      formId: w.form.id,
      programId: w.program.id,
      status: 'started',
      lastStepReached: 1,
      totalSteps: 5,
      startedAt: new Date(NOW).toISOString(),
      completedAt: null,
      abandonedAt: null,
      event: { eventType: 'intake.started' },
    });
    const [row] = await t.db.select().from(formSessions).where(eq(formSessions.id, data.id));
    expect(row).toMatchObject({ clinicId: w.clinic.id, questionnaireId: w.form.id, patientId: w.patient.id, status: 'started' });
    const events = await eventsOf(w.clinic.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      id: data.event.id,
      eventType: 'intake.started',
      payload: { formSessionId: data.id, formId: w.form.id, programId: w.program.id },
      dispatchedAt: null,
      createdAt: new Date(NOW),
    });
    expect(Object.keys(events[0]!.payload).sort()).toEqual(['formId', 'formSessionId', 'programId']);
    // Without a program or patient: programId null in the payload.
    const bare = await (await start(w.key, { formId: w.form.id, totalSteps: 3 })).json();
    // Both events carry the same (frozen) time, so find this one by its session rather than by order.
    const all = await eventsOf(w.clinic.id);
    expect(all).toHaveLength(2);
    expect(all.find((e) => e.payload.formSessionId === bare.data.id)!.payload).toEqual({
      formSessionId: bare.data.id,
      formId: w.form.id,
      programId: null,
    });
  });

  it("refuses another clinic's form, program or patient with 404 and writes nothing", async () => {
    const w = await tenant();
    const other = await tenant();
    const cases: [Record<string, unknown>, string][] = [
      [{ formId: other.form.id, totalSteps: 4 }, 'Form not found'],
      [{ formId: randomUUID(), totalSteps: 4 }, 'Form not found'],
      [{ formId: w.form.id, programId: other.program.id, totalSteps: 4 }, 'Program not found'],
      [{ formId: w.form.id, patientId: other.patient.id, totalSteps: 4 }, 'Patient not found'],
    ];
    for (const [body, message] of cases) {
      const res = await start(w.key, body);
      expect(res.status, message).toBe(404);
      expect((await res.json()).message).toBe(message);
    }
    expect(await t.db.select().from(formSessions).where(eq(formSessions.clinicId, w.clinic.id))).toEqual([]);
    expect(await eventsOf(w.clinic.id)).toEqual([]);
  });

  it('checks the key, then the body', async () => {
    const w = await tenant();
    expect((await start(undefined, { formId: w.form.id, totalSteps: 4 })).status).toBe(401);
    const readOnly = await start(w.readKey, { formId: w.form.id, totalSteps: 4 });
    expect(readOnly.status).toBe(403);
    expect((await readOnly.json()).code).toBe('INSUFFICIENT_SCOPE');
    const publishable = await makeKey(t.db, w.clinic.id, { kind: 'publishable', expiresAt: null });
    expect((await (await start(publishable.raw, { formId: w.form.id, totalSteps: 4 })).json()).code).toBe('KEY_KIND_NOT_ALLOWED');
    for (const body of [
      {},
      { formId: w.form.id },
      { formId: w.form.id, totalSteps: 0 },
      { formId: w.form.id, totalSteps: 101 },
      { formId: 'x', totalSteps: 3 },
      { formId: w.form.id, totalSteps: 3, extra: 1 },
    ]) {
      const res = await start(w.key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).code).toBe('VALIDATION_ERROR');
    }
    dev.clock.freezeAt(NOW);
    const invalid = await dev.request('/_dev/intake/sessions', { method: 'POST', key: w.key, body: '{"formId":' });
    expect((await invalid.json()).code).toBe('INVALID_JSON');
  });
});

describe('POST /_dev/intake/sessions/{id}/progress', () => {
  it('moves a session on and completes it; only a started session moves', async () => {
    const w = await tenant();
    const { data: session } = await (await start(w.key, { formId: w.form.id, totalSteps: 5 })).json();
    const moved = await progress(w.key, session.id, { lastStepReached: 3 });
    expect(moved.status).toBe(200);
    expect((await moved.json()).data).toMatchObject({ status: 'started', lastStepReached: 3 });
    expect((await progress(w.key, session.id, { lastStepReached: 2 })).status).toBe(400);
    expect((await progress(w.key, session.id, { lastStepReached: 6 })).status).toBe(400);
    const done = await progress(w.key, session.id, { complete: true });
    expect((await done.json()).data).toMatchObject({
      status: 'completed',
      lastStepReached: 5,
      completedAt: new Date(NOW + HOUR).toISOString(),
    });
    const again = await progress(w.key, session.id, { lastStepReached: 5 });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('ILLEGAL_TRANSITION');
    // Only intake.started was recorded: the specification has no event for progress or completion.
    expect((await eventsOf(w.clinic.id)).map((e) => e.eventType)).toEqual(['intake.started']);
    // Another clinic's session: 404; the analytics see the completion.
    const other = await tenant();
    expect((await progress(other.key, session.id, { complete: true })).status).toBe(404);
    expect((await progress(w.key, 'nope', { complete: true })).status).toBe(404);
    expect((await progress(w.key, session.id, {})).status).toBe(400);
    dev.clock.freezeAt(NOW + HOUR);
    const forms = await (await dev.request('/api/v1/analytics/forms', { key: w.key })).json();
    expect(forms.data.forms[0]).toMatchObject({ formId: w.form.id, started: 1, completed: 1, completionRate: 100 });
  });
});

describe('the abandonment sweep', () => {
  async function sessionAt(
    clinicId: string,
    formId: string,
    startedAt: Date,
    status: FormSessionStatus = 'started',
    programId: string | null = null,
  ) {
    const [row] = await t.db
      .insert(formSessions)
      .values({
        clinicId,
        questionnaireId: formId,
        programId,
        status,
        lastStepReached: 2,
        totalSteps: 5,
        startedAt,
        completedAt: status === 'completed' ? startedAt : null,
        abandonedAt: status === 'abandoned' ? startedAt : null,
      })
      .returning();
    return row!;
  }

  it(`abandons sessions started more than ${STALE_SESSION_HOURS} hours ago and records intake.abandoned exactly once`, async () => {
    const w = await tenant();
    const now = new Date(NOW + 100 * HOUR);
    const stale = await sessionAt(w.clinic.id, w.form.id, new Date(now.getTime() - 25 * HOUR), 'started', w.program.id);
    const fresh = await sessionAt(w.clinic.id, w.form.id, new Date(now.getTime() - 23 * HOUR));
    const completed = await sessionAt(w.clinic.id, w.form.id, new Date(now.getTime() - 30 * HOUR), 'completed');
    const alreadyAbandoned = await sessionAt(w.clinic.id, w.form.id, new Date(now.getTime() - 48 * HOUR), 'abandoned');

    await abandonStaleFormSessions(t.db, now);
    const rows = new Map((await t.db.select().from(formSessions).where(eq(formSessions.clinicId, w.clinic.id))).map((r) => [r.id, r]));
    expect(rows.get(stale.id)).toMatchObject({ status: 'abandoned', abandonedAt: now, lastStepReached: 2 });
    expect(rows.get(fresh.id)).toMatchObject({ status: 'started', abandonedAt: null });
    expect(rows.get(completed.id)).toMatchObject({ status: 'completed', abandonedAt: null });
    expect(rows.get(alreadyAbandoned.id)!.abandonedAt).toEqual(alreadyAbandoned.abandonedAt);
    const events = await eventsOf(w.clinic.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventType: 'intake.abandoned',
      payload: { formSessionId: stale.id, formId: w.form.id, programId: w.program.id },
      createdAt: now,
    });

    // Running again records nothing more; the fresh session is abandoned once it is stale.
    await abandonStaleFormSessions(t.db, now);
    expect(await eventsOf(w.clinic.id)).toHaveLength(1);
    const later = new Date(now.getTime() + 2 * HOUR);
    await abandonStaleFormSessionsSweep(t.db, later, t.services);
    await abandonStaleFormSessionsSweep(t.db, later, t.services);
    const after = await eventsOf(w.clinic.id);
    expect(after.map((e) => e.payload.formSessionId)).toEqual([stale.id, fresh.id]);
    expect(after.every((e) => e.eventType === 'intake.abandoned')).toBe(true);
  });

  it('works in batches, one event per session, across clinics', async () => {
    const a = await tenant();
    const b = await tenant();
    const now = new Date(NOW + 1_000 * HOUR);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await sessionAt(a.clinic.id, a.form.id, new Date(now.getTime() - (30 + i) * HOUR))).id);
    for (let i = 0; i < 2; i++) ids.push((await sessionAt(b.clinic.id, b.form.id, new Date(now.getTime() - (30 + i) * HOUR))).id);
    const abandoned = await abandonStaleFormSessions(t.db, now, { batchSize: 2 });
    expect(abandoned).toBeGreaterThanOrEqual(7);
    const rows = await t.db.select().from(formSessions).where(inArray(formSessions.id, ids));
    expect(rows.every((r) => r.status === 'abandoned')).toBe(true);
    expect((await eventsOf(a.clinic.id)).map((e) => e.payload.formSessionId).sort()).toEqual(ids.slice(0, 5).sort());
    expect((await eventsOf(b.clinic.id)).map((e) => e.payload.formSessionId).sort()).toEqual(ids.slice(5).sort());
    const events = await t.db
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.eventType, 'intake.abandoned'), inArray(outboxEvents.clinicId, [a.clinic.id, b.clinic.id])));
    expect(events).toHaveLength(7);
  });
});
