import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { makeOrder, makeOrderItem, makePayment, makeRefund, makeRefundRequest } from '../../helpers/order-fixtures';
import { makePatient, makeProgram } from '../../helpers/program-fixtures';

const t = useTestApp();
const at = (iso: string) => new Date(iso);

async function ordersIn(clinicId: string, state: string, n: number, values: Parameters<typeof makeOrder>[2] = {}) {
  const patient = await makePatient(t.db, clinicId);
  const rows = [];
  for (let i = 0; i < n; i++) rows.push(await makeOrder(t.db, clinicId, { shippingState: state, patientId: patient.id, ...values }));
  return rows;
}

describe('GET /api/v1/orders/summary', () => {
  it('names states with 5 or more orders only (thresholds at 4, 5 and 6) and never an order, date, patient or medication', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await makeProgram(t.db, clinic.id, { name: 'Weight Care' });
    await ordersIn(clinic.id, 'CA', 6, { programId: program.id, subtotalCents: 10_000 });
    await ordersIn(clinic.id, 'TX', 5, { status: 'shipped' });
    const small = await ordersIn(clinic.id, 'NV', 4, { status: 'pending_payment' });
    await ordersIn(clinic.id, 'ME', 1, { status: 'cancelled' });
    await makeOrder(t.db, clinic.id, { shippingState: null, fulfillmentType: 'pickup', status: 'delivered' });
    await makeOrderItem(t.db, clinic.id, small[0]!.id, { productName: 'Tirzepatide 5mg' });
    await makeRefundRequest(t.db, clinic.id, small[0]!.id, { status: 'pending', reason: 'changed mind' });
    await makeRefundRequest(t.db, clinic.id, small[1]!.id, { status: 'approved' });
    await makeRefund(t.db, clinic.id, small[1]!.id, { amountCents: 4_321 });
    const other = await makeTenant(t.db);
    await ordersIn(other.clinic.id, 'NV', 3);

    const res = await t.request('/api/v1/orders/summary', { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.window).toEqual({ startDate: null, endDate: null });
    expect(data.totalOrders).toBe(17);
    expect(data.byState).toEqual([
      { state: 'CA', orders: 6 },
      { state: 'TX', orders: 5 },
    ]);
    expect(data.otherStates).toEqual({ states: 2, orders: 5 });
    expect(data.byStatus).toEqual([
      { status: 'paid', orders: 6 },
      { status: 'shipped', orders: 5 },
      { status: 'pending_payment', orders: 4 },
      { status: 'cancelled', orders: 1 },
      { status: 'delivered', orders: 1 },
    ]);
    expect(data.byProgram).toEqual([
      { programId: null, programName: null, orders: 11, paidSales: 700 },
      { programId: program.id, programName: 'Weight Care', orders: 6, paidSales: 600 },
    ]);
    expect(data.refunds).toEqual({
      byStatus: [
        { status: 'approved', requests: 1 },
        { status: 'pending', requests: 1 },
      ],
      approvedAmount: 43.21,
    });

    const text = JSON.stringify(data);
    expect(text).not.toMatch(/NV|ME\b|Tirzepatide|Pat|T-|changed/);
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(text).not.toContain(small[0]!.id);
    expect(text).not.toContain(small[0]!.patientId);
  });

  it('answers otherStates null when every state has 5 or more, and filters by createdAt with dates or date-times', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await ordersIn(clinic.id, 'CA', 5, { createdAt: at('2030-01-15T12:00:00Z') });
    await ordersIn(clinic.id, 'CA', 2, { createdAt: at('2030-02-01T00:00:00Z') });
    await ordersIn(clinic.id, 'TX', 3, { createdAt: at('2029-12-31T23:59:59Z') });

    const jan = await (await t.request('/api/v1/orders/summary?startDate=2030-01-01&endDate=2030-01-31', { key })).json();
    expect(jan.data).toMatchObject({
      window: { startDate: '2030-01-01', endDate: '2030-01-31' },
      totalOrders: 5,
      byState: [{ state: 'CA', orders: 5 }],
      otherStates: null,
    });
    const last = await (
      await t.request('/api/v1/orders/summary?startDate=2030-01-15T12:00:00%2B00:00&endDate=2030-02-01T00:00:00Z', { key })
    ).json();
    expect(last.data.window).toEqual({ startDate: '2030-01-15T12:00:00.000Z', endDate: '2030-02-01T00:00:00.000Z' });
    expect(last.data.totalOrders).toBe(7);
    const all = await (await t.request('/api/v1/orders/summary', { key })).json();
    expect(all.data.byState).toEqual([{ state: 'CA', orders: 7 }]);
    expect(all.data.otherStates).toEqual({ states: 1, orders: 3 });
    const empty = await (await t.request('/api/v1/orders/summary?startDate=2040-01-01', { key })).json();
    expect(empty.data).toMatchObject({
      totalOrders: 0,
      byStatus: [],
      byProgram: [],
      byState: [],
      otherStates: null,
      refunds: { byStatus: [], approvedAmount: 0 },
    });
  });

  it('answers 400 naming the field for an invalid date, an impossible date or an end before the start', async () => {
    const { key } = await makeTenant(t.db);
    for (const [q, field] of [
      ['startDate=tomorrow', 'startDate'],
      ['endDate=2030-02-30', 'endDate'],
      ['startDate=2030-02-01&endDate=2030-01-01', 'endDate'],
      ['startDate=2030-01-01T00:00:00', 'startDate'],
    ]) {
      for (const path of ['/api/v1/orders/summary', '/api/v1/orders/stats']) {
        const res = await t.request(`${path}?${q}`, { key });
        expect(res.status, `${path}?${q}`).toBe(400);
        expect((await res.json()).message).toContain(field);
      }
    }
  });
});

