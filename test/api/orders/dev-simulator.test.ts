// The development simulator (POST /_dev/orders/{id}/events) and the lifecycle service behind it.
import { and, asc, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { disputes, ledgerEntries, orderEvents, orders, outboxEvents, patients, payments, shipments, visits } from '../../../drizzle/schema';
import { buildTestApp, type TestApp, useTestApp } from '../../helpers/app';
import { makeClinic, makeKey, makeTenant } from '../../helpers/factories';
import { createPendingOrder } from '../../helpers/order-fixtures';

const t = useTestApp();
let dev: TestApp;
beforeAll(() => {
  dev = buildTestApp(t.db, t.databaseUrl);
  dev.config.devSimulator = true;
});

const send = (app: TestApp, orderId: string, key: string | undefined, body: unknown) =>
  app.request(`/_dev/orders/${orderId}/events`, { method: 'POST', key, body });

async function events(orderId: string) {
  return t.db.select().from(orderEvents).where(eq(orderEvents.orderId, orderId)).orderBy(asc(orderEvents.createdAt), asc(orderEvents.id));
}

describe('mounting', () => {
  it('answers the generic 404 of an unknown route when DEV_SIMULATOR is not "true", even with a valid key and body', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, clinic.id);
    expect(t.config.devSimulator).toBe(false);
    const res = await send(t, order.id, key, { event: 'payment.succeeded' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, code: 'NOT_FOUND', message: `No route for POST /_dev/orders/${order.id}/events` });
    const unknown = await t.request('/_nothing/here', { method: 'POST', key, body: {} });
    expect(Object.keys(await unknown.json()).sort()).toEqual(['code', 'message', 'success']);
    expect((await t.db.select().from(orders).where(eq(orders.id, order.id)))[0]!.status).toBe('pending_payment');
  });

  it('is not in the OpenAPI document', async () => {
    const doc = await (await dev.request('/api/v1/openapi.json')).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/_dev'))).toEqual([]);
  });
});

describe('authentication and input', () => {
  it('401 without a valid key (none, made up, revoked, expired)', async () => {
    const { clinic } = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, clinic.id);
    const revoked = await makeKey(t.db, clinic.id, { revokedAt: new Date() });
    const expired = await makeKey(t.db, clinic.id, { expiresAt: new Date(Date.now() - 1000) });
    for (const key of [undefined, 'svc_live_nope', revoked.raw, expired.raw]) {
      const res = await send(dev, order.id, key, { event: 'payment.succeeded' });
      expect(res.status).toBe(401);
      expect((await res.json()).code).toBe('UNAUTHORIZED');
    }
  });

  it('403 for publishable and AI-connector keys, read-only keys and sandbox keys', async () => {
    const { clinic } = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, clinic.id);
    const cases: [string, string][] = [
      [(await makeKey(t.db, clinic.id, { kind: 'publishable' })).raw, 'KEY_KIND_NOT_ALLOWED'],
      [(await makeKey(t.db, clinic.id, { kind: 'ai_connector', scopes: ['read'] })).raw, 'KEY_KIND_NOT_ALLOWED'],
      [(await makeKey(t.db, clinic.id, { scopes: ['read'] })).raw, 'INSUFFICIENT_SCOPE'],
    ];
    const sandbox = await makeClinic(t.db, { mode: 'sandbox' });
    cases.push([(await makeKey(t.db, sandbox.id, { isSandbox: true })).raw, 'SANDBOX_NOT_ALLOWED']);
    for (const [key, code] of cases) {
      const res = await send(dev, order.id, key, { event: 'payment.succeeded' });
      expect(res.status, code).toBe(403);
      expect((await res.json()).code).toBe(code);
    }
  });

  it("another clinic's order, an unknown id and a malformed id answer the same 404", async () => {
    const { key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const foreign = await createPendingOrder(t.db, other.clinic.id);
    const bodies = [];
    for (const id of [foreign.id, crypto.randomUUID(), 'not-a-uuid']) {
      const res = await send(dev, id, key, { event: 'payment.succeeded' });
      expect(res.status).toBe(404);
      bodies.push(await res.json());
    }
    expect(bodies[0]).toEqual({ success: false, code: 'NOT_FOUND', message: 'Order not found' });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    expect((await t.db.select().from(orders).where(eq(orders.id, foreign.id)))[0]!.status).toBe('pending_payment');
  });

  it('400 for an unknown event, a missing or extra field, a control character and invalid JSON, naming the field', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, clinic.id);
    const cases: [unknown, string][] = [
      [{ event: 'order.teleported' }, 'body.event'],
      [{}, 'body.event'],
      [{ event: 'payment.failed' }, 'body.failureReason'],
      [{ event: 'order.delivered', extra: true }, 'body'],
      [{ event: 'order.shipped', carrier: 'UPS\u0000', trackingNumber: '1Z' }, 'body.carrier'],
      [{ event: 'appointment.scheduled', scheduledAt: '2030-13-01T00:00:00Z' }, 'body.scheduledAt'],
    ];
    for (const [body, field] of cases) {
      const res = await send(dev, order.id, key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const json = await res.json();
      expect(json.code).toBe('VALIDATION_ERROR');
      expect(json.message).toContain(field);
    }
    const bad = await send(dev, order.id, key, '{"event":');
    expect(bad.status).toBe(400);
    expect((await bad.json()).code).toBe('INVALID_JSON');
  });
});

