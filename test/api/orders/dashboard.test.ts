// The dashboard: figures from orders, payments, ledger and enrollments created here, checked against the
// rows themselves and against the orders endpoints (GET /orders/stats, /orders/summary, /orders) over
// the same window; the clinic comes from the key (clinicId ignored); period validation; one statement.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { patients } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makePriceChangeAlert, makeTenant } from '../../helpers/factories';
import { addLedgerEntry, deliveredOrder, makeDispute, makePayout, recordCharge } from '../../helpers/money-fixtures';
import { makeOrder, makeOrderEvent, makePayment, makeRefund, makeRefundRequest } from '../../helpers/order-fixtures';
import { makeEnrollment, makeProgram } from '../../helpers/program-fixtures';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();

const DAY = 86_400_000;
const NOW = Date.UTC(2030, 0, 15, 12, 0, 0); // Tuesday 15 January 2030, 12:00 UTC
const ago = (days: number, hours = 0) => new Date(NOW - days * DAY - hours * 3_600_000);

/** A clinic and a read+write key that never expires (the clock is frozen in 2030). */
async function tenant() {
  const made = await makeTenant(t.db);
  return { ...made, key: (await makeKey(t.db, made.clinic.id, { expiresAt: null })).raw };
}

/** A patient with a name and email that must never appear in the dashboard's activity. */
async function patient(clinicId: string, createdAt: Date) {
  const u = randomUUID().slice(0, 8);
  const [row] = await t.db
    .insert(patients)
    .values({ clinicId, firstName: `Zelda${u}`, lastName: `Quartermaine${u}`, email: `zelda-${u}@private-example.test`, createdAt })
    .returning();
  return row!;
}

interface World {
  key: string;
  readKey: string;
  clinicId: string;
  otherKey: string;
  otherClinicId: string;
  patients: Awaited<ReturnType<typeof patient>>[];
  orders: Record<string, Awaited<ReturnType<typeof makeOrder>>>;
}

/**
 * One clinic with orders now (o1, o2 refunded, o3 unpaid with a failed payment), in the previous 30 days
 * (o4) and long ago (o5); ledger entries of every kind; another clinic with its own orders.
 */
