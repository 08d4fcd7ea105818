import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { makeClinic, makeKey, makeTenant } from '../../helpers/factories';
import { makeOrder, makeOrderEvent, makeOrderItem, makePayment, makeShipment, makeShippingAddress } from '../../helpers/order-fixtures';
import { makeGlobalProduct, makeProgram } from '../../helpers/program-fixtures';

const t = useTestApp();
const at = (iso: string) => new Date(iso);

async function otherClinicOrder() {
  const other = await makeTenant(t.db);
  return makeOrder(t.db, other.clinic.id);
}

describe('GET /api/v1/orders', () => {
  it('pages newest first with the fee breakdown in dollars, the patient and the program', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const program = await makeProgram(t.db, clinic.id, { name: 'Weight' });
    const old = await makeOrder(t.db, clinic.id, { createdAt: at('2030-01-01T00:00:00Z'), programId: program.id });
    const mid = await makeOrder(t.db, clinic.id, {
      createdAt: at('2030-01-02T00:00:00Z'),
      subtotalCents: 12_345,
      taxCents: 100,
      shippingCents: 500,
      discountCents: 345,
    });
    const latest = await makeOrder(t.db, clinic.id, { createdAt: at('2030-01-03T00:00:00Z') });
    await otherClinicOrder();

    const res = await t.request('/api/v1/orders?limit=2', { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(body.data.map((o: { id: string }) => o.id)).toEqual([latest.id, mid.id]);
    const row = body.data[1];
    expect(row).toMatchObject({
      orderNumber: mid.orderNumber,
      status: 'paid',
      subtotalAmount: 123.45,
      discountAmount: 3.45,
      taxAmount: 1,
      shippingAmount: 5,
      totalAmount: 126,
      billingInterval: 1,
      fulfillmentType: 'shipping',
      approvedByDoctor: false,
      program: null,
      createdAt: '2030-01-02T00:00:00.000Z',
      shippedAt: null,
      deliveredAt: null,
    });
    const f = row.feeBreakdown;
    expect(f.total).toBe(126);
    expect(Math.round((f.pharmacyCost + f.doctorFee + f.processorFee + f.platformFee + f.tax + f.shipping + f.brandAmount) * 100)).toBe(
      12_600,
    );
    expect(Math.round((f.subtotal - f.discount + f.tax + f.shipping) * 100)).toBe(12_600);
    expect(row.brandAmount).toBe(f.brandAmount);
    expect(row.user.id).toBe(mid.patientId);

    const page2 = await (await t.request('/api/v1/orders?limit=2&page=2', { key })).json();
    expect(page2.data.map((o: { id: string }) => o.id)).toEqual([old.id]);
    expect(page2.data[0].program).toEqual({ id: program.id, name: 'Weight' });
    const past = await (await t.request('/api/v1/orders?limit=2&page=9', { key })).json();
    expect(past.data).toEqual([]);
    expect(past.pagination.total).toBe(3);
  });

  it('refuses bad paging with 400 naming the field; sandbox keys get 403', async () => {
    const { key } = await makeTenant(t.db);
    for (const q of ['page=0', 'limit=201', 'limit=x']) {
      const res = await t.request(`/api/v1/orders?${q}`, { key });
      expect(res.status, q).toBe(400);
      expect((await res.json()).message).toMatch(/page|limit/);
    }
    const sandbox = await makeClinic(t.db, { mode: 'sandbox' });
    const { raw } = await makeKey(t.db, sandbox.id, { isSandbox: true });
    for (const path of [
      '/api/v1/orders',
      '/api/v1/orders/summary',
      '/api/v1/orders/stats',
      '/api/v1/orders/needs-attention',
      `/api/v1/orders/${crypto.randomUUID()}`,
      '/api/v1/customers',
    ]) {
      const res = await t.request(path, { key: raw });
      expect(res.status, path).toBe(403);
      expect((await res.json()).code).toBe('SANDBOX_NOT_ALLOWED');
    }
  });
});

describe('GET /api/v1/orders/{id}', () => {
  it('answers the detail: patient, items with product, latest payment, address, shipments', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const product = await makeGlobalProduct(t.db, { name: 'Semaglutide' });
    const order = await makeOrder(t.db, clinic.id, {
      status: 'shipped',
      shippedAt: at('2030-02-02T10:00:00Z'),
      billingIntervalMonths: 3,
      approvedByDoctor: true,
    });
    const item = await makeOrderItem(t.db, clinic.id, order.id, {
      globalProductId: product.id,
      productName: 'Semaglutide 2.5mg',
      quantity: 2,
      unitPriceCents: 5_000,
      totalPriceCents: 10_000,
    });
    await makePayment(t.db, clinic.id, order.id, { status: 'failed', createdAt: at('2030-02-01T00:00:00Z') });
    await makePayment(t.db, clinic.id, order.id, { status: 'succeeded', paymentMethod: 'card', createdAt: at('2030-02-01T01:00:00Z') });
    await makeShippingAddress(t.db, clinic.id, order.id, { state: 'TX', city: 'Austin' });
    const shipment = await makeShipment(t.db, clinic.id, order.id, { trackingNumber: '1Z', trackingUrl: 'https://track.example/1Z' });

    const res = await t.request(`/api/v1/orders/${order.id}`, { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      id: order.id,
      status: 'shipped',
      billingInterval: 3,
      approvedByDoctor: true,
      shippedAt: '2030-02-02T10:00:00.000Z',
      totalAmount: 100,
      orderItems: [{ id: item.id, quantity: 2, unitPrice: 50, totalPrice: 100, product: { id: product.id, name: 'Semaglutide 2.5mg' } }],
      payment: { status: 'succeeded', paymentMethod: 'card' },
      shippingAddress: { address: '1 Main St', city: 'Austin', state: 'TX', zipCode: '90001', country: 'US' },
      shippingOrders: [{ id: shipment.id, status: 'in_transit', trackingNumber: '1Z', trackingUrl: 'https://track.example/1Z' }],
    });
    expect(data.user).toMatchObject({ id: order.patientId, phoneNumber: null });
    expect(Object.keys(data.feeBreakdown).sort()).toEqual([
      'brandAmount',
      'discount',
      'doctorFee',
      'pharmacyCost',
      'platformFee',
      'processorFee',
      'shipping',
      'subtotal',
      'tax',
      'total',
    ]);
  });

  it('answers null payment and address and empty lists for a bare order', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id, { status: 'pending_payment' });
    const { data } = await (await t.request(`/api/v1/orders/${order.id}`, { key })).json();
    expect(data).toMatchObject({ payment: null, shippingAddress: null, orderItems: [], shippingOrders: [] });
  });

  it('answers the same 404 for another clinic, an unknown and a malformed id, on every order sub-resource', async () => {
    const { key } = await makeTenant(t.db);
    const foreign = await otherClinicOrder();
    for (const suffix of ['', '/events', '/lab-status', '/visit-status']) {
      const bodies = [];
      for (const id of [foreign.id, crypto.randomUUID(), 'not-a-uuid']) {
        const res = await t.request(`/api/v1/orders/${id}${suffix}`, { key });
        expect(res.status, `${id}${suffix}`).toBe(404);
        const { message, code } = await res.json();
        bodies.push({ message, code });
      }
      expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    }
  });
});

