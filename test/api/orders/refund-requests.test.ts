import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { orders, refundRequests, refunds } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { addLedgerEntry, deliveredOrder, recordCharge } from '../../helpers/money-fixtures';
import { makeOrder, makeRefundRequest } from '../../helpers/order-fixtures';
import { makePatient } from '../../helpers/program-fixtures';

const t = useTestApp();
const DAY = 86_400_000;
const decide = (key: string, id: string, action: string, body: unknown = { reviewNotes: 'Reviewed' }) =>
  t.request(`/api/v1/refund-requests/${id}/${action}`, { key, body });

async function tenantWithRequest(options: { orderAgeDays?: number } = {}) {
  const tenant = await makeTenant(t.db);
  await addLedgerEntry(t.db, tenant.clinic.id, 'charge', 100_000);
  const patient = await makePatient(t.db, tenant.clinic.id);
  const order = await makeOrder(t.db, tenant.clinic.id, {
    ...deliveredOrder(10_000, 6_000, new Date(Date.now() - (options.orderAgeDays ?? 2) * DAY)),
    patientId: patient.id,
  });
  await recordCharge(t.db, order);
  const request = await makeRefundRequest(t.db, tenant.clinic.id, order.id, { patientId: patient.id, reason: 'Side effects' });
  return { ...tenant, patient, order, request };
}