async function world(): Promise<World> {
  const a = await tenant();
  const readKey = (await makeKey(t.db, a.clinic.id, { scopes: ['read'], expiresAt: null })).raw;
  const b = await tenant();
  const clinicId = a.clinic.id;
  const p1 = await patient(clinicId, ago(3));
  const p2 = await patient(clinicId, ago(45));
  const p3 = await patient(clinicId, ago(200));
  const o1 = await makeOrder(t.db, clinicId, { ...deliveredOrder(10_000, 6_000, ago(2)), status: 'shipped', patientId: p1.id });
  await recordCharge(t.db, o1);
  const o2 = await makeOrder(t.db, clinicId, { ...deliveredOrder(25_000, 6_000, ago(10)), status: 'refunded', patientId: p2.id });
  await recordCharge(t.db, o2);
  const o3 = await makeOrder(t.db, clinicId, {
    ...deliveredOrder(8_000, 6_000, ago(5)),
    status: 'payment_failed',
    paidAt: null,
    patientId: p1.id,
  });
  const o4 = await makeOrder(t.db, clinicId, { ...deliveredOrder(12_000, 5_000, ago(40)), patientId: p2.id });
  await recordCharge(t.db, o4);
  const o5 = await makeOrder(t.db, clinicId, { ...deliveredOrder(30_000, 9_000, ago(100)), patientId: p3.id });
  await recordCharge(t.db, o5);
  const refund = await makeRefund(t.db, clinicId, o2.id, { amountCents: 25_000, createdAt: ago(1, 2) });
  await addLedgerEntry(t.db, clinicId, 'refund', -6_000, { orderId: o2.id, refundId: refund.id, createdAt: ago(1, 2) });
  await makePayment(t.db, clinicId, o3.id, {
    status: 'failed',
    amountCents: 8_000,
    failureReason: 'card_declined',
    failedAt: ago(5),
    createdAt: ago(5),
  });
  const payout = await makePayout(t.db, clinicId, { type: 'withdrawal', amountCents: 5_000, createdAt: ago(1) });
  await addLedgerEntry(t.db, clinicId, 'payout', -5_000, { payoutId: payout.id, createdAt: ago(1) });
  const dispute = await makeDispute(t.db, clinicId, o1.id, { amountCents: 4_000, status: 'needs_response', createdAt: ago(4) });
  await addLedgerEntry(t.db, clinicId, 'dispute', -4_000, { orderId: o1.id, disputeId: dispute.id, createdAt: ago(4) });
  await addLedgerEntry(t.db, clinicId, 'reserve_hold', -1_000, { orderId: o1.id, createdAt: ago(6) });
  await makeRefundRequest(t.db, clinicId, o1.id, { reason: 'Changed my mind', status: 'pending', createdAt: ago(1) });
  await makePriceChangeAlert(t.db, clinicId);
  await makeOrderEvent(t.db, clinicId, o1.id, {
    eventType: 'order.created',
    createdAt: ago(2),
    metadata: { note: p1.firstName, email: p1.email },
  });
  await makeOrderEvent(t.db, clinicId, o1.id, {
    eventType: 'order.shipped',
    actorType: 'pharmacy',
    createdAt: ago(0, 3),
    metadata: { address: '1 Secret Lane' },
  });
  await makeOrderEvent(t.db, clinicId, o1.id, { eventType: 'payment.succeeded', actorType: 'processor', createdAt: ago(2) });
  // The other clinic: an order now, one refunded, a payout, enrollments; none of it may show up in A's figures.
  const b1 = await makeOrder(t.db, b.clinic.id, deliveredOrder(99_900, 50_000, ago(1)));
  await recordCharge(t.db, b1);
  await makeRefund(t.db, b.clinic.id, b1.id, { amountCents: 99_900, createdAt: ago(0, 1) });
  await makeOrderEvent(t.db, b.clinic.id, b1.id, { eventType: 'order.delivered', createdAt: ago(0, 1) });
  await makePayout(t.db, b.clinic.id, { createdAt: ago(0, 1) });
  const bProgram = await makeProgram(t.db, b.clinic.id);
  await makeEnrollment(t.db, b.clinic.id, bProgram.id, { nextChargeAt: ago(-3) });
  return {
    key: a.key,
    readKey,
    clinicId,
    otherKey: b.key,
    otherClinicId: b.clinic.id,
    patients: [p1, p2, p3],
    orders: { o1, o2, o3, o4, o5 },
  };
}

let w: World;
beforeAll(async () => {
  w = await world();
});

async function get(path: string, key = w.key) {
  t.clock.freezeAt(NOW);
  const res = await t.request(path, { key });
  expect(res.status, path).toBe(200);
  return (await res.json()).data;
}

/** Statements sent for one request (the request log, written after it, is not counted). */
function statements(path: string, key = w.key) {
  t.clock.freezeAt(NOW);
  return countStatements(t, () => t.request(path, { key }));
}

const orderStats = (startDate?: string, endDate?: string) =>
  get(`/api/v1/orders/stats${startDate ? `?startDate=${encodeURIComponent(startDate)}&endDate=${encodeURIComponent(endDate!)}` : ''}`);

