// Intake-form analytics (forms, per-form and per-program funnels) and product-like analytics (one
// product's likes, bulk counts): figures checked against the rows created here, tenant isolation,
// clinicId ignored, validation, one statement per read, and counts that mutate nothing.
import { randomUUID } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { type FormSessionStatus, formSessions, outboxEvents, patients, productLikes, questionnaires } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { makeGlobalProduct, makeProgram, makeTenantProduct } from '../../helpers/program-fixtures';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();

const DAY = 86_400_000;
const HOUR = 3_600_000;
const NOW = Date.UTC(2030, 0, 15, 12, 0, 0);
const ago = (ms: number) => new Date(NOW - ms);

async function tenant() {
  const made = await makeTenant(t.db);
  return {
    ...made,
    key: (await makeKey(t.db, made.clinic.id, { expiresAt: null })).raw,
    readKey: (await makeKey(t.db, made.clinic.id, { expiresAt: null, scopes: ['read'] })).raw,
  };
}

async function questionnaire(clinicId: string, name: string) {
  const [row] = await t.db.insert(questionnaires).values({ clinicId, name }).returning();
  return row!;
}

async function patient(clinicId: string) {
  const u = randomUUID().slice(0, 8);
  const [row] = await t.db
    .insert(patients)
    .values({ clinicId, firstName: `Ophelia${u}`, lastName: `Windermere${u}`, email: `ophelia-${u}@private-example.test` })
    .returning();
  return row!;
}

async function session(
  clinicId: string,
  questionnaireId: string,
  values: {
    status: FormSessionStatus;
    last: number;
    total: number;
    startedAgo: number;
    programId?: string | null;
    patientId?: string | null;
  },
) {
  const startedAt = ago(values.startedAgo);
  const [row] = await t.db
    .insert(formSessions)
    .values({
      clinicId,
      questionnaireId,
      programId: values.programId ?? null,
      patientId: values.patientId ?? null,
      status: values.status,
      lastStepReached: values.last,
      totalSteps: values.total,
      startedAt,
      completedAt: values.status === 'completed' ? new Date(startedAt.getTime() + 600_000) : null,
      abandonedAt: values.status === 'abandoned' ? new Date(startedAt.getTime() + DAY) : null,
    })
    .returning();
  return row!;
}

async function like(clinicId: string, tenantProductId: string, patientId: string, createdAt: Date) {
  await t.db.insert(productLikes).values({ clinicId, tenantProductId, patientId, createdAt });
}

let w: Awaited<ReturnType<typeof world>>;