describe('events', () => {
  it('walks an order from payment to delivery, with payments, ledger, shipment and events', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, clinic.id, { visit: { bookingRequired: true } });
    const fees = order.feeBreakdown;

    const failed = await send(dev, order.id, key, { event: 'payment.failed', failureReason: 'card_declined' });
    expect(failed.status).toBe(200);
    expect((await failed.json()).data).toMatchObject({
      status: 'payment_failed',
      payment: { status: 'failed', failureReason: 'card_declined' },
    });

    const paid = await (await send(dev, order.id, key, { event: 'payment.succeeded' })).json();
    expect(paid.data).toMatchObject({
      id: order.id,
      status: 'paid',
      payment: { status: 'succeeded', amount: fees.total / 100 },
      event: { eventType: 'payment.succeeded', fromStatus: 'payment_failed', toStatus: 'paid' },
    });
    expect(paid.data.paidAt).toBeTruthy();
    const rows = await t.db.select().from(payments).where(eq(payments.orderId, order.id)).orderBy(asc(payments.createdAt));
    expect(rows.map((r) => r.status)).toEqual(['failed', 'succeeded']);

    const ledger = await t.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, order.id));
    expect(ledger.reduce((sum, e) => sum + e.amountCents, 0)).toBe(fees.brandAmount);
    expect(ledger.find((e) => e.type === 'charge')!.amountCents).toBe(fees.total);

    const scheduledAt = '2031-02-03T15:00:00.000Z';
    const booked = await (await send(dev, order.id, key, { event: 'appointment.scheduled', scheduledAt })).json();
    expect(booked.data.visit).toMatchObject({ status: 'booked', scheduledAt, bookingRequired: true });
    expect(booked.data.status).toBe('paid');

    const approved = await (await send(dev, order.id, key, { event: 'order.doctor_approved' })).json();
    expect(approved.data).toMatchObject({ status: 'doctor_approved', approvedByDoctor: true, visit: { status: 'concluded', scheduledAt } });
    expect((await t.db.select().from(orders).where(eq(orders.id, order.id)))[0]!.prescriptionPdfKey).toBeTruthy();

    expect((await (await send(dev, order.id, key, { event: 'order.sent_to_pharmacy' })).json()).data.status).toBe('sent_to_pharmacy');
    const shipped = await (
      await send(dev, order.id, key, {
        event: 'order.shipped',
        carrier: 'UPS',
        trackingNumber: '1Z999',
        trackingUrl: 'https://ups.example/1Z999',
      })
    ).json();
    expect(shipped.data).toMatchObject({
      status: 'shipped',
      shipment: { status: 'in_transit', carrier: 'UPS', trackingNumber: '1Z999', trackingUrl: 'https://ups.example/1Z999' },
    });
    expect(shipped.data.shippedAt).toBeTruthy();

    const updated = await (
      await send(dev, order.id, key, { event: 'shipment.updated', status: 'out_for_delivery', trackingNumber: '1Z1000' })
    ).json();
    expect(updated.data).toMatchObject({
      status: 'shipped',
      shipment: { status: 'out_for_delivery', carrier: 'UPS', trackingNumber: '1Z1000' },
    });

    const delivered = await (await send(dev, order.id, key, { event: 'order.delivered' })).json();
    expect(delivered.data).toMatchObject({ status: 'delivered', shipment: { status: 'delivered' } });
    expect(delivered.data.deliveredAt).toBeTruthy();
    expect(await t.db.$count(shipments, eq(shipments.orderId, order.id))).toBe(1);

    const history = await events(order.id);
    expect(history.map((e) => e.eventType)).toEqual([
      'order.created',
      'payment.failed',
      'payment.succeeded',
      'appointment.scheduled',
      'order.doctor_approved',
      'order.sent_to_pharmacy',
      'order.shipped',
      'shipment.updated',
      'order.delivered',
    ]);
    expect(history.map((e) => e.actorType)).toEqual([
      'patient',
      'processor',
      'processor',
      'patient',
      'doctor',
      'system',
      'pharmacy',
      'carrier',
      'carrier',
    ]);
    expect(history[1]!.metadata).toMatchObject({
      fromStatus: 'pending_payment',
      toStatus: 'payment_failed',
      failureReason: 'card_declined',
    });

    // Delivered is an end: every further move is a 409 that changes nothing.
    const late = await send(dev, order.id, key, { event: 'order.cancelled' });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({
      code: 'ILLEGAL_TRANSITION',
      message: expect.stringContaining('order.cancelled is not allowed for an order in status delivered'),
    });
    expect((await events(order.id)).length).toBe(9);
  });

  it('409 for illegal moves, changing nothing; 409 when the part an event needs is missing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, clinic.id);
    const cases: [object, RegExp][] = [
      [{ event: 'order.shipped', carrier: 'UPS', trackingNumber: '1' }, /allowed from: sent_to_pharmacy/],
      [{ event: 'order.doctor_approved' }, /status pending_payment/],
      [{ event: 'lab.kit_shipped', carrier: 'UPS', trackingNumber: '1' }, /lab leg; this order has none/],
      [{ event: 'appointment.scheduled', scheduledAt: '2031-01-01T00:00:00Z' }, /visit; this order has none/],
    ];
    for (const [body, message] of cases) {
      const res = await send(dev, order.id, key, body);
      expect(res.status, JSON.stringify(body)).toBe(409);
      const json = await res.json();
      expect(json.code).toBe('ILLEGAL_TRANSITION');
      expect(json.message).toMatch(message);
    }
    expect((await events(order.id)).map((e) => e.eventType)).toEqual(['order.created']);
    expect(await t.db.$count(ledgerEntries, eq(ledgerEntries.orderId, order.id))).toBe(0);
    // A second payment.succeeded is illegal: the ledger is written once.
    await send(dev, order.id, key, { event: 'payment.succeeded' });
    expect((await send(dev, order.id, key, { event: 'payment.succeeded' })).status).toBe(409);
    expect(await t.db.$count(ledgerEntries, and(eq(ledgerEntries.orderId, order.id), eq(ledgerEntries.type, 'charge')))).toBe(1);
    // shipment.updated without a shipment (an order shipped by no one cannot exist, so force the status).
    await t.db.update(orders).set({ status: 'shipped' }).where(eq(orders.id, order.id));
    const res = await send(dev, order.id, key, { event: 'shipment.updated', status: 'in_transit' });
    expect(res.status).toBe(409);
    expect((await res.json()).message).toMatch(/shipment; this order has none/);
  });

  it('lab-gated orders: payment waits for results, stages move forward only with their timestamps and shipments', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, clinic.id, { lab: { isLabGated: true } });
    expect((await (await send(dev, order.id, key, { event: 'payment.succeeded' })).json()).data.status).toBe('awaiting_lab_results');
    expect((await send(dev, order.id, key, { event: 'lab.sample_received' })).status).toBe(409);

    const kit = await (await send(dev, order.id, key, { event: 'lab.kit_shipped', carrier: 'USPS', trackingNumber: '9400' })).json();
    expect(kit.data.labLeg).toMatchObject({
      stage: 'shipped_to_patient',
      kitShipmentToPatient: { carrier: 'USPS', trackingNumber: '9400' },
      deliveredToPatientAt: null,
    });
    const delivered = await (await send(dev, order.id, key, { event: 'lab.kit_delivered' })).json();
    expect(delivered.data.labLeg.deliveredToPatientAt).toBeTruthy();
    const sample = await (await send(dev, order.id, key, { event: 'lab.sample_shipped', carrier: 'FedEx', trackingNumber: '7777' })).json();
    expect(sample.data.labLeg).toMatchObject({ stage: 'shipped_to_lab', kitShipmentToLab: { carrier: 'FedEx', trackingNumber: '7777' } });
    const received = await (await send(dev, order.id, key, { event: 'lab.sample_received' })).json();
    expect(received.data.labLeg.receivedByLabAt).toBeTruthy();
    expect(received.data.status).toBe('awaiting_lab_results');
    const results = await (await send(dev, order.id, key, { event: 'lab.results_available' })).json();
    expect(results.data).toMatchObject({ status: 'awaiting_doctor_review', labLeg: { stage: 'results' } });
    expect(results.data.labLeg.resultsAvailableAt).toBeTruthy();
    expect((await send(dev, order.id, key, { event: 'lab.kit_shipped', carrier: 'USPS', trackingNumber: '1' })).status).toBe(409);
    expect((await (await send(dev, order.id, key, { event: 'order.doctor_denied', reason: 'contraindicated' })).json()).data.status).toBe(
      'doctor_denied',
    );
    const history = await events(order.id);
    expect(history.filter((e) => e.eventType.startsWith('lab.')).map((e) => e.actorType)).toEqual([
      'lab',
      'carrier',
      'patient',
      'lab',
      'lab',
    ]);
  });

  it('visits: no_show keeps scheduledAt, rebooking, conclusion, and appointment.cancelled cancels the order', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, clinic.id, { visit: { bookingRequired: null } });
    expect((await send(dev, order.id, key, { event: 'appointment.no_show' })).status).toBe(409);
    const first = '2031-05-01T10:00:00.000Z';
    await send(dev, order.id, key, { event: 'appointment.scheduled', scheduledAt: first });
    const missed = await (await send(dev, order.id, key, { event: 'appointment.no_show' })).json();
    expect(missed.data.visit).toMatchObject({ status: 'no_show', scheduledAt: first, bookingRequired: null });
    expect(missed.data.visit.lastSyncedAt).toBeTruthy();
    const second = '2031-05-08T10:00:00.000Z';
    expect(
      (await (await send(dev, order.id, key, { event: 'appointment.scheduled', scheduledAt: second })).json()).data.visit,
    ).toMatchObject({ status: 'booked', scheduledAt: second });
    const cancelled = await (await send(dev, order.id, key, { event: 'appointment.cancelled' })).json();
    expect(cancelled.data).toMatchObject({ status: 'cancelled', visit: { status: 'cancelled', scheduledAt: null } });
    expect(cancelled.data.cancelledAt).toBeTruthy();

    const other = await createPendingOrder(t.db, clinic.id, { visit: { bookingRequired: true } });
    await send(dev, other.id, key, { event: 'appointment.scheduled', scheduledAt: first });
    expect((await (await send(dev, other.id, key, { event: 'appointment.concluded' })).json()).data.visit.status).toBe('concluded');
    const cancelledOrder = await (await send(dev, other.id, key, { event: 'order.cancelled', reason: 'patient asked' })).json();
    expect(cancelledOrder.data).toMatchObject({ status: 'cancelled', visit: { status: 'concluded' } });
    expect((await t.db.select().from(visits).where(eq(visits.orderId, other.id)))[0]!.status).toBe('concluded');
  });
});

