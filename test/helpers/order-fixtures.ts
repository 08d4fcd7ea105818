// Orders and their parts, inserted directly (the platform's lifecycle is not needed to read them).
// Each call makes new rows; money is integer cents as stored. The one makeOrder and makeRefundRequest:
// the money tests start from money-fixtures.ts' deliveredOrder values and add the charge with recordCharge.
import { randomUUID } from 'node:crypto';
import {
  type FeeBreakdownCents,
  labLegs,
  orderEvents,
  orderItems,
  orders,
  patients,
  payments,
  refundRequests,
  refunds,
  shipments,
  shippingAddresses,
  titrationSchedules,
  visits,
} from '../../drizzle/schema';
import { type CreateOrderInput, createOrder, orderAmountColumns } from '../../src/modules/orders/orders/lifecycle/create';
import type { Database } from '../../src/platform/db/client';
import { makePatient } from './program-fixtures';

const unique = () => randomUUID().slice(0, 8).toUpperCase();

/** A consistent fee waterfall for a subtotal (cents): 40% pharmacy, 10% doctor, 3% processor, 5% platform. */
export function feeBreakdownFor(subtotal: number, { discount = 0, tax = 0, shipping = 0 } = {}): FeeBreakdownCents {
  const total = subtotal - discount + tax + shipping;
  const net = subtotal - discount;
  const pharmacyCost = Math.round(net * 0.4);
  const doctorFee = Math.round(net * 0.1);
  const processorFee = Math.round(total * 0.03);
  const platformFee = Math.round(net * 0.05);
  const brandAmount = total - pharmacyCost - doctorFee - processorFee - platformFee - tax - shipping;
  return { subtotal, discount, tax, shipping, total, pharmacyCost, doctorFee, processorFee, platformFee, brandAmount };
}

export type OrderValues = Partial<typeof orders.$inferInsert> & { discountCents?: number; taxCents?: number; shippingCents?: number };

/** An order (a new patient unless patientId is given); defaults: paid, 100.00 subtotal, shipping to CA. */
export async function makeOrder(db: Database, clinicId: string, values: OrderValues = {}) {
  const patientId = values.patientId ?? (await makePatient(db, clinicId)).id;
  const subtotal = values.subtotalCents ?? 10_000;
  const fees = feeBreakdownFor(subtotal, {
    discount: values.discountCents ?? 0,
    tax: values.taxCents ?? 0,
    shipping: values.shippingCents ?? 0,
  });
  const status = values.status ?? 'paid';
  const [row] = await db
    .insert(orders)
    .values({
      orderNumber: `T-${unique()}`,
      status,
      ...orderAmountColumns(fees),
      shippingState: 'CA',
      paidAt: status === 'pending_payment' || status === 'payment_failed' ? null : new Date(),
      ...values,
      clinicId,
      patientId,
    })
    .returning();
  return row!;
}

export async function makeOrderItem(db: Database, clinicId: string, orderId: string, values: Partial<typeof orderItems.$inferInsert> = {}) {
  const [row] = await db
    .insert(orderItems)
    .values({ productName: 'Item', quantity: 1, unitPriceCents: 10_000, totalPriceCents: 10_000, ...values, clinicId, orderId })
    .returning();
  return row!;
}

export async function makePayment(db: Database, clinicId: string, orderId: string, values: Partial<typeof payments.$inferInsert> = {}) {
  const [row] = await db
    .insert(payments)
    .values({ amountCents: 10_000, status: 'succeeded', ...values, clinicId, orderId })
    .returning();
  return row!;
}

export async function makeShippingAddress(
  db: Database,
  clinicId: string,
  orderId: string,
  values: Partial<typeof shippingAddresses.$inferInsert> = {},
) {
  const [row] = await db
    .insert(shippingAddresses)
    .values({ address: '1 Main St', city: 'Springfield', state: 'CA', zipCode: '90001', ...values, clinicId, orderId })
    .returning();
  return row!;
}

export async function makeShipment(db: Database, clinicId: string, orderId: string, values: Partial<typeof shipments.$inferInsert> = {}) {
  const [row] = await db
    .insert(shipments)
    .values({ status: 'in_transit', ...values, clinicId, orderId })
    .returning();
  return row!;
}

export async function makeOrderEvent(
  db: Database,
  clinicId: string,
  orderId: string,
  values: Partial<typeof orderEvents.$inferInsert> = {},
) {
  const [row] = await db
    .insert(orderEvents)
    .values({ eventType: 'order.created', actorType: 'patient', ...values, clinicId, orderId })
    .returning();
  return row!;
}

export async function makeLabLeg(db: Database, clinicId: string, orderId: string, values: Partial<typeof labLegs.$inferInsert> = {}) {
  const [row] = await db
    .insert(labLegs)
    .values({ ...values, clinicId, orderId })
    .returning();
  return row!;
}

export async function makeVisit(db: Database, clinicId: string, orderId: string, values: Partial<typeof visits.$inferInsert> = {}) {
  const [row] = await db
    .insert(visits)
    .values({ bookingRequired: true, ...values, clinicId, orderId })
    .returning();
  return row!;
}

export async function makeRefund(db: Database, clinicId: string, orderId: string, values: Partial<typeof refunds.$inferInsert> = {}) {
  const [row] = await db
    .insert(refunds)
    .values({ amountCents: 10_000, ...values, clinicId, orderId })
    .returning();
  return row!;
}

export async function makeRefundRequest(
  db: Database,
  clinicId: string,
  orderId: string,
  values: Partial<typeof refundRequests.$inferInsert> = {},
) {
  const [row] = await db
    .insert(refundRequests)
    .values({ ...values, clinicId, orderId })
    .returning();
  return row!;
}

export async function makeTitrationSchedule(
  db: Database,
  clinicId: string,
  order: { id: string; patientId: string; programId: string | null },
  titrationProtocolId: string,
  values: Partial<typeof titrationSchedules.$inferInsert> = {},
) {
  const [row] = await db
    .insert(titrationSchedules)
    .values({
      maxLevel: 2,
      status: 'held',
      heldSince: new Date(),
      ...values,
      clinicId,
      orderId: order.id,
      patientId: order.patientId,
      programId: order.programId,
      titrationProtocolId,
    })
    .returning();
  return row!;
}

/**
 * A pending-payment order made the way the platform makes one (createOrder: its number, its outbox event
 * order.created), for a new patient of the clinic; unlike makeOrder, which inserts the rows directly.
 */
export async function createPendingOrder(db: Database, clinicId: string, options: Partial<CreateOrderInput> = {}) {
  const [patient] = await db
    .insert(patients)
    .values({ clinicId, firstName: 'Pat', lastName: 'Ient', email: `p-${randomUUID()}@example.test` })
    .returning();
  return db.transaction((tx) =>
    createOrder(tx, clinicId, {
      patientId: patient!.id,
      items: [{ productName: 'Semaglutide', unitPriceCents: 19_900, quantity: 1, pharmacyCostCents: 8_000, facilitationFeeCents: 1_000 }],
      taxCents: 800,
      shippingCents: 500,
      shippingAddress: { address: '1 Main St', city: 'Austin', state: 'tx', zipCode: '78701' },
      ...options,
    }),
  );
}