async function world() {
  const a = await tenant();
  const b = await tenant();
  const c = a.clinic.id;
  const [q1, q2, q3] = [
    await questionnaire(c, 'Weight intake'),
    await questionnaire(c, 'Hormone intake'),
    await questionnaire(c, 'Unused intake'),
  ];
  const [p1, p2] = [
    await makeProgram(t.db, c, { name: 'Weight program', state: 'live' }),
    await makeProgram(t.db, c, { name: 'Hormone program' }),
  ];
  const pat = await patient(c);
  const s = {
    s1: await session(c, q1.id, { status: 'completed', last: 6, total: 6, startedAgo: DAY, programId: p1.id, patientId: pat.id }),
    s2: await session(c, q1.id, { status: 'completed', last: 6, total: 6, startedAgo: 3 * DAY, programId: p1.id }),
    s3: await session(c, q1.id, { status: 'abandoned', last: 2, total: 6, startedAgo: 5 * DAY, programId: p1.id, patientId: pat.id }),
    s4: await session(c, q1.id, { status: 'abandoned', last: 4, total: 6, startedAgo: 10 * DAY, programId: p2.id }),
    s5: await session(c, q1.id, { status: 'started', last: 3, total: 6, startedAgo: 2 * HOUR, programId: p2.id, patientId: pat.id }),
    s6: await session(c, q1.id, { status: 'abandoned', last: 1, total: 6, startedAgo: 40 * DAY }),
    s7: await session(c, q2.id, { status: 'completed', last: 4, total: 4, startedAgo: 2 * DAY, programId: p1.id }),
    s8: await session(c, q2.id, { status: 'abandoned', last: 2, total: 4, startedAgo: 20 * DAY, programId: p1.id }),
  };
  // The other clinic: a form, a program and sessions of its own.
  const qb = await questionnaire(b.clinic.id, 'Other intake');
  const pb = await makeProgram(t.db, b.clinic.id, { name: 'Other program' });
  await session(b.clinic.id, qb.id, { status: 'completed', last: 3, total: 3, startedAgo: DAY, programId: pb.id });
  // Likes.
  const gp = await makeGlobalProduct(t.db, { name: `Semaglutide ${randomUUID().slice(0, 4)}` });
  const gp2 = await makeGlobalProduct(t.db);
  const tpA = await makeTenantProduct(t.db, c, gp.id);
  const tpA2 = await makeTenantProduct(t.db, c, gp2.id);
  const tpB = await makeTenantProduct(t.db, b.clinic.id, gp.id);
  const likers = [await patient(c), await patient(c), await patient(c), await patient(c)];
  await like(c, tpA.id, likers[0]!.id, ago(DAY));
  await like(c, tpA.id, likers[1]!.id, ago(2 * DAY));
  await like(c, tpA.id, likers[2]!.id, ago(10 * DAY));
  await like(c, tpA.id, likers[3]!.id, ago(60 * DAY));
  await like(c, tpA2.id, likers[0]!.id, ago(3 * DAY));
  const bPatients = [await patient(b.clinic.id), await patient(b.clinic.id)];
  for (const p of bPatients) await like(b.clinic.id, tpB.id, p.id, ago(DAY));
  return { a, b, q1, q2, q3, qb, p1, p2, pb, pat, s, tpA, tpA2, tpB, gp, likers };
}

beforeAll(async () => {
  w = await world();
});

async function get(path: string, key = w.a.key) {
  t.clock.freezeAt(NOW);
  const res = await t.request(path, { key });
  expect(res.status, path).toBe(200);
  return res.json();
}

function statements(path: string, key = w.a.key) {
  t.clock.freezeAt(NOW);
  return countStatements(t, () => t.request(path, { key }));
}

describe('GET /api/v1/analytics/forms', () => {
  it("answers every form of the clinic with its sessions' figures, and the totals", async () => {
    const { data } = await get('/api/v1/analytics/forms');
    expect(data.window).toBeNull();
    expect(data.totals).toEqual({
      started: 8,
      completed: 3,
      abandoned: 4,
      inProgress: 1,
      completionRate: 37.5,
      abandonmentRate: 50,
      averageStepsReached: 3.5,
      medianStepsReached: 3.5,
    });
    expect(data.forms).toEqual([
      {
        formId: w.q1.id,
        name: 'Weight intake',
        isActive: true,
        started: 6,
        completed: 2,
        abandoned: 3,
        inProgress: 1,
        completionRate: 33.3,
        abandonmentRate: 50,
        averageStepsReached: 3.67,
        medianStepsReached: 3.5,
        averageTotalSteps: 6,
        lastStartedAt: ago(2 * HOUR).toISOString(),
      },
      {
        formId: w.q2.id,
        name: 'Hormone intake',
        isActive: true,
        started: 2,
        completed: 1,
        abandoned: 1,
        inProgress: 0,
        completionRate: 50,
        abandonmentRate: 50,
        averageStepsReached: 3,
        medianStepsReached: 3,
        averageTotalSteps: 4,
        lastStartedAt: ago(2 * DAY).toISOString(),
      },
      {
        formId: w.q3.id,
        name: 'Unused intake',
        isActive: true,
        started: 0,
        completed: 0,
        abandoned: 0,
        inProgress: 0,
        completionRate: null,
        abandonmentRate: null,
        averageStepsReached: null,
        medianStepsReached: null,
        averageTotalSteps: null,
        lastStartedAt: null,
      },
    ]);
  });

  it('counts only the sessions started in a window', async () => {
    const { data } = await get('/api/v1/analytics/forms?period=7d');
    expect(data.window).toEqual({ period: '7d', startDate: ago(7 * DAY).toISOString(), endDate: new Date(NOW).toISOString() });
    expect(data.forms.map((f: { formId: string; started: number }) => [f.formId, f.started])).toEqual([
      [w.q1.id, 4],
      [w.q2.id, 1],
      [w.q3.id, 0],
    ]);
    expect(data.totals.started).toBe(5);
    const custom = await get('/api/v1/analytics/forms?startDate=2029-12-01&endDate=2029-12-31');
    expect(custom.data.totals.started).toBe(2); // s6 and s8, 40 and 20 days before 15 January
  });

  it("ignores clinicId, never shows another clinic's forms, refuses bad windows, and is one statement", async () => {
    const plain = await get('/api/v1/analytics/forms');
    expect(await get(`/api/v1/analytics/forms?clinicId=${w.b.clinic.id}`)).toEqual(plain);
    expect(plain.data.forms.map((f: { formId: string }) => f.formId)).not.toContain(w.qb.id);
    const other = await get('/api/v1/analytics/forms', w.b.key);
    expect(other.data.forms.map((f: { formId: string }) => f.formId)).toEqual([w.qb.id]);
    for (const query of ['period=1d', 'startDate=2030-01-01', 'startDate=2030-01-02&endDate=2030-01-01']) {
      expect((await t.request(`/api/v1/analytics/forms?${query}`, { key: w.a.key })).status, query).toBe(400);
    }
    expect(await statements('/api/v1/analytics/forms')).toEqual({ status: 200, count: 2 });
    await get('/api/v1/analytics/forms', w.a.readKey);
  });
});