describe('createOrder', () => {
  it('numbers orders per clinic in sequence, stores the address state and the first pending payment', async () => {
    const { clinic } = await makeTenant(t.db);
    const a = await createPendingOrder(t.db, clinic.id);
    const b = await createPendingOrder(t.db, clinic.id);
    expect(a.orderNumber).toMatch(/^[A-Z]{3}-1000001$/);
    expect(b.orderNumber).toBe(a.orderNumber.replace(/1$/, '2'));
    const other = await makeTenant(t.db);
    expect((await createPendingOrder(t.db, other.clinic.id)).orderNumber).toMatch(/-1000001$/);
    const [row] = await t.db.select().from(orders).where(eq(orders.id, a.id));
    expect(row).toMatchObject({
      status: 'pending_payment',
      shippingState: 'TX',
      totalCents: a.feeBreakdown.total,
      brandAmountCents: a.feeBreakdown.brandAmount,
    });
    const [payment] = await t.db.select().from(payments).where(eq(payments.orderId, a.id));
    expect(payment).toMatchObject({ status: 'pending', amountCents: a.feeBreakdown.total });
  });

  it('draws distinct numbers for concurrent orders of one clinic', async () => {
    const { clinic } = await makeTenant(t.db);
    const created = await Promise.all(Array.from({ length: 4 }, () => createPendingOrder(t.db, clinic.id)));
    expect(new Set(created.map((o) => o.orderNumber)).size).toBe(4);
  });

  it("refuses another clinic's patient", async () => {
    const { clinic } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const [patient] = await t.db
      .insert(patients)
      .values({ clinicId: other.clinic.id, firstName: 'A', lastName: 'B', email: `x-${crypto.randomUUID()}@example.test` })
      .returning();
    await expect(createPendingOrder(t.db, clinic.id, { patientId: patient!.id })).rejects.toThrow(/patient is not one of clinic/);
    expect(await t.db.$count(orders, eq(orders.clinicId, clinic.id))).toBe(0);
  });
});