describe('GET /api/v1/orders/{id}/events', () => {
  it('lists events oldest first with metadata and says whether a prescription PDF exists', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id);
    const second = await makeOrderEvent(t.db, clinic.id, order.id, {
      eventType: 'order.paid',
      actorType: 'processor',
      createdAt: at('2030-03-01T00:01:00Z'),
      metadata: { amount: 100 },
    });
    const first = await makeOrderEvent(t.db, clinic.id, order.id, { eventType: 'order.created', createdAt: at('2030-03-01T00:00:00Z') });
    const other = await otherClinicOrder();
    await makeOrderEvent(t.db, other.clinicId, other.id);

    const { data } = await (await t.request(`/api/v1/orders/${order.id}/events`, { key })).json();
    expect(data.hasPrescriptionPdf).toBe(false);
    expect(data.events).toEqual([
      { id: first.id, eventType: 'order.created', actorType: 'patient', createdAt: '2030-03-01T00:00:00.000Z', metadata: {} },
      { id: second.id, eventType: 'order.paid', actorType: 'processor', createdAt: '2030-03-01T00:01:00.000Z', metadata: { amount: 100 } },
    ]);

    // Events written in one transaction share created_at: they keep the order they were written in.
    const sameInstant = await makeOrder(t.db, clinic.id);
    const names = ['order.created', 'payment.succeeded', 'order.doctor_approved', 'order.sent_to_pharmacy', 'order.shipped'];
    await t.db.transaction(async (tx) => {
      for (const eventType of names) await makeOrderEvent(tx as never, clinic.id, sameInstant.id, { eventType });
    });
    const ordered = await (await t.request(`/api/v1/orders/${sameInstant.id}/events`, { key })).json();
    expect(ordered.data.events.map((e: { eventType: string }) => e.eventType)).toEqual(names);

    const withPdf = await makeOrder(t.db, clinic.id, { prescriptionPdfKey: 'rx/abc.pdf' });
    const pdf = await (await t.request(`/api/v1/orders/${withPdf.id}/events`, { key })).json();
    expect(pdf.data).toEqual({ events: [], hasPrescriptionPdf: true });
  });
});

describe('one query per read', () => {
  it('every order, customer and held-schedule read makes two round trips: the key lookup and its one statement', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id);
    await makePayment(t.db, clinic.id, order.id, { status: 'failed' });
    const paths = [
      '/api/v1/orders',
      '/api/v1/orders?page=3',
      '/api/v1/orders/stats?startDate=2020-01-01',
      '/api/v1/orders/summary',
      '/api/v1/orders/needs-attention',
      `/api/v1/orders/${order.id}`,
      `/api/v1/orders/${order.id}/events`,
      `/api/v1/orders/${order.id}/lab-status`,
      `/api/v1/orders/${order.id}/visit-status`,
      '/api/v1/customers?search=pat',
      '/api/v1/customers?page=5',
      '/api/v1/titration-schedule/fulfillment-held',
    ];
    for (const path of paths) {
      await t.flush();
      t.forgetKeys(); // a cold key: the key lookup is counted
      t.queries.length = 0;
      const res = await t.request(path, { key });
      expect(res.status, path).toBe(200);
      await t.flush();
      expect(
        // The request log and the patient-data reads' audit rows are written after the answer (docs/audit-log.md).
        t.queries.filter((q) => !q.includes('"request_logs"') && !q.includes('insert into "audit_events"')),
        path,
      ).toHaveLength(2);
    }
  });
});
