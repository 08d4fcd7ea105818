import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { patients } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { makeOrder, makeOrderItem, makeRefund } from '../../helpers/order-fixtures';
import { makeEnrollment, makeGlobalProduct, makePatient, makeProgram } from '../../helpers/program-fixtures';

const t = useTestApp();

async function patient(clinicId: string, firstName: string, lastName: string, email: string, createdAt: string) {
  const row = await makePatient(t.db, clinicId);
  const [updated] = await t.db
    .update(patients)
    .set({ firstName, lastName, email, createdAt: new Date(createdAt), phoneNumber: '+15550100' })
    .where(eq(patients.id, row.id))
    .returning();
  return updated!;
}

describe('GET /api/v1/customers', () => {
  it('lists patients newest first with orderCount, totalRevenue, categories and hasActiveSubscription', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const ada = await patient(clinic.id, 'Ada', 'Lovelace', 'ada@example.test', '2030-01-02T00:00:00Z');
    const bob = await patient(clinic.id, 'Bob', 'Stone', 'bob@example.test', '2030-01-01T00:00:00Z');
    const weight = await makeGlobalProduct(t.db, { categories: ['weight_loss', 'glp1'] });
    const hair = await makeGlobalProduct(t.db, { categories: ['hair'] });
    const paid = await makeOrder(t.db, clinic.id, { patientId: ada.id, subtotalCents: 10_000 });
    await makeOrderItem(t.db, clinic.id, paid.id, { globalProductId: weight.id });
    const refunded = await makeOrder(t.db, clinic.id, { patientId: ada.id, subtotalCents: 5_000, status: 'refunded' });
    await makeOrderItem(t.db, clinic.id, refunded.id, { globalProductId: hair.id });
    await makeOrderItem(t.db, clinic.id, refunded.id, { globalProductId: weight.id });
    await makeRefund(t.db, clinic.id, refunded.id, { amountCents: 5_000 });
    await makeOrder(t.db, clinic.id, { patientId: ada.id, status: 'pending_payment', subtotalCents: 99_000 });
    const program = await makeProgram(t.db, clinic.id);
    await makeEnrollment(t.db, clinic.id, program.id, { patientId: ada.id, status: 'active' });
    await makeEnrollment(t.db, clinic.id, program.id, { patientId: bob.id, status: 'cancelled' });

    const res = await t.request('/api/v1/customers', { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });
    expect(body.data).toEqual([
      {
        id: ada.id,
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.test',
        phoneNumber: '+15550100',
        createdAt: '2030-01-02T00:00:00.000Z',
        orderCount: 3,
        totalRevenue: 100,
        categories: ['glp1', 'hair', 'weight_loss'],
        hasActiveSubscription: true,
      },
      {
        id: bob.id,
        firstName: 'Bob',
        lastName: 'Stone',
        email: 'bob@example.test',
        phoneNumber: '+15550100',
        createdAt: '2030-01-01T00:00:00.000Z',
        orderCount: 0,
        totalRevenue: 0,
        categories: [],
        hasActiveSubscription: false,
      },
    ]);
  });

  it('searches first name, last name, full name and email case-insensitively; wildcards match literally', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const ada = await patient(clinic.id, 'Ada', 'Lovelace', 'countess@example.test', '2030-01-02T00:00:00Z');
    const grace = await patient(clinic.id, 'Grace', 'Hopper', 'g_h@navy.test', '2030-01-01T00:00:00Z');
    const other = await makeTenant(t.db);
    await patient(other.clinic.id, 'Ada', 'Lovelace', 'ada@elsewhere.test', '2030-01-03T00:00:00Z');
    const ids = async (search: string) =>
      (await (await t.request(`/api/v1/customers?search=${encodeURIComponent(search)}`, { key })).json()).data.map(
        (c: { id: string }) => c.id,
      );
    expect(await ids('ADA')).toEqual([ada.id]);
    expect(await ids('lovel')).toEqual([ada.id]);
    expect(await ids('ada lovelace')).toEqual([ada.id]);
    expect(await ids('COUNTESS@')).toEqual([ada.id]);
    expect(await ids('g_h')).toEqual([grace.id]);
    expect(await ids('%')).toEqual([]);
    expect(await ids('_')).toEqual([grace.id]);
    expect(await ids('nobody')).toEqual([]);
    expect(await ids('  ')).toEqual([ada.id, grace.id]);
  });

  it('pages (total counted with the search) and refuses bad input with 400 naming the field', async () => {
    const { clinic, key } = await makeTenant(t.db);
    for (let i = 0; i < 3; i++) await makePatient(t.db, clinic.id);
    const page = await (await t.request('/api/v1/customers?limit=2&page=2&search=pat', { key })).json();
    expect(page.data).toHaveLength(1);
    expect(page.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    for (const [q, field] of [
      ['limit=0', 'limit'],
      ['page=x', 'page'],
      ['search=a%00b', 'search'],
      [`search=${'x'.repeat(201)}`, 'search'],
    ]) {
      const res = await t.request(`/api/v1/customers?${q}`, { key });
      expect(res.status, q).toBe(400);
      expect((await res.json()).message).toContain(field);
    }
  });
});
