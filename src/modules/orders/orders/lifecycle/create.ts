// createOrder: how the platform creates an order (checkout, and the demo seeder), in the caller's transaction.
import { sql } from 'drizzle-orm';
import {
  type FeeBreakdownCents,
  labLegs,
  orderEvents,
  orderItems,
  orders,
  payments,
  shippingAddresses,
  visits,
} from '../../../../../drizzle/schema';
import type { Queryable } from '../../../../platform/db/client';
import { rowsOf } from '../../../../platform/db/sql';
import { computeFeeBreakdown, type FeeInput, type FeeItem } from './fees';
import { writeLifecycleOutboxEvent } from './outbox';
import type { ActorType } from './platform-events';

export interface CreateOrderItem extends FeeItem {
  globalProductId?: string | null;
  productName: string;
}

export interface CreateOrderInput extends Omit<FeeInput, 'items'> {
  /** A fixed id (the seeder's); default: a random uuid. */
  id?: string;
  /** Default: the clinic's next number (orderNumberPrefix + 7-digit sequence). */
  orderNumber?: string;
  patientId: string;
  programId?: string | null;
  enrollmentId?: string | null;
  couponId?: string | null;
  items: CreateOrderItem[];
  billingIntervalMonths?: number;
  fulfillmentType?: 'shipping' | 'pickup';
  shippingAddress?: { address: string; city: string; state: string; zipCode: string; country?: string } | null;
  /** The first (pending) payment's method; default card. */
  paymentMethod?: string;
  /** Creates a lab leg at requisition_created. */
  lab?: { isLabGated?: boolean } | null;
  /** Creates a visit (not_booked); bookingRequired null = predates visit-type resolution. */
  visit?: { bookingRequired: boolean | null } | null;
  /** Who placed it (the order.created event's actor); default patient. */
  actorType?: ActorType;
}

export interface CreatedOrder {
  id: string;
  orderNumber: string;
  status: 'pending_payment';
  feeBreakdown: FeeBreakdownCents;
  paymentId: string;
  orderEventId: string;
}

/** Order numbers start here; the sequence is zero-padded to 7 digits so text order is numeric order. */
export const FIRST_ORDER_SEQUENCE = 1_000_001;

/** The clinic's prefix: the first three letters of its slug, upper case (demo-clinic → DEM); ORD when it has none. */
export function orderNumberPrefix(slug: string): string {
  const letters = slug
    .replace(/[^a-z]/gi, '')
    .slice(0, 3)
    .toUpperCase();
  return letters.length > 0 ? letters : 'ORD';
}

/** The order's money columns (integer cents) and its stored fee waterfall, from one fee breakdown. */
export function orderAmountColumns(fees: FeeBreakdownCents) {
  return {
    subtotalCents: fees.subtotal,
    discountCents: fees.discount,
    taxCents: fees.tax,
    shippingCents: fees.shipping,
    totalCents: fees.total,
    brandAmountCents: fees.brandAmount,
    feeBreakdown: fees,
  };
}

/** 404-free checks: the caller passes ids of its own clinic; a foreign one is a programming error. */
class ForeignRowError extends Error {
  override name = 'ForeignRowError';
}

/**
 * The clinic's next order number, under a per-clinic transaction lock so two concurrent checkouts
 * never draw the same number. The highest number with the clinic's prefix comes from the unique
 * (clinic_id, order_number) index, read backwards.
 */
