import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ledgerEntries, orderEvents, orders, payments, refunds } from '../../../drizzle/schema';
import { DevelopmentPaymentProcessor } from '../../../src/platform/providers/payments';
import { processorRefused, processorUnavailable, type RefundInput } from '../../../src/platform/providers/payments/types';
import { buildTestApp, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { addLedgerEntry, deliveredOrder, recordCharge } from '../../helpers/money-fixtures';
import { makeOrder } from '../../helpers/order-fixtures';

const t = useTestApp();
const DAY = 86_400_000;
const refund = (key: string, body: unknown) => t.request('/api/v1/refunds', { key, body });

async function available(clinicId: string) {
  const rows = await t.db.select().from(ledgerEntries).where(eq(ledgerEntries.clinicId, clinicId));
  return rows.filter((r) => r.type !== 'reserve_forfeit').reduce((sum, r) => sum + r.amountCents, 0);
}

describe('POST /api/v1/refunds', () => {
  it('refunds the whole order in one go: refund row, order, payment, ledger, event', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id, deliveredOrder(12_000, 7_000, new Date(Date.now() - 3 * DAY)));
    const payment = await recordCharge(t.db, order);
    expect(await available(clinic.id)).toBe(7_000);

    const res = await refund(key, { orderId: order.id, reason: 'Shipment lost' });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toEqual({
      id: expect.any(String),
      orderId: order.id,
      orderNumber: order.orderNumber,
      amount: 120,
      clinicDebit: 70,
      status: 'succeeded',
      processorRefundId: expect.stringMatching(/^re_dev_[A-Za-z0-9]{24}$/),
      reason: 'Shipment lost',
      refundRequestId: null,
      createdAt: expect.any(String),
    });
    const [row] = await t.db.select().from(refunds).where(eq(refunds.id, data.id));
    expect(row).toMatchObject({ clinicId: clinic.id, orderId: order.id, amountCents: 12_000, processorRefundId: data.processorRefundId });
    const [updated] = await t.db.select().from(orders).where(eq(orders.id, order.id));
    expect(updated!.status).toBe('refunded');
    expect(updated!.refundedAt).toBeInstanceOf(Date);
    const [paid] = await t.db.select().from(payments).where(eq(payments.id, payment!.id));
    expect(paid!.status).toBe('refunded');
    const entries = await t.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.clinicId, clinic.id), eq(ledgerEntries.type, 'refund')));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ amountCents: -7_000, orderId: order.id, refundId: data.id });
    expect(await available(clinic.id)).toBe(0);
    const events = await t.db.select().from(orderEvents).where(eq(orderEvents.orderId, order.id));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventType: 'order.refunded',
      actorType: 'brand',
      metadata: { refundId: data.id, amountCents: 12_000, refundRequestId: null },
    });
  });

  it("another clinic's order, an unknown id and a malformed id answer the same 404", async () => {
    const { key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const order = await makeOrder(t.db, other.clinic.id, deliveredOrder(10_000, 6_000));
    await recordCharge(t.db, order);
    const bodies = [];
    for (const orderId of [order.id, crypto.randomUUID(), 'not-a-uuid', "1' or '1'='1"]) {
      const res = await refund(key, { orderId, reason: 'x' });
      expect(res.status, orderId).toBe(404);
      bodies.push(await res.json());
    }
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    expect(bodies[0]).toMatchObject({ code: 'NOT_FOUND', message: 'Order not found' });
    const [untouched] = await t.db.select().from(orders).where(eq(orders.id, order.id));
    expect(untouched!.status).toBe('delivered');
  });

  it('within 30 days of the order: day 30 (to the millisecond) is fine, a second later is 400 REFUND_WINDOW_CLOSED', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const now = Math.floor(Date.now() / 1000) * 1000;
    t.clock.freezeAt(now);
    const day30 = await makeOrder(t.db, clinic.id, deliveredOrder(10_000, 6_000, new Date(now - 30 * DAY)));
    await recordCharge(t.db, day30);
    const late = await makeOrder(t.db, clinic.id, deliveredOrder(10_000, 6_000, new Date(now - 30 * DAY - 1_000)));
    await recordCharge(t.db, late);
    const day31 = await makeOrder(t.db, clinic.id, deliveredOrder(10_000, 6_000, new Date(now - 31 * DAY)));
    await recordCharge(t.db, day31);
    for (const order of [late, day31]) {
      const res = await refund(key, { orderId: order.id, reason: 'too late' });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.code).toBe('REFUND_WINDOW_CLOSED');
      expect(body.message).toContain(new Date(order.createdAt.getTime() + 30 * DAY).toISOString());
    }
    expect((await refund(key, { orderId: day30.id, reason: 'just in time' })).status).toBe(201);
    expect(await t.db.$count(refunds, eq(refunds.clinicId, clinic.id))).toBe(1);
  });

  it("only when the clinic's available balance covers the brand amount: one cent short is 400 INSUFFICIENT_BALANCE", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id, deliveredOrder(10_000, 6_000));
    await recordCharge(t.db, order);
    await addLedgerEntry(t.db, clinic.id, 'payout', -1);
    const short = await refund(key, { orderId: order.id, reason: 'x' });
    expect(short.status).toBe(400);
    expect((await short.json()).code).toBe('INSUFFICIENT_BALANCE');
    // Held reserve is not available either.
    await addLedgerEntry(t.db, clinic.id, 'charge', 1_001);
    await addLedgerEntry(t.db, clinic.id, 'reserve_hold', -1_001);
    expect(await available(clinic.id)).toBe(5_999);
    expect((await (await refund(key, { orderId: order.id, reason: 'x' })).json()).code).toBe('INSUFFICIENT_BALANCE');
    await addLedgerEntry(t.db, clinic.id, 'reserve_release', 1);
    expect(await available(clinic.id)).toBe(6_000);
    expect((await refund(key, { orderId: order.id, reason: 'x' })).status).toBe(201);
    expect(await available(clinic.id)).toBe(0);
  });

  it('an order without a succeeded payment is 409 ORDER_NOT_PAID', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await addLedgerEntry(t.db, clinic.id, 'charge', 100_000);
    const order = await makeOrder(t.db, clinic.id, { ...deliveredOrder(10_000, 6_000), status: 'pending_payment', paidAt: null });
    const res = await refund(key, { orderId: order.id, reason: 'x' });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('ORDER_NOT_PAID');
  });

  it('once per order: a second attempt is 409 ALREADY_REFUNDED, and so is the loser of two concurrent ones', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await addLedgerEntry(t.db, clinic.id, 'charge', 100_000);
    const first = await makeOrder(t.db, clinic.id, deliveredOrder(10_000, 6_000));
    await recordCharge(t.db, first);
    expect((await refund(key, { orderId: first.id, reason: 'x' })).status).toBe(201);
    const again = await refund(key, { orderId: first.id, reason: 'x' });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('ALREADY_REFUNDED');

    const second = await makeOrder(t.db, clinic.id, deliveredOrder(10_000, 6_000));
    await recordCharge(t.db, second);
    const racing = await Promise.all([1, 2, 3].map(() => refund(key, { orderId: second.id, reason: 'race' })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await t.db.$count(refunds, eq(refunds.orderId, second.id))).toBe(1);
    const entries = await t.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.orderId, second.id), eq(ledgerEntries.type, 'refund')));
    expect(entries).toHaveLength(1);
  });

  it('400 naming the field for missing or bad orderId and reason, and unknown fields', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id, deliveredOrder(10_000, 6_000));
    await recordCharge(t.db, order);
    const cases: [unknown, string][] = [
      [{ reason: 'x' }, 'body.orderId'],
      [{ orderId: order.id }, 'body.reason'],
      [{ orderId: order.id, reason: '   ' }, 'body.reason'],
      [{ orderId: order.id, reason: 'x'.repeat(501) }, 'body.reason'],
      [{ orderId: order.id, reason: 'a\u0000b' }, 'body.reason'],
      [{ orderId: 42, reason: 'x' }, 'body.orderId'],
      [{ orderId: order.id, reason: 'x', amount: 10 }, 'amount'],
    ];
    for (const [body, field] of cases) {
      const res = await refund(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message).toContain(field);
    }
    expect(await t.db.$count(refunds, eq(refunds.orderId, order.id))).toBe(0);
  });

  it('a read-only key gets 403 INSUFFICIENT_SCOPE', async () => {
    const { clinic } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id, deliveredOrder(10_000, 6_000));
    await recordCharge(t.db, order);
    const { raw } = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await refund(raw, { orderId: order.id, reason: 'x' });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });

  it('goes through the processor with the order total, its payment id and refund:<order id>; processor errors store nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id, deliveredOrder(9_900, 5_000));
    const payment = await recordCharge(t.db, order);
    const calls: RefundInput[] = [];
    class Recording extends DevelopmentPaymentProcessor {
      constructor(private readonly how: 'ok' | 'down' | 'refused') {
        super(t.db);
      }
      override async refund(input: RefundInput) {
        calls.push(input);
        if (this.how === 'down') throw processorUnavailable('test');
        if (this.how === 'refused') throw processorRefused('test');
        return { processorRefundId: 're_recorded' };
      }
    }
    const app = (how: 'ok' | 'down' | 'refused') => buildTestApp(t.db, t.databaseUrl, { payments: new Recording(how) });
    const down = await app('down').request('/api/v1/refunds', { key, body: { orderId: order.id, reason: 'why' } });
    expect([down.status, (await down.json()).code]).toEqual([503, 'PAYMENT_PROCESSOR_UNAVAILABLE']);
    const refused = await app('refused').request('/api/v1/refunds', { key, body: { orderId: order.id, reason: 'why' } });
    expect([refused.status, (await refused.json()).code]).toEqual([502, 'PAYMENT_PROCESSOR_ERROR']);
    expect(await t.db.$count(refunds, eq(refunds.orderId, order.id))).toBe(0);
    expect(await t.db.$count(orderEvents, eq(orderEvents.orderId, order.id))).toBe(0);
    const [unchanged] = await t.db.select().from(orders).where(eq(orders.id, order.id));
    expect(unchanged!.status).toBe('delivered');
    expect(await available(clinic.id)).toBe(5_000);

    const ok = await app('ok').request('/api/v1/refunds', { key, body: { orderId: order.id, reason: 'why' } });
    expect(ok.status).toBe(201);
    expect((await ok.json()).data.processorRefundId).toBe('re_recorded');
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      expect(call).toEqual({
        clinicId: clinic.id,
        processorPaymentId: payment!.processorPaymentId,
        amountCents: 9_900,
        reason: 'why',
        idempotencyKey: `refund:${order.id}`,
      });
    }
  });
});
