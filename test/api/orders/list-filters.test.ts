// Filters of the lists (issue 31, item 5): GET /orders (status, programId, createdGte, createdLte, q),
// GET /customers (email, q) and GET /contacts (tag, q). Each keeps to the key's clinic, refuses bad
// values with a 400 naming the field, and stays one statement.
import { describe, expect, it } from 'vitest';
import { patientTags, tags } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { makeOrder } from '../../helpers/order-fixtures';
import { makePatient, makeProgram } from '../../helpers/program-fixtures';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();
const at = (iso: string) => new Date(iso);
const ids = (body: { data: { id: string }[] }) => body.data.map((row) => row.id);

async function get(path: string, key: string) {
  const res = await t.request(path, { key });
  return { status: res.status, body: await res.json() };
}

async function ordersFixture() {
  const { clinic, key } = await makeTenant(t.db);
  const program = await makeProgram(t.db, clinic.id, { name: 'Weight' });
  const ada = await makePatient(t.db, clinic.id, { email: 'ada.lovelace@example.test' });
  const a = await makeOrder(t.db, clinic.id, { status: 'pending_payment', createdAt: at('2030-01-01T10:00:00Z'), patientId: ada.id });
  const b = await makeOrder(t.db, clinic.id, { status: 'paid', createdAt: at('2030-01-02T10:00:00Z'), programId: program.id });
  const c = await makeOrder(t.db, clinic.id, {
    status: 'shipped',
    createdAt: at('2030-01-03T10:00:00Z'),
    programId: program.id,
    orderNumber: 'ORD-50%_X',
  });
  // Another clinic's orders, with the same status, program-less, and a patient of the same email.
  const other = await makeTenant(t.db);
  const otherProgram = await makeProgram(t.db, other.clinic.id);
  const theirs = await makePatient(t.db, other.clinic.id, { email: 'ada.lovelace@example.test' });
  await makeOrder(t.db, other.clinic.id, { status: 'pending_payment', createdAt: at('2030-01-01T11:00:00Z'), patientId: theirs.id });
  await makeOrder(t.db, other.clinic.id, { status: 'paid', programId: otherProgram.id, createdAt: at('2030-01-02T11:00:00Z') });
  return { clinic, key, program, otherProgram, a, b, c };
}

describe('GET /api/v1/orders filters', () => {
  it('status (one or several), programId, the creation bounds and q, alone and together', async () => {
    const { key, program, otherProgram, a, b, c } = await ordersFixture();
    const page = async (query: string) => {
      const { status, body } = await get(`/api/v1/orders?${query}`, key);
      expect(status, query).toBe(200);
      return { ids: ids(body), total: body.pagination.total };
    };
    expect(await page('status=pending_payment')).toEqual({ ids: [a.id], total: 1 });
    expect(await page('status=pending_payment&status=shipped')).toEqual({ ids: [c.id, a.id], total: 2 });
    expect(await page('status=pending_payment,paid')).toEqual({ ids: [b.id, a.id], total: 2 });
    expect(await page(`programId=${program.id}`)).toEqual({ ids: [c.id, b.id], total: 2 });
    expect(await page(`programId=${otherProgram.id}`)).toEqual({ ids: [], total: 0 });
    expect(await page('createdGte=2030-01-02')).toEqual({ ids: [c.id, b.id], total: 2 });
    expect(await page('createdLte=2030-01-02')).toEqual({ ids: [b.id, a.id], total: 2 });
    expect(await page('createdGte=2030-01-02T10:00:00Z&createdLte=2030-01-02T10:00:00Z')).toEqual({ ids: [b.id], total: 1 });
    expect(await page('q=ADA.LOVELACE')).toEqual({ ids: [a.id], total: 1 });
    expect(await page('q=50%25_')).toEqual({ ids: [c.id], total: 1 });
    expect(await page('q=5000%25')).toEqual({ ids: [], total: 0 });
    expect(await page(`status=shipped,paid&programId=${program.id}&createdLte=2030-01-02`)).toEqual({ ids: [b.id], total: 1 });
    // Paging through a filtered list: the total is the filtered count.
    expect(await page('status=paid,shipped,pending_payment&limit=1&page=2')).toEqual({ ids: [b.id], total: 3 });
    // A status or a program alone totals from the rollups: a repeated status counts once, and a page
    // past the end still has the total.
    expect(await page('status=paid,paid,shipped')).toEqual({ ids: [c.id, b.id], total: 2 });
    expect(await page(`programId=${program.id.toUpperCase()}&limit=1&page=5`)).toEqual({ ids: [], total: 2 });
    expect(await page('status=shipped,pending_payment&limit=1&page=2')).toEqual({ ids: [a.id], total: 2 });
    expect(await page(`status=paid&programId=${program.id}`)).toEqual({ ids: [b.id], total: 1 });
    // A blank q is no filter.
    expect(await page('q=%20')).toEqual({ ids: [c.id, b.id, a.id], total: 3 });
  });

  it('refuses a bad value with a 400 naming the field', async () => {
    const { key } = await ordersFixture();
    for (const [query, field] of [
      ['status=shipping', 'query.status'],
      ['status=', 'query.status'],
      ['programId=42', 'query.programId'],
      ['createdGte=yesterday', 'query.createdGte'],
      ['createdLte=2030-13-01', 'query.createdLte'],
      [`q=${'x'.repeat(201)}`, 'query.q'],
    ] as const) {
      const { status, body } = await get(`/api/v1/orders?${query}`, key);
      expect(status, query).toBe(400);
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.errors.map((e: { field: string }) => e.field.split('.').slice(0, 2).join('.'))).toContain(field);
    }
  });

  it('is one statement with filters, and the same at limit=1 and limit=50', async () => {
    const { key, program } = await ordersFixture();
    const query = `status=paid,shipped&programId=${program.id}&createdGte=2030-01-01&createdLte=2030-12-31&q=ord`;
    const counts: number[] = [];
    for (const limit of [1, 50]) {
      const { status, count } = await countStatements(t, () => t.request(`/api/v1/orders?${query}&limit=${limit}`, { key }));
      expect(status).toBe(200);
      counts.push(count);
    }
    // The key lookup and the list's one statement.
    expect(counts).toEqual([2, 2]);
  });
});