async function nextOrderNumber(tx: Queryable, clinicId: string): Promise<string> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`order_number:${clinicId}`}, 0))`);
  const [clinic] = await rowsOf<{ slug: string }>(tx, sql`select slug from clinics where id = ${clinicId}`);
  if (!clinic) throw new ForeignRowError(`clinic ${clinicId} does not exist`);
  const prefix = orderNumberPrefix(clinic.slug);
  const [latest] = await rowsOf<{ orderNumber: string }>(
    tx,
    sql`
    select order_number as "orderNumber" from orders
    where clinic_id = ${clinicId} and order_number like ${`${prefix}-%`} and order_number ~ '^[A-Z]{3}-[0-9]{7}$'
    order by order_number desc limit 1`,
  );
  const last = latest ? Number(latest.orderNumber.slice(prefix.length + 1)) : FIRST_ORDER_SEQUENCE - 1;
  return `${prefix}-${String(last + 1).padStart(7, '0')}`;
}

/**
 * Creates an order as the platform does: the order (status pending_payment, amounts and the fee
 * waterfall from computeFeeBreakdown, shipping_state from the address), its items, shipping address,
 * first payment (pending), lab leg and visit when asked, and the order.created event — all in `tx`.
 * The patient, program, enrollment and coupon must be the clinic's (checked; an Error otherwise).
 */
export async function createOrder(
  tx: Queryable,
  clinicId: string,
  input: CreateOrderInput,
  options: { now?: Date } = {},
): Promise<CreatedOrder> {
  const now = options.now ?? new Date();
  const fees = computeFeeBreakdown(input);
  await assertOwnRows(tx, clinicId, input);
  const orderNumber = input.orderNumber ?? (await nextOrderNumber(tx, clinicId));
  const state = input.shippingAddress ? input.shippingAddress.state.trim().toUpperCase() : null;

  const [order] = await tx
    .insert(orders)
    .values({
      ...(input.id ? { id: input.id } : {}),
      clinicId,
      orderNumber,
      patientId: input.patientId,
      programId: input.programId ?? null,
      enrollmentId: input.enrollmentId ?? null,
      couponId: input.couponId ?? null,
      status: 'pending_payment',
      ...orderAmountColumns(fees),
      billingIntervalMonths: input.billingIntervalMonths ?? 1,
      fulfillmentType: input.fulfillmentType ?? 'shipping',
      shippingState: state,
      createdAt: now,
      updatedAt: now,
    })
    .returning({ id: orders.id });
  const orderId = order!.id;

  await tx.insert(orderItems).values(
    input.items.map((item) => ({
      clinicId,
      orderId,
      globalProductId: item.globalProductId ?? null,
      productName: item.productName,
      quantity: item.quantity,
      unitPriceCents: item.unitPriceCents,
      totalPriceCents: item.unitPriceCents * item.quantity,
    })),
  );
  if (input.shippingAddress) {
    const a = input.shippingAddress;
    await tx
      .insert(shippingAddresses)
      .values({ clinicId, orderId, address: a.address, city: a.city, state: state!, zipCode: a.zipCode, country: a.country ?? 'US' });
  }
  const [payment] = await tx
    .insert(payments)
    .values({
      clinicId,
      orderId,
      status: 'pending',
      paymentMethod: input.paymentMethod ?? 'card',
      amountCents: fees.total,
      createdAt: now,
    })
    .returning({ id: payments.id });
  if (input.lab) {
    await tx.insert(labLegs).values({
      clinicId,
      orderId,
      isLabGated: input.lab.isLabGated ?? true,
      stage: 'requisition_created',
      requisitionCreatedAt: now,
      createdAt: now,
      updatedAt: now,
    });
  }
  if (input.visit) {
    await tx
      .insert(visits)
      .values({ clinicId, orderId, status: 'not_booked', bookingRequired: input.visit.bookingRequired, createdAt: now, updatedAt: now });
  }
  const [event] = await tx
    .insert(orderEvents)
    .values({
      clinicId,
      orderId,
      eventType: 'order.created',
      actorType: input.actorType ?? 'patient',
      metadata: { orderNumber, status: 'pending_payment', totalCents: fees.total },
      createdAt: now,
    })
    .returning({ id: orderEvents.id });
  await writeLifecycleOutboxEvent(tx, clinicId, { name: 'order.created', orderId, orderEventId: event!.id, occurredAt: now });
  return { id: orderId, orderNumber, status: 'pending_payment', feeBreakdown: fees, paymentId: payment!.id, orderEventId: event!.id };
}

async function assertOwnRows(tx: Queryable, clinicId: string, input: CreateOrderInput): Promise<void> {
  const checks: [string, string, string | null | undefined][] = [
    ['patient', 'patients', input.patientId],
    ['program', 'programs', input.programId],
    ['enrollment', 'enrollments', input.enrollmentId],
    ['coupon', 'coupons', input.couponId],
  ];
  const wanted = checks.filter(([, , id]) => id);
  const columns = sql.join(
    wanted.map(
      ([name, table, id]) =>
        sql`exists (select 1 from ${sql.identifier(table)} where id = ${id} and clinic_id = ${clinicId}) as ${sql.identifier(name)}`,
    ),
    sql`, `,
  );
  const [row] = await rowsOf<Record<string, boolean>>(tx, sql`select ${columns}`);
  for (const [name] of wanted) {
    if (!row?.[name]) throw new ForeignRowError(`createOrder: the ${name} is not one of clinic ${clinicId}'s`);
  }
}
