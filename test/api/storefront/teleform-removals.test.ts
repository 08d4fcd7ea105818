// Teleform removals: scheduled removals of the clinic's intake forms, cancellable while scheduled.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { questionnaires, teleformRemovals } from '../../../drizzle/schema';
import { completeDueTeleformRemovals } from '../../../src/modules/storefront/teleform-removals/service';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
const PATH = '/api/v1/teleform-removals';
const UNKNOWN = '00000000-0000-4000-8000-00000000abcd';
const DAY = 86_400_000;

async function removal(clinicId: string, values: Partial<typeof teleformRemovals.$inferInsert> = {}) {
  const [form] = await t.db
    .insert(questionnaires)
    .values({ clinicId, name: `Intake ${randomUUID().slice(0, 6)}` })
    .returning();
  const [row] = await t.db
    .insert(teleformRemovals)
    .values({ clinicId, questionnaireId: form!.id, reason: 'Program retired', scheduledFor: new Date(Date.now() + 7 * DAY), ...values })
    .returning();
  return { ...row!, form: form! };
}

const cancel = (key: string, id: string, body: unknown) => t.request(`${PATH}/${id}/cancel`, { key, body });

describe('GET /api/v1/teleform-removals', () => {
  it("lists the clinic's removals newest first with their form, filtered by status", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    await removal(other.clinic.id);
    const base = Date.now();
    const done = await removal(clinic.id, { status: 'completed', completedAt: new Date(base - DAY), createdAt: new Date(base - 3_000) });
    const dropped = await removal(clinic.id, {
      status: 'cancelled',
      cancelReason: 'Kept',
      cancelledAt: new Date(base - DAY),
      createdAt: new Date(base - 2_000),
    });
    const upcoming = await removal(clinic.id, { createdAt: new Date(base - 1_000) });
    const res = await t.request(PATH, { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.map((r: { id: string }) => r.id)).toEqual([upcoming.id, dropped.id, done.id]);
    expect(body.data[0]).toMatchObject({
      formId: upcoming.form.id,
      formName: upcoming.form.name,
      reason: 'Program retired',
      status: 'scheduled',
      scheduledFor: upcoming.scheduledFor.toISOString(),
      cancelReason: null,
      cancelledAt: null,
      completedAt: null,
    });
    expect(body.data[1]).toMatchObject({ status: 'cancelled', cancelReason: 'Kept' });
    expect(body.pagination.total).toBe(3);
    const scheduled = await (await t.request(`${PATH}?status=scheduled`, { key })).json();
    expect(scheduled.data.map((r: { id: string }) => r.id)).toEqual([upcoming.id]);
    expect(scheduled.pagination.total).toBe(1);
    expect((await t.request(`${PATH}?status=gone`, { key })).status).toBe(400);
  });
});

describe('POST /api/v1/teleform-removals/{id}/cancel', () => {
  it('cancels a scheduled removal with its reason (200)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const row = await removal(clinic.id);
    t.clock.freezeAt(Date.now());
    const res = await cancel(key, row.id, { reason: '  We keep this program  ' });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      id: row.id,
      status: 'cancelled',
      cancelReason: 'We keep this program',
      cancelledAt: new Date(t.clock.now()).toISOString(),
    });
    const [stored] = await t.db.select().from(teleformRemovals).where(eq(teleformRemovals.id, row.id));
    expect(stored).toMatchObject({ status: 'cancelled', cancelReason: 'We keep this program' });
  });

  it('requires a non-empty reason (400) and changes nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const row = await removal(clinic.id);
    for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(1001) }, { reason: 'ok', extra: true }]) {
      const res = await cancel(key, row.id, body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect((await res.json()).code).toBe('VALIDATION_ERROR');
    }
    const [stored] = await t.db.select().from(teleformRemovals).where(eq(teleformRemovals.id, row.id));
    expect(stored!.status).toBe('scheduled');
  });

  it('refuses an already-cancelled (409) and a completed (409) removal', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const row = await removal(clinic.id);
    expect((await cancel(key, row.id, { reason: 'First' })).status).toBe(200);
    const again = await cancel(key, row.id, { reason: 'Second' });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('CONFLICT');
    const [stored] = await t.db.select().from(teleformRemovals).where(eq(teleformRemovals.id, row.id));
    expect(stored!.cancelReason).toBe('First');
    const done = await removal(clinic.id, { status: 'completed', completedAt: new Date() });
    const res = await cancel(key, done.id, { reason: 'Too late' });
    expect(res.status).toBe(409);
    expect((await res.json()).message).toContain('completed');
  });

  it("answers 404 for another clinic's removal (same body as unknown and malformed ids) and leaves it scheduled", async () => {
    const { key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const theirs = await removal(other.clinic.id);
    const foreign = await cancel(key, theirs.id, { reason: 'Mine now' });
    const unknown = await cancel(key, UNKNOWN, { reason: 'Mine now' });
    const malformed = await cancel(key, 'nope', { reason: 'Mine now' });
    expect([foreign.status, unknown.status, malformed.status]).toEqual([404, 404, 404]);
    const body = await foreign.json();
    expect(body).toEqual(await unknown.json());
    expect(body).toEqual(await malformed.json());
    const [stored] = await t.db.select().from(teleformRemovals).where(eq(teleformRemovals.id, theirs.id));
    expect(stored!.status).toBe('scheduled');
  });

  it('needs the write scope', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const row = await removal(clinic.id);
    expect((await (await cancel(readOnly.raw, row.id, { reason: 'x' })).json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('completeDueTeleformRemovals (sweep)', () => {
  it('completes due scheduled removals and deactivates their forms; later, cancelled ones stay', async () => {
    const { clinic } = await makeTenant(t.db);
    const now = new Date();
    const due = await removal(clinic.id, { scheduledFor: new Date(now.getTime() - 1_000) });
    const later = await removal(clinic.id, { scheduledFor: new Date(now.getTime() + DAY) });
    const cancelled = await removal(clinic.id, { scheduledFor: new Date(now.getTime() - DAY), status: 'cancelled', cancelledAt: now });
    expect(await completeDueTeleformRemovals(t.db, now)).toBeGreaterThanOrEqual(1);
    const status = async (id: string) => (await t.db.select().from(teleformRemovals).where(eq(teleformRemovals.id, id)))[0]!;
    expect(await status(due.id)).toMatchObject({ status: 'completed', completedAt: now });
    expect((await status(later.id)).status).toBe('scheduled');
    expect((await status(cancelled.id)).status).toBe('cancelled');
    const active = async (id: string) => (await t.db.select().from(questionnaires).where(eq(questionnaires.id, id)))[0]!.isActive;
    expect(await active(due.form.id)).toBe(false);
    expect(await active(later.form.id)).toBe(true);
    expect(await active(cancelled.form.id)).toBe(true);
  });
});