describe('GET /api/v1/dashboard/overview', () => {
  it('answers all-time and last-30-day figures that agree with the rows and GET /orders/stats', async () => {
    const data = await get('/api/v1/dashboard/overview');
    expect(data).toEqual({
      asOf: new Date(NOW).toISOString(),
      last30Days: { startDate: ago(30).toISOString(), endDate: new Date(NOW).toISOString() },
      revenue: { grossSales: 770, refundedAmount: 250, netSales: 520, grossSalesLast30Days: 350 },
      orders: { total: 5, paid: 4, inProgress: 1, last30Days: 3 },
      patients: { total: 3, active: 0, newLast30Days: 1 },
      balance: { available: expect.any(Number), reserveHeld: 10 },
      pendingActions: {
        refundRequests: 1,
        failedPayments: 1,
        disputesNeedingResponse: 1,
        openPriceAlerts: 1,
        heldTitrationSchedules: 0,
        total: 4,
      },
    });
    const stats = await orderStats();
    expect(stats).toMatchObject({
      totalOrders: data.orders.total,
      paidOrders: data.orders.paid,
      grossSales: data.revenue.grossSales,
      netSales: data.revenue.netSales,
      refundedAmount: data.revenue.refundedAmount,
    });
    const recent = await orderStats(data.last30Days.startDate, data.last30Days.endDate);
    expect(recent).toMatchObject({ totalOrders: data.orders.last30Days, grossSales: data.revenue.grossSalesLast30Days });
    expect((await get('/api/v1/orders/needs-attention')).count).toBe(data.pendingActions.failedPayments);
    const balance = await get('/api/v1/payouts/balance');
    expect(data.balance.available).toBe(balance.withdrawable);
    expect(balance.reserve.totalHeld - balance.reserve.totalReleased - balance.reserve.totalForfeited).toBe(data.balance.reserveHeld);
  });

  it('counts active patients from active enrollments', async () => {
    const { clinic, key } = await tenant();
    const program = await makeProgram(t.db, clinic.id);
    const e = await makeEnrollment(t.db, clinic.id, program.id);
    await makeEnrollment(t.db, clinic.id, program.id, { patientId: e.patientId }); // the same patient twice
    await makeEnrollment(t.db, clinic.id, program.id, { status: 'paused' });
    const data = await get('/api/v1/dashboard/overview', key);
    expect(data.patients).toMatchObject({ total: 2, active: 1 });
  });

  it("ignores a clinicId query parameter, even another clinic's id", async () => {
    const plain = await get('/api/v1/dashboard/overview');
    for (const clinicId of [w.otherClinicId, 'not-a-uuid', '']) {
      expect(await get(`/api/v1/dashboard/overview?clinicId=${clinicId}`)).toEqual(plain);
    }
    expect(await get(`/api/v1/dashboard/overview?clinicId=${w.otherClinicId}&clinicId=${w.clinicId}`)).toEqual(plain);
  });

  it('is one statement after the key lookup', async () => {
    expect(await statements('/api/v1/dashboard/overview')).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/dashboard/metrics', () => {
  it('compares the last 30 days (the default) with the 30 days before, as GET /orders/stats counts them', async () => {
    const data = await get('/api/v1/dashboard/metrics');
    expect(data.window).toEqual({ period: '30d', startDate: ago(30).toISOString(), endDate: new Date(NOW).toISOString() });
    expect(data.previousWindow).toEqual({
      startDate: new Date(NOW - 60 * DAY - 1).toISOString(),
      endDate: new Date(NOW - 30 * DAY - 1).toISOString(),
    });
    expect(data.orders).toEqual({ current: 3, previous: 1, change: 2, changePercent: 200 });
    expect(data.paidOrders).toEqual({ current: 2, previous: 1, change: 1, changePercent: 100 });
    expect(data.revenue).toEqual({ current: 350, previous: 120, change: 230, changePercent: 191.7 });
    expect(data.netRevenue).toEqual({ current: 100, previous: 120, change: -20, changePercent: -16.7 });
    expect(data.averageOrderValue).toEqual({ current: 175, previous: 120, change: 55, changePercent: 45.8 });
    expect(data.newPatients).toEqual({ current: 1, previous: 1, change: 0, changePercent: 0 });
    expect(data.orderingPatients).toEqual({ current: 2, previous: 1, change: 1, changePercent: 100 });

    for (const [window, key] of [
      [data.window, 'current'],
      [data.previousWindow, 'previous'],
    ] as const) {
      const stats = await orderStats(window.startDate, window.endDate);
      expect(stats.totalOrders).toBe(data.orders[key]);
      expect(stats.paidOrders).toBe(data.paidOrders[key]);
      expect(stats.grossSales).toBe(data.revenue[key]);
      expect(stats.netSales).toBe(data.netRevenue[key]);
      expect(stats.averageOrderValue).toBe(data.averageOrderValue[key]);
    }
  });

  it('agrees with GET /orders/summary and the GET /orders list over a startDate/endDate window', async () => {
    const q = 'startDate=2029-10-01&endDate=2030-01-15';
    const data = await get(`/api/v1/dashboard/metrics?${q}`);
    expect(data.window).toEqual({ period: null, startDate: '2029-10-01T00:00:00.000Z', endDate: '2030-01-15T23:59:59.999Z' });
    const summary = await get(`/api/v1/orders/summary?${q}`);
    expect(summary.totalOrders).toBe(data.orders.current);
    expect(summary.byProgram.reduce((sum: number, p: { paidSales: number }) => sum + p.paidSales, 0)).toBe(data.revenue.current);
    // The list: every order of the clinic, filtered here by createdAt.
    const list = (await get('/api/v1/orders?limit=200')) as {
      createdAt: string;
      paidAt: string | null;
      totalAmount: number;
      user: { id: string };
    }[];
    const inWindow = list.filter((o) => o.createdAt >= data.window.startDate && o.createdAt <= data.window.endDate);
    expect(inWindow).toHaveLength(data.orders.current);
    expect(inWindow.filter((o) => o.paidAt).reduce((sum, o) => sum + o.totalAmount, 0)).toBe(data.revenue.current);
    expect(new Set(inWindow.map((o) => o.user.id)).size).toBe(data.orderingPatients.current);
    expect(data.revenue.current).toBe(100 + 250 + 120 + 300);
  });

  it('accepts every period and date-times with zones', async () => {
    for (const [period, days] of [
      ['7d', 7],
      ['30d', 30],
      ['90d', 90],
      ['365d', 365],
    ] as const) {
      const data = await get(`/api/v1/dashboard/metrics?period=${period}`);
      expect(data.window).toEqual({ period, startDate: ago(days).toISOString(), endDate: new Date(NOW).toISOString() });
    }
    expect((await get('/api/v1/dashboard/metrics?period=7d')).orders.current).toBe(2);
    const data = await get(`/api/v1/dashboard/metrics?startDate=${encodeURIComponent('2030-01-05T13:00:00+01:00')}&endDate=2030-01-15`);
    expect(data.window.startDate).toBe('2030-01-05T12:00:00.000Z');
    expect(data.orders.current).toBe(3);
  });

  it('refuses bad windows with 400 naming the field', async () => {
    t.clock.freezeAt(NOW);
    const cases: [string, string][] = [
      ['period=14d', 'query.period'],
      ['period=', 'query.period'],
      ['startDate=2030-01-01', 'query.endDate'],
      ['endDate=2030-01-01', 'query.startDate'],
      ['period=7d&startDate=2030-01-01&endDate=2030-01-02', 'query.period'],
      ['startDate=2030-01-10&endDate=2030-01-01', 'query.endDate'],
      ['startDate=2030-02-30&endDate=2030-03-01', 'query.startDate'],
      ['startDate=yesterday&endDate=2030-03-01', 'query.startDate'],
      ['startDate=2020-01-01&endDate=2030-01-01', 'query.endDate'],
    ];
    for (const [query, field] of cases) {
      const res = await t.request(`/api/v1/dashboard/metrics?${query}`, { key: w.key });
      expect(res.status, query).toBe(400);
      const body = await res.json();
      expect(body.code, query).toBe('VALIDATION_ERROR');
      expect(body.message, query).toContain(field);
    }
  });

  it("answers only the key's clinic: clinicId is ignored", async () => {
    const plain = await get('/api/v1/dashboard/metrics');
    expect(await get(`/api/v1/dashboard/metrics?clinicId=${w.otherClinicId}`)).toEqual(plain);
    const other = await get('/api/v1/dashboard/metrics', w.otherKey);
    expect(other.revenue.current).toBe(999);
    expect(await get(`/api/v1/dashboard/metrics?clinicId=${w.clinicId}`, w.otherKey)).toEqual(other);
  });

  it('is one statement after the key lookup', async () => {
    expect(await statements('/api/v1/dashboard/metrics?period=90d')).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/dashboard/earnings-report', () => {
  it('sums the ledger of the window: gross, fees, refunds, disputes, net, payouts, reserve', async () => {
    const data = await get('/api/v1/dashboard/earnings-report?period=30d');
    // o1 and o2 were charged in the window (100 + 250; brand amounts 60 + 60), o2's brand amount was
    // taken back by its refund, a dispute of 40, a withdrawal of 50, a reserve hold of 10.
    expect(data).toMatchObject({
      gross: 350,
      fees: { total: 230 },
      refunds: 60,
      disputes: 40,
      net: 20,
      payouts: 50,
      reserve: { held: 10, released: 0, forfeited: 0 },
      entries: 14,
    });
    const { pharmacyCost, doctorFee, processorFee, platformFee, total } = data.fees;
    expect(Math.round((pharmacyCost + doctorFee + processorFee + platformFee) * 100)).toBe(Math.round(total * 100));
    expect(doctorFee).toBe(30);
    expect(data.byMonth).toEqual([{ month: '2030-01', gross: 350, fees: data.fees, refunds: 60, disputes: 40, net: 20, payouts: 50 }]);
  });

  it('agrees with GET /payouts/balance when the window holds every entry, and splits months', async () => {
    const data = await get('/api/v1/dashboard/earnings-report?startDate=2029-01-01&endDate=2030-12-31');
    const balance = await get('/api/v1/payouts/balance');
    expect(Math.round((data.gross - data.fees.total) * 100)).toBe(Math.round(balance.balance.totalReceived * 100));
    expect(data.payouts).toBe(balance.balance.totalWithdrawn);
    expect(data.gross).toBe(770);
    expect(data.byMonth.map((m: { month: string }) => m.month)).toEqual(['2029-10', '2029-12', '2030-01']);
    expect(data.byMonth.reduce((sum: number, m: { gross: number }) => sum + m.gross, 0)).toBe(770);
  });

  it('answers zeros for an empty window, ignores clinicId, and refuses a bad period', async () => {
    const empty = await get('/api/v1/dashboard/earnings-report?startDate=2031-01-01&endDate=2031-01-31');
    expect(empty).toMatchObject({ gross: 0, net: 0, payouts: 0, entries: 0, byMonth: [] });
    expect(await get(`/api/v1/dashboard/earnings-report?clinicId=${w.otherClinicId}`)).toEqual(
      await get('/api/v1/dashboard/earnings-report'),
    );
    const res = await t.request('/api/v1/dashboard/earnings-report?period=1y', { key: w.key });
    expect(res.status).toBe(400);
  });

  it('is one statement after the key lookup', async () => {
    expect(await statements('/api/v1/dashboard/earnings-report')).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/dashboard/recent-activity', () => {
  it('lists order events, payments, refunds and payouts, newest first, with ids, types, amounts and times', async () => {
    const { items } = await get('/api/v1/dashboard/recent-activity');
    const times = items.map((i: { occurredAt: string }) => i.occurredAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(items[0]).toMatchObject({
      source: 'order_event',
      type: 'order.shipped',
      orderId: w.orders.o1!.id,
      orderNumber: w.orders.o1!.orderNumber,
      amount: null,
      status: null,
      occurredAt: ago(0, 3).toISOString(),
    });
    expect(items).toContainEqual(
      expect.objectContaining({
        source: 'payout',
        type: 'payout.withdrawal',
        amount: 50,
        status: 'paid',
        orderId: null,
        occurredAt: ago(1).toISOString(),
      }),
    );
    expect(items).toContainEqual(
      expect.objectContaining({ source: 'refund', type: 'refund.succeeded', amount: 250, orderId: w.orders.o2!.id }),
    );
    expect(items).toContainEqual(
      expect.objectContaining({ source: 'payment', type: 'payment.failed', amount: 80, status: 'failed', orderId: w.orders.o3!.id }),
    );
    expect(items).toContainEqual(
      expect.objectContaining({ source: 'payment', type: 'payment.succeeded', amount: 100, orderId: w.orders.o1!.id }),
    );
    // payment.* order events are reported by the payment rows (with amounts), not twice.
    expect(items.filter((i: { source: string; type: string }) => i.source === 'order_event' && i.type.startsWith('payment.'))).toEqual([]);
    // Only this clinic's rows.
    const otherIds = (await get('/api/v1/dashboard/recent-activity', w.otherKey)).items.map((i: { id: string }) => i.id);
    for (const item of items) expect(otherIds).not.toContain(item.id);
  });

  it('never carries patient names, emails, addresses or event metadata (raw JSON)', async () => {
    t.clock.freezeAt(NOW);
    const res = await t.request('/api/v1/dashboard/recent-activity?limit=100', { key: w.key });
    const raw = await res.text();
    expect(JSON.parse(raw).data.items.length).toBeGreaterThan(8);
    for (const p of w.patients) {
      for (const value of [p.firstName, p.lastName, p.email, p.id]) expect(raw).not.toContain(value);
    }
    expect(raw).not.toContain('Secret Lane');
    expect(raw).not.toContain('metadata');
    expect(raw).not.toContain('card_declined');
  });

  it('takes a limit (1-100, default 25) and refuses others', async () => {
    expect((await get('/api/v1/dashboard/recent-activity?limit=2')).items).toHaveLength(2);
    const all = (await get('/api/v1/dashboard/recent-activity?limit=100')).items;
    expect((await get('/api/v1/dashboard/recent-activity?limit=3')).items).toEqual(all.slice(0, 3));
    for (const limit of ['0', '101', 'abc', '1.5']) {
      expect((await t.request(`/api/v1/dashboard/recent-activity?limit=${limit}`, { key: w.key })).status, limit).toBe(400);
    }
    expect(await get(`/api/v1/dashboard/recent-activity?clinicId=${w.otherClinicId}`)).toEqual(
      await get('/api/v1/dashboard/recent-activity'),
    );
  });

  it('is one statement after the key lookup', async () => {
    expect(await statements('/api/v1/dashboard/recent-activity')).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/dashboard/revenue-chart', () => {
  it('answers a day series over the last 30 days whose totals are GET /orders/stats over the window', async () => {
    const data = await get('/api/v1/dashboard/revenue-chart');
    expect(data.granularity).toBe('day');
    expect(data.series).toHaveLength(31);
    expect(data.series[0].bucket).toBe('2029-12-16');
    expect(data.series.at(-1).bucket).toBe('2030-01-15');
    expect(data.series.find((b: { bucket: string }) => b.bucket === '2030-01-13')).toEqual({
      bucket: '2030-01-13',
      orders: 1,
      paidOrders: 1,
      revenue: 100,
      refundedAmount: 0,
      netRevenue: 100,
    });
    expect(data.series.find((b: { bucket: string }) => b.bucket === '2030-01-05')).toEqual({
      bucket: '2030-01-05',
      orders: 1,
      paidOrders: 1,
      revenue: 250,
      refundedAmount: 250,
      netRevenue: 0,
    });
    expect(data.series.find((b: { bucket: string }) => b.bucket === '2030-01-10')).toMatchObject({ orders: 1, paidOrders: 0, revenue: 0 });
    const stats = await orderStats(data.window.startDate, data.window.endDate);
    expect(data.totals).toEqual({
      orders: stats.totalOrders,
      paidOrders: stats.paidOrders,
      revenue: stats.grossSales,
      refundedAmount: stats.refundedAmount,
      netRevenue: stats.netSales,
    });
  });

  it('buckets by week (Monday) and month, defaulting by window length', async () => {
    const weeks = await get('/api/v1/dashboard/revenue-chart?granularity=week');
    expect(weeks.series.map((b: { bucket: string }) => b.bucket)).toEqual([
      '2029-12-10',
      '2029-12-17',
      '2029-12-24',
      '2029-12-31',
      '2030-01-07',
      '2030-01-14',
    ]);
    expect(weeks.series.find((b: { bucket: string }) => b.bucket === '2030-01-07').orders).toBe(2);
    const q = 'startDate=2029-10-01&endDate=2030-01-15';
    const months = await get(`/api/v1/dashboard/revenue-chart?${q}&granularity=month`);
    expect(months.series.map((b: { bucket: string; revenue: number }) => [b.bucket, b.revenue])).toEqual([
      ['2029-10-01', 300],
      ['2029-11-01', 0],
      ['2029-12-01', 120],
      ['2030-01-01', 350],
    ]);
    const stats = await orderStats('2029-10-01', '2030-01-15');
    expect(months.totals.revenue).toBe(stats.grossSales);
    expect(months.totals.orders).toBe(stats.totalOrders);
    expect((await get('/api/v1/dashboard/revenue-chart?period=90d')).granularity).toBe('day');
    expect((await get('/api/v1/dashboard/revenue-chart?period=365d')).granularity).toBe('week');
    expect((await get('/api/v1/dashboard/revenue-chart?startDate=2027-06-01&endDate=2030-01-15')).granularity).toBe('month');
    expect((await get('/api/v1/dashboard/revenue-chart?period=365d&granularity=day')).series).toHaveLength(366);
  });

  it('refuses a bad granularity, too many buckets and bad windows with 400', async () => {
    t.clock.freezeAt(NOW);
    for (const query of [
      'granularity=hour',
      'granularity=',
      'startDate=2027-06-01&endDate=2030-01-15&granularity=day',
      'period=2w',
      'startDate=2030-01-01',
    ]) {
      const res = await t.request(`/api/v1/dashboard/revenue-chart?${query}`, { key: w.key });
      expect(res.status, query).toBe(400);
      expect((await res.json()).code).toBe('VALIDATION_ERROR');
    }
  });

  it('ignores clinicId and is one statement', async () => {
    expect(await get(`/api/v1/dashboard/revenue-chart?clinicId=${w.otherClinicId}`)).toEqual(await get('/api/v1/dashboard/revenue-chart'));
    expect(await statements('/api/v1/dashboard/revenue-chart?granularity=week')).toEqual({ status: 200, count: 2 });
  });
});

describe('GET /api/v1/dashboard/projected-revenue', () => {
  async function projectionWorld() {
    const { clinic, key } = await tenant();
    const program = await makeProgram(t.db, clinic.id, { name: 'Weight' });
    const other = await makeProgram(t.db, clinic.id, { name: 'Hair' });
    const d = (iso: string) => new Date(iso);
    await makeEnrollment(t.db, clinic.id, program.id, { nextChargeAt: d('2030-01-20T09:00:00Z') }); // Jan 20, Feb 20, Mar 20
    await makeEnrollment(t.db, clinic.id, other.id, {
      billingIntervalMonths: 3,
      chargeAmountCents: 50_000,
      netAmountCents: 15_000,
      nextChargeAt: d('2030-02-01T00:00:00Z'),
    }); // Feb 1
    await makeEnrollment(t.db, clinic.id, program.id, { nextChargeAt: d('2030-01-10T00:00:00Z') }); // overdue: now, Feb 15, Mar 15
    await makeEnrollment(t.db, clinic.id, program.id, { status: 'paused', nextChargeAt: d('2030-01-20T00:00:00Z') });
    await makeEnrollment(t.db, clinic.id, program.id, { status: 'cancelled', nextChargeAt: d('2030-01-20T00:00:00Z') });
    await makeEnrollment(t.db, clinic.id, program.id, { nextChargeAt: null }); // unscheduled
    await makeEnrollment(t.db, clinic.id, program.id, { nextChargeAt: d('2030-01-25T00:00:00Z'), endedAt: d('2030-02-10T00:00:00Z') }); // Jan 25 only
    return { key, program, other };
  }

  it('projects the next charges of the active enrollments month by month', async () => {
    const { key, program, other } = await projectionWorld();
    const data = await get('/api/v1/dashboard/projected-revenue', key);
    expect(data).toEqual({
      asOf: new Date(NOW).toISOString(),
      months: 3,
      horizon: { startDate: new Date(NOW).toISOString(), endDate: '2030-03-31T23:59:59.999Z' },
      activeEnrollments: 5,
      unscheduledEnrollments: 1,
      totals: { charges: 8, billed: 1_900, net: 500 },
      byMonth: [
        { month: '2030-01', charges: 3, billed: 600, net: 150, patients: 3 },
        { month: '2030-02', charges: 3, billed: 900, net: 250, patients: 3 },
        { month: '2030-03', charges: 2, billed: 400, net: 100, patients: 2 },
      ],
      byProgram: [
        { programId: program.id, programName: 'Weight', charges: 7, billed: 1_400, net: 350 },
        { programId: other.id, programName: 'Hair', charges: 1, billed: 500, net: 150 },
      ],
    });
    const one = await get('/api/v1/dashboard/projected-revenue?months=1', key);
    expect(one.byMonth).toEqual([{ month: '2030-01', charges: 3, billed: 600, net: 150, patients: 3 }]);
    const year = await get('/api/v1/dashboard/projected-revenue?months=12', key);
    expect(year.byMonth).toHaveLength(12);
    expect(year.byMonth.at(-1).month).toBe('2030-12');
    expect(year.totals.charges).toBe(12 + 4 + 12 + 1);
  });

  it('agrees with the programs overview: one month of a monthly enrollment is its monthly billing', async () => {
    const { clinic, key } = await tenant();
    const program = await makeProgram(t.db, clinic.id, { state: 'live' });
    await makeEnrollment(t.db, clinic.id, program.id, { nextChargeAt: new Date('2030-01-20T00:00:00Z') });
    await makeEnrollment(t.db, clinic.id, program.id, { nextChargeAt: new Date('2030-01-28T00:00:00Z'), chargeAmountCents: 12_345 });
    const projected = await get('/api/v1/dashboard/projected-revenue?months=1', key);
    const overview = await get('/api/v1/programs/overview', key);
    expect(Math.round(projected.totals.billed * 100)).toBe(overview.stats.estBilledMonthlyCents);
  });

  it('validates months (1-12) and ignores clinicId', async () => {
    t.clock.freezeAt(NOW);
    for (const months of ['0', '13', 'abc', '2.5', '-1']) {
      const res = await t.request(`/api/v1/dashboard/projected-revenue?months=${months}`, { key: w.key });
      expect(res.status, months).toBe(400);
      expect((await res.json()).message).toContain('query.months');
    }
    const mine = await get('/api/v1/dashboard/projected-revenue');
    expect(mine.activeEnrollments).toBe(0);
    expect(await get(`/api/v1/dashboard/projected-revenue?clinicId=${w.otherClinicId}`)).toEqual(mine);
    expect((await get('/api/v1/dashboard/projected-revenue', w.otherKey)).totals.charges).toBe(3);
  });

  it('is one statement after the key lookup', async () => {
    expect(await statements('/api/v1/dashboard/projected-revenue?months=6')).toEqual({ status: 200, count: 2 });
  });
});

describe('access', () => {
  it('every dashboard read works with a read-only key', async () => {
    for (const path of ['overview', 'metrics', 'earnings-report', 'recent-activity', 'revenue-chart', 'projected-revenue']) {
      await get(`/api/v1/dashboard/${path}`, w.readKey);
    }
  });

  it('the aggregates are on the AI-connector allowlist; the activity feed (order ids and numbers) is not', async () => {
    const ai = (await makeKey(t.db, w.clinicId, { kind: 'ai_connector', scopes: ['read'], expiresAt: null })).raw;
    for (const path of ['overview', 'metrics', 'earnings-report', 'revenue-chart', 'projected-revenue']) {
      await get(`/api/v1/dashboard/${path}`, ai);
    }
    const res = await t.request('/api/v1/dashboard/recent-activity', { key: ai });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('KEY_KIND_NOT_ALLOWED');
  });
});