describe('GET /api/v1/orders/stats', () => {
  it('sums sales, refunds, earnings and fees of the window', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const a = await makeOrder(t.db, clinic.id, { subtotalCents: 10_000, createdAt: at('2030-05-01T00:00:00Z') });
    const b = await makeOrder(t.db, clinic.id, { subtotalCents: 20_000, createdAt: at('2030-05-02T00:00:00Z') });
    await makeOrder(t.db, clinic.id, { status: 'pending_payment', createdAt: at('2030-05-03T00:00:00Z') });
    await makeOrder(t.db, clinic.id, { subtotalCents: 99_900, createdAt: at('2030-07-01T00:00:00Z') });
    await makeRefund(t.db, clinic.id, b.id, { amountCents: 20_000 });
    const other = await makeTenant(t.db);
    await makeOrder(t.db, other.clinic.id, { createdAt: at('2030-05-01T00:00:00Z') });

    const res = await t.request('/api/v1/orders/stats?startDate=2030-05-01&endDate=2030-05-31', { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    const fa = a.feeBreakdown;
    expect(data).toEqual({
      window: { startDate: '2030-05-01', endDate: '2030-05-31' },
      totalOrders: 3,
      paidOrders: 2,
      refundedOrders: 1,
      grossSales: 300,
      refundedAmount: 200,
      netSales: 100,
      brandEarnings: fa.brandAmount / 100,
      averageOrderValue: 150,
      fees: {
        pharmacyCost: fa.pharmacyCost / 100,
        doctorFee: fa.doctorFee / 100,
        processorFee: fa.processorFee / 100,
        platformFee: fa.platformFee / 100,
        tax: 0,
        shipping: 0,
      },
    });
    const all = await (await t.request('/api/v1/orders/stats', { key })).json();
    expect(all.data).toMatchObject({ totalOrders: 4, paidOrders: 3, window: { startDate: null, endDate: null } });
    const none = await (await t.request('/api/v1/orders/stats?startDate=2041-01-01', { key })).json();
    expect(none.data).toMatchObject({ totalOrders: 0, paidOrders: 0, grossSales: 0, averageOrderValue: 0 });
  });
});

describe('GET /api/v1/orders/needs-attention', () => {
  it('lists orders whose latest payment failed, with the reason and the attempts', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await makeProgram(t.db, clinic.id, { name: 'Hair' });
    const failing = await makeOrder(t.db, clinic.id, { status: 'payment_failed', programId: program.id });
    await makePayment(t.db, clinic.id, failing.id, {
      status: 'failed',
      failureReason: 'insufficient_funds',
      createdAt: at('2030-01-01T00:00:00Z'),
      failedAt: at('2030-01-01T00:00:00Z'),
    });
    await makePayment(t.db, clinic.id, failing.id, {
      status: 'failed',
      failureReason: 'card_declined',
      amountCents: 7_500,
      createdAt: at('2030-01-02T00:00:00Z'),
      failedAt: at('2030-01-02T00:00:05Z'),
    });
    const recovered = await makeOrder(t.db, clinic.id);
    await makePayment(t.db, clinic.id, recovered.id, { status: 'failed', createdAt: at('2030-01-01T00:00:00Z') });
    await makePayment(t.db, clinic.id, recovered.id, { status: 'succeeded', createdAt: at('2030-01-03T00:00:00Z') });
    const cancelled = await makeOrder(t.db, clinic.id, { status: 'cancelled' });
    await makePayment(t.db, clinic.id, cancelled.id, { status: 'failed' });
    const newer = await makeOrder(t.db, clinic.id, { status: 'payment_failed', programId: null });
    await makePayment(t.db, clinic.id, newer.id, { status: 'failed', failureReason: null, createdAt: at('2030-02-01T00:00:00Z') });
    const other = await makeTenant(t.db);
    const foreign = await makeOrder(t.db, other.clinic.id);
    await makePayment(t.db, other.clinic.id, foreign.id, { status: 'failed' });

    const res = await t.request('/api/v1/orders/needs-attention', { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.count).toBe(2);
    expect(data.items.map((i: { orderId: string }) => i.orderId)).toEqual([newer.id, failing.id]);
    expect(data.items[1]).toEqual({
      orderId: failing.id,
      orderNumber: failing.orderNumber,
      patientName: expect.stringMatching(/^Pat /),
      programName: 'Hair',
      paymentFailedAt: '2030-01-02T00:00:05.000Z',
      lastPaymentError: 'card_declined',
      enrichment: {
        orderStatus: 'payment_failed',
        amount: 75,
        totalAmount: 100,
        paymentMethod: 'card',
        failedAttempts: 2,
        totalAttempts: 2,
      },
    });
    expect(data.items[0]).toMatchObject({ programName: null, lastPaymentError: null, paymentFailedAt: '2030-02-01T00:00:00.000Z' });

    const empty = await makeTenant(t.db);
    expect((await (await t.request('/api/v1/orders/needs-attention', { key: empty.key })).json()).data).toEqual({ count: 0, items: [] });
  });
});
