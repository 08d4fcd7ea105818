// Intake requests: a brand asking the platform for an intake form for a treatment.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { intakeRequests } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
const PATH = '/api/v1/intake-requests';

describe('intake requests', () => {
  it('creates a pending request with requestedByUserId null (201) and lists it', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const res = await t.request(PATH, { key, body: { treatmentName: '  Peptide therapy ', notes: 'Include a\ncontraindications screen' } });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toMatchObject({
      treatmentName: 'Peptide therapy',
      notes: 'Include a\ncontraindications screen',
      status: 'pending',
      requestedByUserId: null,
    });
    const [row] = await t.db.select().from(intakeRequests).where(eq(intakeRequests.id, data.id));
    expect(row).toMatchObject({ clinicId: clinic.id, requestedByUserId: null, status: 'pending' });
    const list = await (await t.request(PATH, { key })).json();
    expect(list.data).toEqual([data]);
  });

  it('takes notes as optional', async () => {
    const { key } = await makeTenant(t.db);
    const res = await t.request(PATH, { key, body: { treatmentName: 'Hair loss' } });
    expect(res.status).toBe(201);
    expect((await res.json()).data.notes).toBeNull();
  });

  it("lists only the clinic's requests, newest first, with the statuses the platform set", async () => {
    const { clinic, key, owner } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    await t.request(PATH, { key: other.key, body: { treatmentName: 'Not yours' } });
    const base = Date.now();
    await t.db.insert(intakeRequests).values([
      { clinicId: clinic.id, treatmentName: 'Old', status: 'completed', requestedByUserId: owner.id, createdAt: new Date(base - 2_000) },
      { clinicId: clinic.id, treatmentName: 'Newer', status: 'in_review', createdAt: new Date(base - 1_000) },
    ]);
    const list = await (await t.request(PATH, { key })).json();
    expect(list.data.map((r: { treatmentName: string; status: string }) => [r.treatmentName, r.status])).toEqual([
      ['Newer', 'in_review'],
      ['Old', 'completed'],
    ]);
    expect(list.data[1].requestedByUserId).toBe(owner.id);
    expect(list.pagination.total).toBe(2);
  });

  it('refuses bad input (400) and a read-only key (403)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    for (const [body, field] of [
      [{}, 'body.treatmentName'],
      [{ treatmentName: ' ' }, 'body.treatmentName'],
      [{ treatmentName: 'x'.repeat(201) }, 'body.treatmentName'],
      [{ treatmentName: 'A', notes: 'x'.repeat(5001) }, 'body.notes'],
      [{ treatmentName: 'A', requestedByUserId: clinic.id }, 'body'],
      [{ treatmentName: 'A', status: 'completed' }, 'body'],
    ] as const) {
      const res = await t.request(PATH, { key, body });
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect((await res.json()).errors.map((e: { field: string }) => e.field).join(' ')).toContain(field);
    }
    expect((await (await t.request(PATH, { key: readOnly.raw, body: { treatmentName: 'A' } })).json()).code).toBe('INSUFFICIENT_SCOPE');
    expect((await t.request(PATH, { key: readOnly.raw })).status).toBe(200);
  });
});