describe('demo orders (scripts/seed/orders.ts)', () => {
  const rows = async <T>(query: ReturnType<typeof sql>) => ((await t.db.execute(query)) as unknown as { rows: T[] }).rows;

  it('per live clinic: 64 orders over 10 states (2 under 5), every status shape the reads need, a positive balance; re-seeding appends nothing', async () => {
    const { seedDemoData, LIVE_DEMO_CLINICS } = await import('../../../scripts/seed');
    const now = new Date();
    await seedDemoData(t.db, now);
    for (const clinicId of LIVE_DEMO_CLINICS) {
      const [o] = await rows<{ n: number; recent: number; old: number; span: number }>(sql`
        select count(*)::int as n, count(*) filter (where created_at > now() - interval '30 days')::int as recent,
               count(*) filter (where created_at <= now() - interval '30 days')::int as old,
               extract(day from max(created_at) - min(created_at))::int as span
        from orders where clinic_id = ${clinicId}`);
      expect(o!.n).toBeGreaterThanOrEqual(60);
      expect(o!.recent).toBeGreaterThan(5);
      expect(o!.old).toBeGreaterThan(5);
      expect(o!.span).toBeGreaterThanOrEqual(100);
      const states = await rows<{ state: string; n: number }>(
        sql`select shipping_state as state, count(*)::int as n from orders where clinic_id = ${clinicId} group by 1`,
      );
      expect(states.length).toBeGreaterThanOrEqual(10);
      expect(states.filter((s) => s.n < 5).length).toBeGreaterThanOrEqual(2);
      const statuses = (await rows<{ status: string }>(sql`select distinct status from orders where clinic_id = ${clinicId}`)).map(
        (r) => r.status,
      );
      for (const s of [
        'pending_payment',
        'payment_failed',
        'paid',
        'awaiting_lab_results',
        'awaiting_doctor_review',
        'doctor_approved',
        'doctor_denied',
        'sent_to_pharmacy',
        'shipped',
        'delivered',
        'cancelled',
        'refunded',
      ])
        expect(statuses, s).toContain(s);
      const stages = (await rows<{ stage: string }>(sql`select distinct stage from lab_legs where clinic_id = ${clinicId}`)).map(
        (r) => r.stage,
      );
      expect(stages.sort()).toEqual([
        'delivered_to_patient',
        'received_by_lab',
        'requisition_created',
        'results',
        'shipped_to_lab',
        'shipped_to_patient',
      ]);
      const visitRows = await rows<{ status: string; booking_required: boolean | null; scheduled_at: Date | null }>(
        sql`select status, booking_required, scheduled_at from visits where clinic_id = ${clinicId}`,
      );
      expect(new Set(visitRows.map((v) => v.status))).toEqual(new Set(['not_booked', 'booked', 'no_show', 'concluded', 'cancelled']));
      expect(visitRows.some((v) => v.booking_required === null)).toBe(true);
      expect(visitRows.filter((v) => v.status === 'no_show').every((v) => v.scheduled_at !== null)).toBe(true);
      const [attention] = await rows<{ n: number }>(sql`
        select count(*)::int as n from orders o where o.clinic_id = ${clinicId} and (select p.status from payments p where p.order_id = o.id order by p.created_at desc, p.id desc limit 1) = 'failed'`);
      expect(attention!.n).toBeGreaterThanOrEqual(3);
      const [held] = await rows<{ n: number; overdue: number }>(
        sql`select count(*)::int as n, count(*) filter (where next_revisit_due_at < now())::int as overdue from titration_schedules where clinic_id = ${clinicId} and status = 'held' and held_since is not null`,
      );
      expect(held!.n).toBeGreaterThanOrEqual(3);
      expect(held!.overdue).toBeGreaterThanOrEqual(1);
      const requests = await rows<{ status: string; old: boolean }>(
        sql`select r.status, o.created_at < now() - interval '30 days' as old from refund_requests r join orders o on o.id = r.order_id where r.clinic_id = ${clinicId}`,
      );
      expect(requests.filter((r) => r.status === 'pending').length).toBeGreaterThanOrEqual(3);
      expect(requests.some((r) => r.status === 'pending' && r.old)).toBe(true);
      expect(requests.some((r) => r.status !== 'pending')).toBe(true);
      const payoutTypes = await rows<{ type: string; n: number }>(
        sql`select type, count(*)::int as n from payouts where clinic_id = ${clinicId} and status = 'paid' group by 1`,
      );
      expect(payoutTypes.find((p) => p.type === 'order_transfer')!.n).toBeGreaterThan(0);
      expect(payoutTypes.find((p) => p.type === 'withdrawal')!.n).toBe(1);
      const ledgerTypes = (await rows<{ type: string }>(sql`select distinct type from ledger_entries where clinic_id = ${clinicId}`)).map(
        (r) => r.type,
      );
      for (const type of ['charge', 'payout', 'reserve_hold', 'reserve_release', 'dispute', 'refund']) expect(ledgerTypes).toContain(type);
      expect(await t.db.$count(disputes, eq(disputes.clinicId, clinicId))).toBeGreaterThanOrEqual(1);
      const [balance] = await rows<{ cents: number }>(
        sql`select sum(amount_cents)::int as cents from ledger_entries where clinic_id = ${clinicId}`,
      );
      expect(balance!.cents).toBeGreaterThan(0);
      // Every paid order's charge entries sum to its brand amount; every fee breakdown adds up.
      const mismatched = await rows<{ id: string }>(sql`
        select o.id from orders o
        where o.clinic_id = ${clinicId} and o.paid_at is not null
          and o.brand_amount_cents <> (select coalesce(sum(l.amount_cents), 0) from ledger_entries l where l.order_id = o.id and l.type in ('charge', 'pharmacy_cost', 'doctor_fee', 'processor_fee', 'platform_fee'))`);
      expect(mismatched).toEqual([]);
      const [bad] = await rows<{ n: number }>(sql`
        select count(*)::int as n from orders where clinic_id = ${clinicId} and not (
          (fee_breakdown->>'subtotal')::int - (fee_breakdown->>'discount')::int + (fee_breakdown->>'tax')::int + (fee_breakdown->>'shipping')::int = total_cents
          and (fee_breakdown->>'pharmacyCost')::int + (fee_breakdown->>'doctorFee')::int + (fee_breakdown->>'processorFee')::int + (fee_breakdown->>'platformFee')::int
              + (fee_breakdown->>'tax')::int + (fee_breakdown->>'shipping')::int + (fee_breakdown->>'brandAmount')::int = total_cents
          and brand_amount_cents = (fee_breakdown->>'brandAmount')::int)`);
      expect(bad!.n).toBe(0);
      // Event histories are chronological and never in the future.
      const [future] = await rows<{ n: number }>(
        sql`select count(*)::int as n from order_events where clinic_id = ${clinicId} and created_at > ${now}`,
      );
      expect(future!.n).toBe(0);
    }
    const [before] = await rows<{ n: number }>(sql`select count(*)::int as n from ledger_entries`);
    await seedDemoData(t.db);
    const [after] = await rows<{ n: number }>(sql`select count(*)::int as n from ledger_entries`);
    expect(after!.n).toBe(before!.n);
  }, 60_000); // seeds every demo clinic twice: 5-15 s alone, past 20 s on a loaded 2-core machine
});

describe('the transactional outbox', () => {
  it('records each webhook event of a transition in its transaction, ids only; an illegal transition records nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, clinic.id);
    const outbox = () => t.db.select().from(outboxEvents).where(eq(outboxEvents.clinicId, clinic.id)).orderBy(asc(outboxEvents.createdAt));
    expect((await outbox()).map((e) => e.eventType)).toEqual(['order.created']);
    expect((await send(dev, order.id, key, { event: 'payment.succeeded' })).status).toBe(200);
    expect((await send(dev, order.id, key, { event: 'order.delivered' })).status).toBe(409);
    const rows = await outbox();
    expect(rows.map((e) => e.eventType)).toEqual(['order.created', 'payment.succeeded']);
    for (const row of rows) {
      expect(Object.keys(row.payload).sort()).toEqual(['orderEventId', 'orderId']);
      expect(row.payload.orderId).toBe(order.id);
    }
  });
});