describe('GET /api/v1/customers filters', () => {
  it('email (ignoring case, exact) and q, only in the key clinic', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const ada = await makePatient(t.db, clinic.id, { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test' });
    const grace = await makePatient(t.db, clinic.id, { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.test' });
    const other = await makeTenant(t.db);
    await makePatient(t.db, other.clinic.id, { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test' });

    let res = await get('/api/v1/customers?email=ADA@example.test', key);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([ada.id]);
    expect(res.body.pagination.total).toBe(1);
    res = await get('/api/v1/customers?email=ada', key);
    expect(ids(res.body)).toEqual([]);
    res = await get('/api/v1/customers?q=grace%20hop', key);
    expect(ids(res.body)).toEqual([grace.id]);
    res = await get('/api/v1/customers?q=example&search=lovelace', key);
    expect(ids(res.body)).toEqual([ada.id]);
    res = await get(`/api/v1/customers?email=${'a'.repeat(321)}`, key);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('query.email');
  });
});

describe('GET /api/v1/contacts filters', () => {
  it('tag (its id) and q; another clinic tag matches nothing', async () => {
    const { clinic } = await makeTenant(t.db);
    const key = (await makeKey(t.db, clinic.id, { scopes: ['read'] })).raw;
    const ada = await makePatient(t.db, clinic.id, { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test' });
    const grace = await makePatient(t.db, clinic.id, { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.test' });
    const [vip] = await t.db.insert(tags).values({ clinicId: clinic.id, name: 'vip', color: '#123456' }).returning();
    await t.db.insert(patientTags).values({ clinicId: clinic.id, tagId: vip!.id, patientId: grace.id });
    const other = await makeTenant(t.db);
    const theirs = await makePatient(t.db, other.clinic.id);
    const [theirTag] = await t.db.insert(tags).values({ clinicId: other.clinic.id, name: 'vip', color: '#123456' }).returning();
    await t.db.insert(patientTags).values({ clinicId: other.clinic.id, tagId: theirTag!.id, patientId: theirs.id });

    let res = await get(`/api/v1/contacts?tag=${vip!.id}`, key);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([grace.id]);
    expect(res.body.pagination.total).toBe(1);
    res = await get(`/api/v1/contacts?tag=${theirTag!.id}`, key);
    expect(ids(res.body)).toEqual([]);
    expect(res.body.pagination.total).toBe(0);
    res = await get('/api/v1/contacts?q=LOVE', key);
    expect(ids(res.body)).toEqual([ada.id]);
    res = await get(`/api/v1/contacts?q=hopper&tag=${vip!.id}&page=2`, key);
    expect(res.body.pagination.total).toBe(1);
    res = await get('/api/v1/contacts?tag=vip', key);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('query.tag');
  });
});