describe('GET /api/v1/analytics/forms/{formId}/sessions', () => {
  it('answers the funnel of the form (sessions reaching each step) and a page of sessions, newest first', async () => {
    const body = await get(`/api/v1/analytics/forms/${w.q1.id}/sessions`);
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 6, totalPages: 1 });
    const { data } = body;
    expect(data.form).toEqual({ id: w.q1.id, name: 'Weight intake', isActive: true });
    expect(data.summary).toMatchObject({ started: 6, completed: 2, abandoned: 3, inProgress: 1, completionRate: 33.3 });
    expect(data.funnel).toEqual([
      { step: 1, reached: 6, reachedPercent: 100, abandonedHere: 1, inProgressHere: 0 },
      { step: 2, reached: 5, reachedPercent: 83.3, abandonedHere: 1, inProgressHere: 0 },
      { step: 3, reached: 4, reachedPercent: 66.7, abandonedHere: 0, inProgressHere: 1 },
      { step: 4, reached: 3, reachedPercent: 50, abandonedHere: 1, inProgressHere: 0 },
      { step: 5, reached: 2, reachedPercent: 33.3, abandonedHere: 0, inProgressHere: 0 },
      { step: 6, reached: 2, reachedPercent: 33.3, abandonedHere: 0, inProgressHere: 0 },
    ]);
    expect(data.sessions.map((s: { id: string }) => s.id)).toEqual([w.s.s5.id, w.s.s1.id, w.s.s2.id, w.s.s3.id, w.s.s4.id, w.s.s6.id]);
    expect(data.sessions[1]).toEqual({
      id: w.s.s1.id,
      formId: w.q1.id,
      programId: w.p1.id,
      status: 'completed',
      lastStepReached: 6,
      totalSteps: 6,
      startedAt: ago(DAY).toISOString(),
      completedAt: new Date(NOW - DAY + 600_000).toISOString(),
      abandonedAt: null,
    });
  });

  it('pages and filters the list (the figures count every session), and takes a window', async () => {
    const page2 = await get(`/api/v1/analytics/forms/${w.q1.id}/sessions?limit=2&page=2`);
    expect(page2.pagination).toEqual({ page: 2, limit: 2, total: 6, totalPages: 3 });
    expect(page2.data.sessions.map((s: { id: string }) => s.id)).toEqual([w.s.s2.id, w.s.s3.id]);
    const abandoned = await get(`/api/v1/analytics/forms/${w.q1.id}/sessions?status=abandoned`);
    expect(abandoned.pagination.total).toBe(3);
    expect(abandoned.data.sessions.map((s: { status: string }) => s.status)).toEqual(['abandoned', 'abandoned', 'abandoned']);
    expect(abandoned.data.summary.started).toBe(6);
    const past = await get(`/api/v1/analytics/forms/${w.q1.id}/sessions?page=9`);
    expect(past.data.sessions).toEqual([]);
    expect(past.pagination.total).toBe(6);
    const week = await get(`/api/v1/analytics/forms/${w.q1.id}/sessions?period=7d`);
    expect(week.data.summary.started).toBe(4);
    expect(week.data.funnel[0]).toMatchObject({ step: 1, reached: 4 });
    const none = await get(`/api/v1/analytics/forms/${w.q3.id}/sessions`);
    expect(none.data).toMatchObject({ funnel: [], sessions: [], summary: { started: 0, completionRate: null } });
  });

  it('carries no patient data (raw JSON)', async () => {
    t.clock.freezeAt(NOW);
    const raw = await (await t.request(`/api/v1/analytics/forms/${w.q1.id}/sessions`, { key: w.a.key })).text();
    for (const value of [w.pat.id, w.pat.firstName, w.pat.lastName, w.pat.email]) expect(raw).not.toContain(value);
    expect(raw).not.toContain('patient');
  });

  it("answers one 404 for another clinic's, an unknown and a malformed form id", async () => {
    t.clock.freezeAt(NOW);
    const bodies = [];
    for (const id of [w.qb.id, randomUUID(), 'not-a-uuid', w.p1.id]) {
      const res = await t.request(`/api/v1/analytics/forms/${id}/sessions`, { key: w.a.key });
      expect(res.status, id).toBe(404);
      bodies.push(await res.json());
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]).toEqual({ success: false, code: 'NOT_FOUND', message: 'Form not found' });
    // The owner still sees it; clinicId changes nothing.
    await get(`/api/v1/analytics/forms/${w.qb.id}/sessions`, w.b.key);
    const res = await t.request(`/api/v1/analytics/forms/${w.qb.id}/sessions?clinicId=${w.b.clinic.id}`, { key: w.a.key });
    expect(res.status).toBe(404);
  });

  it('refuses bad paging, status and windows with 400, and is one statement', async () => {
    t.clock.freezeAt(NOW);
    for (const query of ['limit=0', 'limit=201', 'page=0', 'status=lost', 'period=2d', 'endDate=2030-01-01']) {
      expect((await t.request(`/api/v1/analytics/forms/${w.q1.id}/sessions?${query}`, { key: w.a.key })).status, query).toBe(400);
    }
    expect(await statements(`/api/v1/analytics/forms/${w.q1.id}/sessions?limit=2`)).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/analytics/programs/{questionnaireId}/sessions (a program id)', () => {
  it("answers the funnel of the program's sessions across its forms, the forms, and a page of sessions", async () => {
    const body = await get(`/api/v1/analytics/programs/${w.p1.id}/sessions`);
    expect(body.pagination.total).toBe(5);
    const { data } = body;
    expect(data.program).toEqual({ id: w.p1.id, name: 'Weight program', state: 'live' });
    expect(data.summary).toMatchObject({ started: 5, completed: 3, abandoned: 2, inProgress: 0, completionRate: 60 });
    expect(data.funnel.map((s: { step: number; reached: number }) => [s.step, s.reached])).toEqual([
      [1, 5],
      [2, 5],
      [3, 3],
      [4, 3],
      [5, 2],
      [6, 2],
    ]);
    expect(data.byForm).toEqual([
      { formId: w.q1.id, name: 'Weight intake', started: 3, completed: 2, abandoned: 1, completionRate: 66.7 },
      { formId: w.q2.id, name: 'Hormone intake', started: 2, completed: 1, abandoned: 1, completionRate: 50 },
    ]);
    expect(data.sessions.map((s: { id: string }) => s.id)).toEqual([w.s.s1.id, w.s.s7.id, w.s.s2.id, w.s.s3.id, w.s.s8.id]);
    const p2 = await get(`/api/v1/analytics/programs/${w.p2.id}/sessions?status=started`);
    expect(p2.data.summary).toMatchObject({ started: 2, inProgress: 1, abandoned: 1 });
    expect(p2.data.sessions.map((s: { id: string }) => s.id)).toEqual([w.s.s5.id]);
  });

  it("answers one 404 for another clinic's program, an unknown id, a malformed id and a form id", async () => {
    t.clock.freezeAt(NOW);
    const bodies = [];
    for (const id of [w.pb.id, randomUUID(), 'x'.repeat(40), w.q1.id]) {
      const res = await t.request(`/api/v1/analytics/programs/${id}/sessions`, { key: w.a.key });
      expect(res.status, id).toBe(404);
      bodies.push(await res.json());
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect((await get(`/api/v1/analytics/programs/${w.pb.id}/sessions`, w.b.key)).data.summary.started).toBe(1);
  });

  it('carries no patient data, ignores clinicId and is one statement', async () => {
    t.clock.freezeAt(NOW);
    const raw = await (
      await t.request(`/api/v1/analytics/programs/${w.p2.id}/sessions?clinicId=${w.b.clinic.id}`, { key: w.a.key })
    ).text();
    for (const value of [w.pat.id, w.pat.firstName, w.pat.email]) expect(raw).not.toContain(value);
    expect(JSON.parse(raw).data.summary.started).toBe(2);
    expect(await statements(`/api/v1/analytics/programs/${w.p1.id}/sessions`)).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/likes/admin/analytics/{tenantProductId}', () => {
  it('answers totals, unique patients and a day series over the last 30 days', async () => {
    const { data } = await get(`/api/v1/likes/admin/analytics/${w.tpA.id}`);
    expect(data).toMatchObject({
      tenantProductId: w.tpA.id,
      globalProductId: w.gp.id,
      productName: w.gp.name,
      totalLikes: 4,
      uniquePatients: 4,
      firstLikedAt: ago(60 * DAY).toISOString(),
      lastLikedAt: ago(DAY).toISOString(),
      window: { period: '30d', startDate: ago(30 * DAY).toISOString(), endDate: new Date(NOW).toISOString() },
      granularity: 'day',
      likesInWindow: 3,
      uniquePatientsInWindow: 3,
    });
    expect(data.series).toHaveLength(31);
    expect(data.series.filter((b: { likes: number }) => b.likes > 0)).toEqual([
      { bucket: '2030-01-05', likes: 1 },
      { bucket: '2030-01-13', likes: 1 },
      { bucket: '2030-01-14', likes: 1 },
    ]);
  });

  it('takes a window and a granularity', async () => {
    const { data } = await get(`/api/v1/likes/admin/analytics/${w.tpA.id}?period=90d&granularity=month`);
    expect(data.series).toEqual([
      { bucket: '2029-10-01', likes: 0 },
      { bucket: '2029-11-01', likes: 1 },
      { bucket: '2029-12-01', likes: 0 },
      { bucket: '2030-01-01', likes: 3 },
    ]);
    expect(data.likesInWindow).toBe(4);
    const empty = await get(`/api/v1/likes/admin/analytics/${w.tpA.id}?startDate=2031-01-01&endDate=2031-01-03`);
    expect(empty.data).toMatchObject({ totalLikes: 4, likesInWindow: 0, series: [{ likes: 0 }, { likes: 0 }, { likes: 0 }] });
    for (const query of ['granularity=year', 'period=5d', 'startDate=2027-01-01&endDate=2029-12-31&granularity=day']) {
      expect((await t.request(`/api/v1/likes/admin/analytics/${w.tpA.id}?${query}`, { key: w.a.key })).status, query).toBe(400);
    }
  });

  it("answers one 404 for another clinic's, an unknown and a malformed tenant product id; clinicId is ignored", async () => {
    t.clock.freezeAt(NOW);
    const bodies = [];
    for (const id of [w.tpB.id, randomUUID(), 'nope']) {
      const res = await t.request(`/api/v1/likes/admin/analytics/${id}?clinicId=${w.b.clinic.id}`, { key: w.a.key });
      expect(res.status, id).toBe(404);
      bodies.push(await res.json());
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect((await get(`/api/v1/likes/admin/analytics/${w.tpB.id}`, w.b.key)).data.totalLikes).toBe(2);
    expect(await statements(`/api/v1/likes/admin/analytics/${w.tpA.id}`)).toEqual({ status: 200, count: 2 });
  });
});

describe('POST /api/v1/likes/admin/counts', () => {
  const counts = (body: unknown, key = w.a.key) => {
    t.clock.freezeAt(NOW);
    return t.request('/api/v1/likes/admin/counts', { key, body });
  };

  it("counts the clinic's own tenant products; foreign and unknown ids count 0; duplicates once, in the order sent", async () => {
    const unknown = randomUUID();
    const res = await counts({ tenantProductIds: [w.tpA.id, w.tpB.id, unknown, w.tpA2.id, w.tpA.id.toUpperCase()] });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      counts: [
        { tenantProductId: w.tpA.id, likes: 4 },
        { tenantProductId: w.tpB.id, likes: 0 },
        { tenantProductId: unknown, likes: 0 },
        { tenantProductId: w.tpA2.id, likes: 1 },
      ],
      total: 5,
    });
    const other = await counts({ tenantProductIds: [w.tpA.id, w.tpB.id] }, w.b.key);
    expect((await other.json()).data.counts).toEqual([
      { tenantProductId: w.tpA.id, likes: 0 },
      { tenantProductId: w.tpB.id, likes: 2 },
    ]);
  });

  it('mutates nothing', async () => {
    const before = {
      likes: (await t.db.select({ n: count() }).from(productLikes))[0]!.n,
      outbox: (await t.db.select({ n: count() }).from(outboxEvents))[0]!.n,
      rows: await t.db.select().from(productLikes).where(eq(productLikes.tenantProductId, w.tpA.id)),
    };
    await t.flush();
    t.forgetKeys(); // a cold key: the key lookup is counted
    t.queries.length = 0;
    expect((await counts({ tenantProductIds: [w.tpA.id, w.tpB.id] })).status).toBe(200);
    await t.flush();
    const statements = t.queries.filter((q) => !q.includes('"request_logs"'));
    expect(statements).toHaveLength(2);
    for (const q of statements) expect(q).not.toMatch(/^\s*(insert|update|delete)/i);
    expect((await t.db.select({ n: count() }).from(productLikes))[0]!.n).toBe(before.likes);
    expect((await t.db.select({ n: count() }).from(outboxEvents))[0]!.n).toBe(before.outbox);
    expect(await t.db.select().from(productLikes).where(eq(productLikes.tenantProductId, w.tpA.id))).toEqual(before.rows);
  });

  it('refuses bad bodies with 400 and needs the write scope', async () => {
    const bad: unknown[] = [
      {},
      { tenantProductIds: [] },
      { tenantProductIds: ['not-a-uuid'] },
      { tenantProductIds: w.tpA.id },
      { tenantProductIds: Array.from({ length: 201 }, () => randomUUID()) },
      { tenantProductIds: [w.tpA.id], clinicId: w.b.clinic.id },
    ];
    for (const body of bad) {
      const res = await counts(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((await res.json()).code).toBe('VALIDATION_ERROR');
    }
    expect((await counts({ tenantProductIds: Array.from({ length: 200 }, () => randomUUID()) })).status).toBe(200);
    const readOnly = await counts({ tenantProductIds: [w.tpA.id] }, w.a.readKey);
    expect(readOnly.status).toBe(403);
    expect((await readOnly.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('AI-connector keys', () => {
  it('may read the aggregates (forms, likes of a product) but not the session lists or the counts', async () => {
    const ai = (await makeKey(t.db, w.a.clinic.id, { kind: 'ai_connector', scopes: ['read'], expiresAt: null })).raw;
    await get('/api/v1/analytics/forms', ai);
    await get(`/api/v1/likes/admin/analytics/${w.tpA.id}`, ai);
    for (const path of [`/api/v1/analytics/forms/${w.q1.id}/sessions`, `/api/v1/analytics/programs/${w.p1.id}/sessions`]) {
      const res = await t.request(path, { key: ai });
      expect((await res.json()).code, path).toBe('KEY_KIND_NOT_ALLOWED');
    }
    const res = await t.request('/api/v1/likes/admin/counts', { key: ai, body: { tenantProductIds: [w.tpA.id] } });
    expect((await res.json()).code).toBe('KEY_KIND_NOT_ALLOWED');
  });
});