describe('GET /api/v1/refund-requests', () => {
  it('pending first, then decided ones, newest first; the order, patient and refund window with each', async () => {
    const { clinic, key, patient, order, request } = await tenantWithRequest();
    const now = Date.now();
    const older = await makeRefundRequest(t.db, clinic.id, order.id, {
      patientId: patient.id,
      reason: 'Changed my mind',
      createdAt: new Date(now - 3 * DAY),
    });
    const denied = await makeRefundRequest(t.db, clinic.id, order.id, {
      reason: 'Changed my mind',
      status: 'denied',
      reviewNotes: 'No',
      decidedAt: new Date(now - DAY),
      createdAt: new Date(now),
    });
    const other = await tenantWithRequest();

    const res = await t.request('/api/v1/refund-requests', { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.map((r: { id: string }) => r.id)).toEqual([request.id, older.id, denied.id]);
    expect(body.data.map((r: { id: string }) => r.id)).not.toContain(other.request.id);
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 3, totalPages: 1 });
    expect(body.data[0]).toEqual({
      id: request.id,
      orderId: order.id,
      orderNumber: order.orderNumber,
      orderStatus: 'delivered',
      amount: 100,
      orderCreatedAt: order.createdAt.toISOString(),
      refundableUntil: new Date(order.createdAt.getTime() + 30 * DAY).toISOString(),
      status: 'pending',
      reason: 'Side effects',
      reviewNotes: null,
      decidedAt: null,
      createdAt: request.createdAt.toISOString(),
      patient: { id: patient.id, firstName: patient.firstName, lastName: patient.lastName, email: patient.email },
      refundId: null,
    });
    expect(body.data[2]).toMatchObject({ status: 'denied', reviewNotes: 'No', patient: null });

    const onlyDenied = await (await t.request('/api/v1/refund-requests?status=denied', { key })).json();
    expect(onlyDenied.data.map((r: { id: string }) => r.id)).toEqual([denied.id]);
    const page = await (await t.request('/api/v1/refund-requests?page=3&limit=1', { key })).json();
    expect(page.data.map((r: { id: string }) => r.id)).toEqual([denied.id]);
    const past = await (await t.request('/api/v1/refund-requests?page=5&limit=1&status=pending', { key })).json();
    expect(past).toMatchObject({ data: [], pagination: { total: 2 } });
  });

  it('400 naming the field for a bad status or paging', async () => {
    const { key } = await makeTenant(t.db);
    for (const [query, field] of [
      ['status=open', 'query.status'],
      ['limit=0', 'query.limit'],
      ['page=-1', 'query.page'],
    ]) {
      const res = await t.request(`/api/v1/refund-requests?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect((await res.json()).message).toContain(field);
    }
  });
});

describe('POST /api/v1/refund-requests/{id}/{action}', () => {
  it('approve issues the refund and records reviewNotes and decidedAt', async () => {
    const { key, order, request } = await tenantWithRequest();
    const res = await decide(key, request.id, 'approve', { reviewNotes: 'Approved: side effects' });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.request).toMatchObject({
      id: request.id,
      status: 'approved',
      reviewNotes: 'Approved: side effects',
      orderStatus: 'refunded',
      refundId: data.refund.id,
    });
    expect(data.request.decidedAt).toEqual(expect.any(String));
    expect(data.refund).toMatchObject({
      orderId: order.id,
      amount: 100,
      clinicDebit: 60,
      refundRequestId: request.id,
      reason: 'Side effects',
    });
    const [row] = await t.db.select().from(refunds).where(eq(refunds.orderId, order.id));
    expect(row!.refundRequestId).toBe(request.id);
    const [updated] = await t.db.select().from(orders).where(eq(orders.id, order.id));
    expect(updated!.status).toBe('refunded');
  });

  it('deny records reviewNotes and refunds nothing', async () => {
    const { key, order, request } = await tenantWithRequest();
    const res = await decide(key, request.id, 'deny', { reviewNotes: 'Already shipped' });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.refund).toBeNull();
    expect(data.request).toMatchObject({ status: 'denied', reviewNotes: 'Already shipped', refundId: null, orderStatus: 'delivered' });
    expect(await t.db.$count(refunds, eq(refunds.orderId, order.id))).toBe(0);
  });

  it('a decided request cannot be decided again: 409 REFUND_REQUEST_ALREADY_DECIDED', async () => {
    const approved = await tenantWithRequest();
    expect((await decide(approved.key, approved.request.id, 'approve')).status).toBe(200);
    const denied = await tenantWithRequest();
    expect((await decide(denied.key, denied.request.id, 'deny')).status).toBe(200);
    for (const [key, id, action] of [
      [approved.key, approved.request.id, 'approve'],
      [approved.key, approved.request.id, 'deny'],
      [denied.key, denied.request.id, 'approve'],
      [denied.key, denied.request.id, 'deny'],
    ] as const) {
      const res = await decide(key, id, action);
      expect(res.status).toBe(409);
      expect((await res.json()).code).toBe('REFUND_REQUEST_ALREADY_DECIDED');
    }
    const [row] = await t.db.select().from(refundRequests).where(eq(refundRequests.id, denied.request.id));
    expect(row!.status).toBe('denied');
  });

  it('concurrent decisions: exactly one wins', async () => {
    const { key, order, request } = await tenantWithRequest();
    const results = await Promise.all(['approve', 'approve', 'deny'].map((action) => decide(key, request.id, action)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(2);
    expect(await t.db.$count(refunds, eq(refunds.orderId, order.id))).toBeLessThanOrEqual(1);
  });

  it('approve follows the refund rules: out of the window 400 REFUND_WINDOW_CLOSED, already refunded 409; the request stays pending', async () => {
    const old = await tenantWithRequest({ orderAgeDays: 31 });
    const late = await decide(old.key, old.request.id, 'approve');
    expect(late.status).toBe(400);
    expect((await late.json()).code).toBe('REFUND_WINDOW_CLOSED');

    const direct = await tenantWithRequest();
    expect((await t.request('/api/v1/refunds', { key: direct.key, body: { orderId: direct.order.id, reason: 'direct' } })).status).toBe(
      201,
    );
    const twice = await decide(direct.key, direct.request.id, 'approve');
    expect(twice.status).toBe(409);
    expect((await twice.json()).code).toBe('ALREADY_REFUNDED');

    for (const id of [old.request.id, direct.request.id]) {
      const [row] = await t.db.select().from(refundRequests).where(eq(refundRequests.id, id));
      expect(row).toMatchObject({ status: 'pending', reviewNotes: null, decidedAt: null });
    }
    // It can still be denied.
    expect((await decide(old.key, old.request.id, 'deny', { reviewNotes: 'Outside the window' })).status).toBe(200);
  });

  it("another clinic's request, an unknown id and a malformed id answer the same 404", async () => {
    const { key } = await makeTenant(t.db);
    const other = await tenantWithRequest();
    const bodies = [];
    for (const id of [other.request.id, crypto.randomUUID(), 'not-a-uuid']) {
      const res = await decide(key, id, 'approve');
      expect(res.status, id).toBe(404);
      bodies.push(await res.json());
    }
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    const [row] = await t.db.select().from(refundRequests).where(eq(refundRequests.id, other.request.id));
    expect(row!.status).toBe('pending');
  });

  it('400 for an action other than approve or deny, and for a missing or bad reviewNotes', async () => {
    const { key, request } = await tenantWithRequest();
    for (const action of ['refund', 'APPROVE', 'cancel']) {
      const res = await decide(key, request.id, action);
      expect(res.status, action).toBe(400);
      expect((await res.json()).message).toContain('path.action');
    }
    for (const body of [
      {},
      { reviewNotes: '' },
      { reviewNotes: '  ' },
      { reviewNotes: 'x'.repeat(2001) },
      { reviewNotes: 5 },
      { reviewNotes: 'ok', extra: 1 },
    ]) {
      const res = await decide(key, request.id, 'deny', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const [row] = await t.db.select().from(refundRequests).where(eq(refundRequests.id, request.id));
    expect(row!.status).toBe('pending');
  });

  it('a read-only key gets 403 INSUFFICIENT_SCOPE', async () => {
    const { clinic, request } = await tenantWithRequest();
    const { raw } = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await decide(raw, request.id, 'approve');
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
    expect((await t.request('/api/v1/refund-requests', { key: raw })).status).toBe(200);
  });
});
