import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ledgerEntries, payouts } from '../../../drizzle/schema';
import { DevelopmentPaymentProcessor } from '../../../src/platform/providers/payments';
import { processorRefused, processorUnavailable, type TransferInput } from '../../../src/platform/providers/payments/types';
import { buildTestApp, useTestApp } from '../../helpers/app';
import { makeClinic, makeKey, makeTenant } from '../../helpers/factories';
import { addLedgerEntry, deliveredOrder, makeDispute, makePayout, recordCharge } from '../../helpers/money-fixtures';
import { makeOrder } from '../../helpers/order-fixtures';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();
const DAY = 86_400_000;

async function ledgerSum(clinicId: string) {
  const rows = await t.db
    .select({ amount: ledgerEntries.amountCents, type: ledgerEntries.type })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.clinicId, clinicId));
  return rows.filter((r) => r.type !== 'reserve_forfeit').reduce((sum, r) => sum + r.amount, 0);
}

const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

/** A tenant whose available balance is `cents` (one charge entry). */
async function tenantWithBalance(cents: number) {
  const tenant = await makeTenant(t.db);
  if (cents) await addLedgerEntry(t.db, tenant.clinic.id, 'charge', cents);
  return tenant;
}

describe('GET /api/v1/payouts', () => {
  it('lists order transfers (with order and customer) and withdrawals, newest first, paged, in one query', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id, deliveredOrder(12_345, 7_000));
    await recordCharge(t.db, order);
    const transfer = await makePayout(t.db, clinic.id, {
      orderId: order.id,
      amountCents: 7_000,
      processorTransferId: 'tr_abc',
      createdAt: new Date(Date.now() - 2 * DAY),
    });
    const withdrawal = await makePayout(t.db, clinic.id, {
      type: 'withdrawal',
      amountCents: 2_050,
      status: 'pending',
      createdAt: new Date(Date.now() - DAY),
    });
    const other = await makeTenant(t.db);
    await makePayout(t.db, other.clinic.id, { type: 'withdrawal' });

    const res = await t.request('/api/v1/payouts', { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });
    const [patient] = await t.db.query.patients.findMany({ where: (p, { eq: e }) => e(p.id, order.patientId) });
    expect(body.data).toEqual([
      {
        id: withdrawal.id,
        type: 'withdrawal',
        orderId: null,
        orderNumber: null,
        amount: 20.5,
        totalAmount: null,
        date: withdrawal.createdAt.toISOString(),
        status: 'pending',
        processorTransferId: null,
        customer: null,
      },
      {
        id: transfer.id,
        type: 'order_transfer',
        orderId: order.id,
        orderNumber: order.orderNumber,
        amount: 70,
        totalAmount: 123.45,
        date: transfer.createdAt.toISOString(),
        status: 'paid',
        processorTransferId: 'tr_abc',
        customer: { name: `${patient!.firstName} ${patient!.lastName}`, email: patient!.email },
      },
    ]);

    const page2 = await (await t.request('/api/v1/payouts?page=2&limit=1', { key })).json();
    expect(page2.data.map((p: { id: string }) => p.id)).toEqual([transfer.id]);
    expect(page2.pagination).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });
    const past = await (await t.request('/api/v1/payouts?page=9&limit=1', { key })).json();
    expect(past).toMatchObject({ data: [], pagination: { total: 2 } });
    expect(await statements(() => t.request('/api/v1/payouts', { key }))).toEqual({ status: 200, count: 2 });
  });

  it('400 naming the field for bad paging', async () => {
    const { key } = await makeTenant(t.db);
    for (const query of ['limit=0', 'limit=201', 'page=0', 'page=x']) {
      const res = await t.request(`/api/v1/payouts?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect((await res.json()).message).toContain(`query.${query.split('=')[0]}`);
    }
  });

  it('sandbox keys get 403 SANDBOX_NOT_ALLOWED', async () => {
    const sandbox = await makeClinic(t.db, { mode: 'sandbox' });
    const { raw } = await makeKey(t.db, sandbox.id, { isSandbox: true });
    for (const path of ['/api/v1/payouts', '/api/v1/payouts/balance', '/api/v1/payouts/disputes']) {
      expect((await (await t.request(path, { key: raw })).json()).code).toBe('SANDBOX_NOT_ALLOWED');
    }
    expect((await (await t.request('/api/v1/payouts/withdraw', { key: raw, body: { amount: 1 } })).json()).code).toBe(
      'SANDBOX_NOT_ALLOWED',
    );
  });
});

describe('GET /api/v1/payouts/balance', () => {
  it('sums the ledger: received, withdrawn, reserve, withdrawable, recent activity (one query)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const base = Date.now() - 10 * DAY;
    const a = await makeOrder(t.db, clinic.id, deliveredOrder(10_000, 6_000, new Date(base)));
    await recordCharge(t.db, a);
    const b = await makeOrder(t.db, clinic.id, deliveredOrder(5_000, 3_000, new Date(base)));
    await recordCharge(t.db, b);
    const c = await makeOrder(t.db, clinic.id, deliveredOrder(2_000, 1_000, new Date(base)));
    await recordCharge(t.db, c);
    const at = (n: number) => new Date(base + n * 60_000);
    await addLedgerEntry(t.db, clinic.id, 'reserve_hold', -1_000, { orderId: a.id, createdAt: at(1) });
    await addLedgerEntry(t.db, clinic.id, 'reserve_hold', -500, { orderId: b.id, createdAt: at(2) });
    await addLedgerEntry(t.db, clinic.id, 'reserve_release', 500, { orderId: b.id, createdAt: at(3) });
    await addLedgerEntry(t.db, clinic.id, 'reserve_hold', -300, { orderId: c.id, createdAt: at(4) });
    await addLedgerEntry(t.db, clinic.id, 'reserve_forfeit', -300, { orderId: c.id, createdAt: at(5) });
    const last = await addLedgerEntry(t.db, clinic.id, 'payout', -2_000, { description: 'Withdrawal', createdAt: at(6) });
    // Another clinic's money never counts.
    const other = await makeTenant(t.db);
    await addLedgerEntry(t.db, other.clinic.id, 'charge', 99_999);

    const res = await t.request('/api/v1/payouts/balance', { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      balance: { totalReceived: 100, totalWithdrawn: 20, currentBalance: 77, lastUpdated: at(6).toISOString() },
      processorBalance: { available: 67, pending: 10 },
      withdrawable: 67,
      reserve: { totalHeld: 18, totalReleased: 5, totalForfeited: 3, heldCount: 1 },
      heldBalance: { heldOwed: 0, hasHeldBalance: false, isConnected: true },
    });
    expect(data.recentActivity).toHaveLength(10);
    expect(data.recentActivity[0]).toEqual({
      id: last.id,
      type: 'payout',
      amount: -20,
      orderId: null,
      payoutId: null,
      refundId: null,
      disputeId: null,
      description: 'Withdrawal',
      createdAt: at(6).toISOString(),
    });
    expect(data.recentActivity[1]).toMatchObject({ type: 'reserve_forfeit', amount: -3, orderId: c.id });
    expect(await statements(() => t.request('/api/v1/payouts/balance', { key }))).toEqual({ status: 200, count: 2 });
  });

  it('an empty ledger: zeros and lastUpdated null; a negative balance is never withdrawable', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const empty = (await (await t.request('/api/v1/payouts/balance', { key })).json()).data;
    expect(empty).toEqual({
      balance: { totalReceived: 0, totalWithdrawn: 0, currentBalance: 0, lastUpdated: null },
      processorBalance: { available: 0, pending: 0 },
      withdrawable: 0,
      reserve: { totalHeld: 0, totalReleased: 0, totalForfeited: 0, heldCount: 0 },
      heldBalance: { heldOwed: 0, hasHeldBalance: false, isConnected: true },
      recentActivity: [],
    });
    await addLedgerEntry(t.db, clinic.id, 'dispute', -1_234);
    const negative = (await (await t.request('/api/v1/payouts/balance', { key })).json()).data;
    expect(negative.balance.currentBalance).toBe(-12.34);
    expect(negative.withdrawable).toBe(0);
  });

  it('without a payout account the balance is held (heldOwed)', async () => {
    const { key, clinic } = await tenantWithBalance(4_200);
    class Unconnected extends DevelopmentPaymentProcessor {
      override payoutsConnected() {
        return false;
      }
    }
    const app = buildTestApp(t.db, t.databaseUrl, { payments: new Unconnected(t.db) });
    const { data } = await (await app.request('/api/v1/payouts/balance', { key })).json();
    expect(data.heldBalance).toEqual({ heldOwed: 42, hasHeldBalance: true, isConnected: false });
    const res = await app.request('/api/v1/payouts/withdraw', { key, body: { amount: 1 } });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('PAYOUT_ACCOUNT_NOT_CONNECTED');
    expect(await ledgerSum(clinic.id)).toBe(4_200);
  });
});

describe('GET /api/v1/payouts/disputes', () => {
  it('summary counts and sums, and the history newest first, of the clinic only', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id, deliveredOrder(10_000, 6_000));
    await recordCharge(t.db, order);
    const now = Date.now();
    const open = await makeDispute(t.db, clinic.id, order.id, {
      amountCents: 5_000,
      status: 'needs_response',
      reason: 'fraudulent',
      evidenceDueAt: new Date(now + 5 * DAY),
      createdAt: new Date(now - DAY),
    });
    await makeDispute(t.db, clinic.id, order.id, { amountCents: 2_500, status: 'under_review', createdAt: new Date(now - 2 * DAY) });
    await makeDispute(t.db, clinic.id, order.id, {
      amountCents: 1_000,
      status: 'won',
      resolvedAt: new Date(now - 3 * DAY),
      createdAt: new Date(now - 4 * DAY),
    });
    await makeDispute(t.db, clinic.id, order.id, { amountCents: 700, status: 'lost', createdAt: new Date(now - 5 * DAY) });
    const other = await makeTenant(t.db);
    const otherOrder = await makeOrder(t.db, other.clinic.id, deliveredOrder(10_000, 6_000));
    await recordCharge(t.db, otherOrder);
    await makeDispute(t.db, other.clinic.id, otherOrder.id);

    const res = await t.request('/api/v1/payouts/disputes', { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.summary).toEqual({ total: 4, open: 2, needsResponse: 1, underReview: 1, won: 1, lost: 1, amountAtRisk: 75, amountLost: 7 });
    expect(data.history).toHaveLength(4);
    expect(data.history[0]).toEqual({
      id: open.id,
      orderId: order.id,
      orderNumber: order.orderNumber,
      amount: 50,
      status: 'needs_response',
      reason: 'fraudulent',
      evidenceDueAt: open.evidenceDueAt!.toISOString(),
      resolvedAt: null,
      createdAt: open.createdAt.toISOString(),
    });
    expect(data.history.map((d: { status: string }) => d.status)).toEqual(['needs_response', 'under_review', 'won', 'lost']);

    const none = (await (await t.request('/api/v1/payouts/disputes', { key: (await makeTenant(t.db)).key })).json()).data;
    expect(none).toEqual({
      summary: { total: 0, open: 0, needsResponse: 0, underReview: 0, won: 0, lost: 0, amountAtRisk: 0, amountLost: 0 },
      history: [],
    });
    expect(await statements(() => t.request('/api/v1/payouts/disputes', { key }))).toEqual({ status: 200, count: 2 });
  });
});

describe('POST /api/v1/payouts/withdraw', () => {
  it('creates a withdrawal payout and a negative payout ledger entry, through the processor', async () => {
    const { clinic, key } = await tenantWithBalance(10_000);
    const res = await t.request('/api/v1/payouts/withdraw', { key, body: { amount: 25.5 } });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data.withdrawable).toBe(74.5);
    expect(data.payout).toMatchObject({
      type: 'withdrawal',
      orderId: null,
      amount: 25.5,
      status: 'paid',
      customer: null,
      totalAmount: null,
    });
    expect(data.payout.processorTransferId).toMatch(/^tr_dev_[A-Za-z0-9]{24}$/);
    const [row] = await t.db.select().from(payouts).where(eq(payouts.id, data.payout.id));
    expect(row).toMatchObject({
      clinicId: clinic.id,
      amountCents: 2_550,
      type: 'withdrawal',
      processorTransferId: data.payout.processorTransferId,
    });
    const entries = await t.db.select().from(ledgerEntries).where(eq(ledgerEntries.payoutId, data.payout.id));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ type: 'payout', amountCents: -2_550, clinicId: clinic.id });
    const list = await (await t.request('/api/v1/payouts', { key })).json();
    expect(list.data[0].id).toBe(data.payout.id);
  });

  it('at most the withdrawable balance: exactly it is fine, one cent more is 400 INSUFFICIENT_BALANCE', async () => {
    const { clinic, key } = await tenantWithBalance(5_000);
    await addLedgerEntry(t.db, clinic.id, 'reserve_hold', -1_000);
    const over = await t.request('/api/v1/payouts/withdraw', { key, body: { amount: 40.01 } });
    expect(over.status).toBe(400);
    expect((await over.json()).code).toBe('INSUFFICIENT_BALANCE');
    const exact = await t.request('/api/v1/payouts/withdraw', { key, body: { amount: 40 } });
    expect(exact.status).toBe(201);
    expect((await exact.json()).data.withdrawable).toBe(0);
    const again = await t.request('/api/v1/payouts/withdraw', { key, body: { amount: 0.01 } });
    expect((await again.json()).code).toBe('INSUFFICIENT_BALANCE');
    // Another clinic's balance is not this clinic's.
    const poor = await makeTenant(t.db);
    expect((await (await t.request('/api/v1/payouts/withdraw', { key: poor.key, body: { amount: 1 } })).json()).code).toBe(
      'INSUFFICIENT_BALANCE',
    );
  });

  it('400 naming body.amount for a missing, zero, negative, over-precise or non-number amount; unknown fields refused', async () => {
    const { key } = await tenantWithBalance(10_000);
    // 5e-324 and 1e-9: positive, yet no whole cent (they once became a 0-cent transfer and a 500).
    for (const body of [
      {},
      { amount: 0 },
      { amount: -5 },
      { amount: 1.234 },
      { amount: '5' },
      { amount: null },
      { amount: 5e-324 },
      { amount: 1e-9 },
    ]) {
      const res = await t.request('/api/v1/payouts/withdraw', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message).toContain('body.amount');
    }
    const extra = await t.request('/api/v1/payouts/withdraw', { key, body: { amount: 1, currency: 'usd' } });
    expect(extra.status).toBe(400);
  });

  it('a read-only key gets 403 INSUFFICIENT_SCOPE', async () => {
    const { clinic } = await tenantWithBalance(10_000);
    const { raw } = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await t.request('/api/v1/payouts/withdraw', { key: raw, body: { amount: 1 } });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });

  it('concurrent withdrawals cannot overdraw (the clinic row is locked)', async () => {
    const { clinic, key } = await tenantWithBalance(10_000);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => t.request('/api/v1/payouts/withdraw', { key, body: { amount: 30 } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 400, 400, 400]);
    for (const res of results.filter((r) => r.status === 400)) expect((await res.json()).code).toBe('INSUFFICIENT_BALANCE');
    expect(await ledgerSum(clinic.id)).toBe(1_000);
    expect(await t.db.$count(payouts, eq(payouts.clinicId, clinic.id))).toBe(3);
  });

  it('processor errors store nothing: 503 PAYMENT_PROCESSOR_UNAVAILABLE, 502 PAYMENT_PROCESSOR_ERROR', async () => {
    const { clinic, key } = await tenantWithBalance(10_000);
    const calls: TransferInput[] = [];
    class Failing extends DevelopmentPaymentProcessor {
      constructor(private readonly how: 'down' | 'refused') {
        super(t.db);
      }
      override async transfer(input: TransferInput): Promise<never> {
        calls.push(input);
        throw this.how === 'down' ? processorUnavailable('test') : processorRefused('test');
      }
    }
    const down = await buildTestApp(t.db, t.databaseUrl, { payments: new Failing('down') }).request('/api/v1/payouts/withdraw', {
      key,
      body: { amount: 10 },
    });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect((await down.json()).code).toBe('PAYMENT_PROCESSOR_UNAVAILABLE');
    const refused = await buildTestApp(t.db, t.databaseUrl, { payments: new Failing('refused') }).request('/api/v1/payouts/withdraw', {
      key,
      body: { amount: 10 },
    });
    expect(refused.status).toBe(502);
    expect((await refused.json()).code).toBe('PAYMENT_PROCESSOR_ERROR');
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      clinicId: clinic.id,
      amountCents: 1_000,
      idempotencyKey: expect.stringMatching(/^withdrawal:[0-9a-f-]{36}$/),
    });
    expect(await t.db.$count(payouts, eq(payouts.clinicId, clinic.id))).toBe(0);
    expect(await ledgerSum(clinic.id)).toBe(10_000);
  });
});
