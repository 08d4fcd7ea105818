// Demo orders for each live clinic (docs/order-lifecycle.md, "Demo data"): 64 orders made with the
// platform's own createOrder and applyPlatformEvent (back-dated over 120 days), so every invariant of
// the lifecycle holds: statuses, payments (failed ones for needs-attention), the ledger entries of
// every charge, shipments, lab legs at every stage, visits in every status. Then what the platform's
// money side adds: refunds and refund requests, held titration schedules, per-order transfers and a
// withdrawal, a reserve hold and release, disputes. The ledger is append-only, so the seed runs once
// per clinic: a clinic whose first demo order exists is skipped whole (re-seeding appends nothing).
//
// Ids: order n of clinic c = demoId(ORDER_BLOCKS.orders, c*1000 + n); the other fixed-id rows use
// their ORDER_BLOCKS block with c*100 + k. Order items, payments, shipments, events, lab legs and
// visits get random ids from the lifecycle service (guarded by the first order's existence).
import { and, eq, sql } from 'drizzle-orm';
import {
  disputes,
  orderEvents,
  orders,
  type PayoutStatus,
  type PayoutType,
  payments,
  payouts,
  refundRequests,
  refunds,
  titrationSchedules,
} from '../../drizzle/schema';
import { appendLedgerEntries, applyPlatformEvent, computeFeeBreakdown, createOrder, type PlatformEvent } from '../../src/modules/orders';
import type { Database } from '../../src/platform/db/client';
import { SEED_TITRATION, seedPatientId } from './catalog';
import { DEMO_BLOCKS, demoId, LIVE_DEMO_CLINICS, ORDER_BLOCKS as O } from './ids';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const SEED_ORDERS_PER_CLINIC = 64;
export const seedOrderId = (clinicIndex: number, n: number) => demoId(O.orders, clinicIndex * 1000 + n);

/** 64 shipping states: 8 states with 5 or more orders, OR and NV with fewer than 5. */
const STATE_COUNTS: [string, number][] = [
  ['CA', 12],
  ['TX', 10],
  ['NY', 8],
  ['FL', 8],
  ['WA', 6],
  ['IL', 5],
  ['CO', 5],
  ['AZ', 5],
  ['OR', 3],
  ['NV', 2],
];
const STATES = STATE_COUNTS.flatMap(([state, count]) => Array.from({ length: count }, () => state));
const CITIES: Record<string, [string, string]> = {
  CA: ['Los Angeles', '90012'],
  TX: ['Austin', '78701'],
  NY: ['Brooklyn', '11201'],
  FL: ['Miami', '33130'],
  WA: ['Seattle', '98101'],
  IL: ['Chicago', '60601'],
  CO: ['Denver', '80202'],
  AZ: ['Phoenix', '85004'],
  OR: ['Portland', '97204'],
  NV: ['Reno', '89501'],
};

type Step =
  | PlatformEvent['event']
  | 'payment.failed:declined'
  | 'payment.failed:funds'
  | 'payment.failed:expired'
  | 'appointment.scheduled:future'
  | 'appointment.scheduled:past';
interface Scenario {
  steps: Step[];
  lab?: boolean;
  visit?: boolean | null;
}

const SHIP: Step[] = ['order.sent_to_pharmacy', 'order.shipped'];
const DELIVER: Step[] = ['payment.succeeded', 'order.doctor_approved', ...SHIP, 'order.delivered'];
const LAB: Step[] = ['lab.kit_shipped', 'lab.kit_delivered', 'lab.sample_shipped', 'lab.sample_received', 'lab.results_available'];

/** Order n follows SCENARIOS[(n - 1) % 32]. */
const SCENARIOS: Scenario[] = [
  { steps: [] },
  { steps: ['payment.failed:declined'] },
  { steps: ['payment.succeeded'] },
  { steps: ['payment.succeeded', 'order.doctor_approved'] },
  { steps: ['payment.succeeded', 'order.doctor_approved', 'order.sent_to_pharmacy'] },
  { steps: ['payment.succeeded', 'order.doctor_approved', ...SHIP] },
  { steps: ['payment.succeeded', 'order.doctor_approved', ...SHIP, 'shipment.updated'] },
  { steps: DELIVER },
  { steps: ['payment.succeeded', 'appointment.scheduled:past', 'order.doctor_approved', ...SHIP, 'order.delivered'], visit: true },
  { steps: ['payment.succeeded', 'order.doctor_denied'] },
  { steps: ['order.cancelled'] },
  { steps: ['payment.failed:declined', 'payment.failed:funds'] },
  { steps: ['payment.succeeded'], lab: true },
  { steps: ['payment.succeeded', ...LAB.slice(0, 1)], lab: true },
  { steps: ['payment.succeeded', ...LAB.slice(0, 2)], lab: true },
  { steps: ['payment.succeeded', ...LAB.slice(0, 3)], lab: true },
  { steps: ['payment.succeeded', ...LAB.slice(0, 4)], lab: true },
  { steps: ['payment.succeeded', ...LAB], lab: true },
  { steps: ['payment.succeeded', ...LAB, 'order.doctor_approved', ...SHIP, 'order.delivered'], lab: true },
  { steps: ['payment.succeeded', 'appointment.scheduled:future'], visit: true },
  { steps: ['payment.succeeded', 'appointment.scheduled:past', 'appointment.no_show'], visit: true },
  { steps: ['appointment.scheduled:future', 'appointment.cancelled'], visit: true },
  { steps: DELIVER, visit: false },
  { steps: DELIVER, visit: null },
  { steps: ['payment.failed:expired', ...DELIVER] },
  { steps: DELIVER },
  { steps: DELIVER },
  { steps: ['payment.failed:expired'] },
  { steps: DELIVER },
  { steps: ['payment.succeeded', 'order.doctor_approved', ...SHIP] },
  { steps: DELIVER },
  { steps: ['payment.succeeded', 'appointment.scheduled:past', 'appointment.concluded', 'order.doctor_approved'], visit: true },
];

const FAILURES = {
  declined: 'Your card was declined.',
  funds: 'Your card has insufficient funds.',
  expired: 'Your card has expired.',
} as const;

function eventFor(step: Step, n: number, at: Date, now: Date): PlatformEvent {
  switch (step) {
    case 'payment.failed:declined':
      return { event: 'payment.failed', failureReason: FAILURES.declined };
    case 'payment.failed:funds':
      return { event: 'payment.failed', failureReason: FAILURES.funds };
    case 'payment.failed:expired':
      return { event: 'payment.failed', failureReason: FAILURES.expired };
    case 'appointment.scheduled:future':
      return { event: 'appointment.scheduled', scheduledAt: new Date(now.getTime() + ((n % 7) + 1) * DAY + 10 * HOUR).toISOString() };
    case 'appointment.scheduled:past':
      return { event: 'appointment.scheduled', scheduledAt: new Date(at.getTime() + HOUR).toISOString() };
    case 'order.shipped':
      return {
        event: 'order.shipped',
        carrier: n % 2 ? 'UPS' : 'FedEx',
        trackingNumber: `1Z${String(100000 + n * 7919).padStart(10, '0')}`,
        trackingUrl: null,
      };
    case 'shipment.updated':
      return { event: 'shipment.updated', status: 'out_for_delivery' };
    case 'lab.kit_shipped':
      return { event: 'lab.kit_shipped', carrier: 'USPS', trackingNumber: `9400${String(n * 104729).padStart(12, '0')}` };
    case 'lab.sample_shipped':
      return { event: 'lab.sample_shipped', carrier: 'FedEx', trackingNumber: `7749${String(n * 15485863).padStart(12, '0')}` };
    case 'order.doctor_denied':
      return { event: 'order.doctor_denied', reason: 'Not a candidate for this treatment' };
    case 'order.cancelled':
      return { event: 'order.cancelled', reason: 'Patient changed their mind' };
    default:
      return { event: step } as PlatformEvent;
  }
}

/** An enrollment as an order is made from it (also the bench's refundable orders). */
export interface EnrollmentRow {
  patientId: string;
  enrollmentId: string;
  programId: string;
  globalProductId: string;
  productName: string;
  chargeAmountCents: number;
  pharmacyCostCents: number;
  facilitationFeeCents: number;
  billingIntervalMonths: number;
}

interface SeededOrder {
  n: number;
  id: string;
  orderNumber: string;
  patientId: string;
  programId: string;
  status: string;
  createdAt: Date;
  lastEventAt: Date;
  totalCents: number;
  brandAmountCents: number;
}

export async function seedOrders(db: Database, now: Date): Promise<void> {
  for (const [c, clinicId] of LIVE_DEMO_CLINICS.entries()) {
    const [seeded] = await db
      .select({ id: orders.id })
      .from(orders)
      .where(eq(orders.id, seedOrderId(c, 1)));
    if (seeded) continue; // the ledger is append-only: never seed a clinic's money twice
    await seedClinicOrders(db, c, clinicId, now);
  }
}

async function seedClinicOrders(db: Database, c: number, clinicId: string, now: Date): Promise<void> {
  const enrollments = new Map(
    (
      (await db.execute(sql`
    select e.patient_id as "patientId", e.id as "enrollmentId", e.program_id as "programId", e.global_product_id as "globalProductId",
           gp.name as "productName", e.charge_amount_cents as "chargeAmountCents", gp.pharmacy_base_price_cents as "pharmacyCostCents",
           coalesce(tp.facilitation_fee_cents, 0) as "facilitationFeeCents", e.billing_interval_months as "billingIntervalMonths"
    from enrollments e
    join global_products gp on gp.id = e.global_product_id
    left join tenant_products tp on tp.clinic_id = e.clinic_id and tp.global_product_id = e.global_product_id
    where e.clinic_id = ${clinicId}`)) as unknown as { rows: EnrollmentRow[] }
    ).rows.map((row) => [row.patientId, row]),
  );

  const seededOrders: SeededOrder[] = [];
  for (let n = 1; n <= SEED_ORDERS_PER_CLINIC; n++) {
    const daysAgo = 2 + ((n * 53) % 118); // 2..119 days ago, spread
    const createdAt = new Date(now.getTime() - daysAgo * DAY + ((n % 8) + 1) * HOUR);
    // A patient who existed then (patient i joined 120 - i days ago).
    const patient = 1 + ((n - 1) % Math.max(1, Math.min(40, 119 - daysAgo)));
    const enrollment = enrollments.get(seedPatientId(c, patient));
    if (!enrollment) throw new Error(`seedOrders: patient ${patient} of clinic ${c} has no enrollment`);
    const scenario = SCENARIOS[(n - 1) % SCENARIOS.length]!;
    const state = STATES[(n * 29) % STATES.length]!;
    const [city, zipCode] = CITIES[state]!;
    const item = {
      globalProductId: enrollment.globalProductId,
      productName: enrollment.productName,
      quantity: 1,
      unitPriceCents: enrollment.chargeAmountCents,
      pharmacyCostCents: enrollment.pharmacyCostCents,
      facilitationFeeCents: enrollment.facilitationFeeCents,
    };
    const shippingCents = n % 4 === 0 ? 999 : 0;
    const taxCents = n % 5 === 0 ? Math.round(item.unitPriceCents * 0.0625) : 0;
    // Every sixth order used a 10% discount, unless that would leave the brand nothing.
    const wanted = n % 6 === 0 ? Math.round(item.unitPriceCents / 10) : 0;
    const discountCents =
      wanted && computeFeeBreakdown({ items: [item], discountCents: wanted, taxCents, shippingCents }).brandAmount > 0 ? wanted : 0;

    const created = await createOrder(
      db,
      clinicId,
      {
        id: seedOrderId(c, n),
        patientId: enrollment.patientId,
        programId: enrollment.programId,
        enrollmentId: enrollment.enrollmentId,
        items: [item],
        discountCents,
        taxCents,
        shippingCents,
        billingIntervalMonths: enrollment.billingIntervalMonths,
        shippingAddress: { address: `${100 + n} Market Street`, city, state, zipCode },
        lab: scenario.lab ? { isLabGated: true } : null,
        visit: scenario.visit === undefined ? null : { bookingRequired: scenario.visit },
      },
      { now: createdAt },
    );

    let at = createdAt;
    let status = 'pending_payment';
    for (const step of scenario.steps) {
      at = new Date(at.getTime() + 2 * HOUR);
      status = (await applyPlatformEvent(db, clinicId, created.id, eventFor(step, n, at, now), { now: at })).toStatus;
    }
    seededOrders.push({
      n,
      id: created.id,
      orderNumber: created.orderNumber,
      patientId: enrollment.patientId,
      programId: enrollment.programId,
      status,
      createdAt,
      lastEventAt: at,
      totalCents: created.feeBreakdown.total,
      brandAmountCents: created.feeBreakdown.brandAmount,
    });
  }

  await seedMoney(db, c, clinicId, now, seededOrders);
}

/** Refunds and requests, titration schedules, payouts, reserve, disputes; then the balance must be positive. */
async function seedMoney(db: Database, c: number, clinicId: string, now: Date, all: SeededOrder[]): Promise<void> {
  const id = (block: number, k: number) => demoId(block, c * 100 + k);
  const ageDays = (o: SeededOrder) => (now.getTime() - o.createdAt.getTime()) / DAY;
  const delivered = all.filter((o) => o.status === 'delivered').sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  const recent = delivered.filter((o) => ageDays(o) < 28);
  const old = delivered.filter((o) => ageDays(o) > 35);
  if (recent.length < 3 || old.length < 6)
    throw new Error(`seedOrders: clinic ${c} has too few delivered orders to seed money (${recent.length} recent, ${old.length} old)`);
  const used = new Set<string>();
  const take = (o: SeededOrder) => {
    used.add(o.id);
    return o;
  };

  // One approved refund (issued like POST /refunds: refund row, order and payment refunded, ledger, event).
  const refunded = take(recent[0]!);
  const refundAt = new Date(refunded.lastEventAt.getTime() + DAY);
  await db.insert(refundRequests).values({
    id: id(O.refundRequests, 1),
    clinicId,
    orderId: refunded.id,
    patientId: refunded.patientId,
    reason: 'The medication caused side effects.',
    status: 'approved',
    reviewNotes: 'Approved: side effects reported by the doctor.',
    decidedAt: refundAt,
    createdAt: new Date(refundAt.getTime() - 2 * HOUR),
  });
  await db.insert(refunds).values({
    id: id(O.refunds, 1),
    clinicId,
    orderId: refunded.id,
    amountCents: refunded.totalCents,
    status: 'succeeded',
    processorRefundId: `re_dev_seed_${c}_1`,
    reason: 'Side effects',
    refundRequestId: id(O.refundRequests, 1),
    createdAt: refundAt,
  });
  await db.update(orders).set({ status: 'refunded', refundedAt: refundAt, updatedAt: refundAt }).where(eq(orders.id, refunded.id));
  await db
    .update(payments)
    .set({ status: 'refunded' })
    .where(and(eq(payments.orderId, refunded.id), eq(payments.status, 'succeeded')));
  await appendLedgerEntries(db, clinicId, [
    {
      type: 'refund',
      amountCents: -Math.max(refunded.brandAmountCents, 0),
      orderId: refunded.id,
      refundId: id(O.refunds, 1),
      description: `Refund of order ${refunded.orderNumber}`,
      createdAt: refundAt,
    },
  ]);
  await db.insert(orderEvents).values({
    clinicId,
    orderId: refunded.id,
    eventType: 'order.refunded',
    actorType: 'brand',
    metadata: { refundId: id(O.refunds, 1), amountCents: refunded.totalCents, refundRequestId: id(O.refundRequests, 1) },
    createdAt: refundAt,
  });

  // Pending requests: two recent orders and one older than 30 days (approving that one is refused); one denied.
  const requests: [SeededOrder, string, 'pending' | 'denied'][] = [
    [take(recent[1]!), 'I no longer need the treatment.', 'pending'],
    [take(recent[2]!), 'The package arrived damaged.', 'pending'],
    [take(old[0]!), 'I was charged for a month I did not use.', 'pending'],
    [take(old[1]!), 'I want to try a different program.', 'denied'],
  ];
  await db.insert(refundRequests).values(
    requests.map(([o, reason, status], k) => {
      const createdAt = new Date(Math.min(o.lastEventAt.getTime() + (k + 1) * DAY, now.getTime() - HOUR));
      return {
        id: id(O.refundRequests, k + 2),
        clinicId,
        orderId: o.id,
        patientId: o.patientId,
        reason,
        status,
        createdAt,
        reviewNotes: status === 'denied' ? 'Denied: the treatment was delivered and used as prescribed.' : null,
        decidedAt: status === 'denied' ? new Date(createdAt.getTime() + DAY) : null,
      };
    }),
  );

  // Disputes: one open (needs a response), one won (debited, then reversed).
  const disputed = take(old[2]!);
  const won = take(old[3]!);
  const openedAt = new Date(now.getTime() - 3 * DAY);
  await db.insert(disputes).values([
    {
      id: id(O.disputes, 1),
      clinicId,
      orderId: disputed.id,
      amountCents: disputed.totalCents,
      status: 'needs_response',
      reason: 'product_not_received',
      evidenceDueAt: new Date(now.getTime() + 7 * DAY),
      createdAt: openedAt,
    },
    {
      id: id(O.disputes, 2),
      clinicId,
      orderId: won.id,
      amountCents: won.totalCents,
      status: 'won',
      reason: 'fraudulent',
      evidenceDueAt: new Date(now.getTime() - 30 * DAY),
      resolvedAt: new Date(now.getTime() - 20 * DAY),
      createdAt: new Date(now.getTime() - 40 * DAY),
    },
  ]);
  await appendLedgerEntries(db, clinicId, [
    {
      type: 'dispute',
      amountCents: -disputed.totalCents,
      orderId: disputed.id,
      disputeId: id(O.disputes, 1),
      description: `Dispute on order ${disputed.orderNumber}`,
      createdAt: openedAt,
    },
    {
      type: 'dispute',
      amountCents: -won.totalCents,
      orderId: won.id,
      disputeId: id(O.disputes, 2),
      description: `Dispute on order ${won.orderNumber}`,
      createdAt: new Date(now.getTime() - 40 * DAY),
    },
    {
      type: 'dispute_reversal',
      amountCents: won.totalCents,
      orderId: won.id,
      disputeId: id(O.disputes, 2),
      description: `Dispute won on order ${won.orderNumber}`,
      createdAt: new Date(now.getTime() - 20 * DAY),
    },
  ]);

  // Per-order transfers of delivered orders older than two weeks, then one withdrawal.
  const transferred = delivered.filter((o) => !used.has(o.id) && ageDays(o) > 14 && o.brandAmountCents > 0).slice(0, 8);
  const payoutRows: {
    id: string;
    clinicId: string;
    type: PayoutType;
    orderId: string | null;
    amountCents: number;
    status: PayoutStatus;
    processorTransferId: string;
    paidAt: Date;
    createdAt: Date;
  }[] = transferred.map((o, k) => ({
    id: id(O.payouts, k + 1),
    clinicId,
    type: 'order_transfer',
    orderId: o.id,
    amountCents: o.brandAmountCents,
    status: 'paid',
    processorTransferId: `tr_dev_seed_${c}_${k + 1}`,
    paidAt: new Date(o.lastEventAt.getTime() + 2 * DAY),
    createdAt: new Date(o.lastEventAt.getTime() + 2 * DAY),
  }));
  const withdrawnAt = new Date(now.getTime() - 10 * DAY);
  payoutRows.push({
    id: id(O.payouts, 50),
    clinicId,
    type: 'withdrawal',
    orderId: null,
    amountCents: 10_000,
    status: 'paid',
    processorTransferId: `tr_dev_seed_${c}_withdrawal`,
    paidAt: withdrawnAt,
    createdAt: withdrawnAt,
  });
  await db.insert(payouts).values(payoutRows);
  await appendLedgerEntries(
    db,
    clinicId,
    payoutRows.map((p) => ({
      type: 'payout' as const,
      amountCents: -p.amountCents,
      orderId: p.orderId,
      payoutId: p.id,
      createdAt: p.createdAt,
      description: p.type === 'withdrawal' ? 'Withdrawal to the payout account' : 'Order transfer',
    })),
  );

  // Reserve: one hold released, one still held.
  await appendLedgerEntries(db, clinicId, [
    {
      type: 'reserve_hold',
      amountCents: -7_500,
      description: 'Rolling reserve (new account)',
      createdAt: new Date(now.getTime() - 90 * DAY),
    },
    { type: 'reserve_release', amountCents: 7_500, description: 'Rolling reserve released', createdAt: new Date(now.getTime() - 45 * DAY) },
    { type: 'reserve_hold', amountCents: -5_000, description: 'Reserve for an open dispute', createdAt: openedAt },
  ]);

  // Titration schedules on program 1 (semaglutide): four held (three overdue for their revisit), one active.
  const onProgram1 = all
    .filter(
      (o) =>
        o.programId === demoId(DEMO_BLOCKS.programs, c * 100 + 1) &&
        ['delivered', 'doctor_approved', 'shipped', 'sent_to_pharmacy'].includes(o.status),
    )
    .slice(0, 5);
  if (onProgram1.length < 5) throw new Error(`seedOrders: clinic ${c} has too few program-1 orders for titration schedules`);
  await db.insert(titrationSchedules).values(
    onProgram1.map((o, k) => {
      const held = k < 4;
      return {
        id: id(O.titrationSchedules, k + 1),
        clinicId,
        orderId: o.id,
        patientId: o.patientId,
        programId: o.programId,
        titrationProtocolId: SEED_TITRATION.semaglutide,
        currentLevel: 1 + (k % 4),
        maxLevel: 5,
        status: held ? ('held' as const) : ('active' as const),
        heldSince: held ? new Date(now.getTime() - (k * 6 + 2) * DAY) : null,
        nextRevisitDueAt: new Date(now.getTime() + (k < 3 ? -(k * 5 + 1) : 10) * DAY),
        lastRevisitAt: new Date(now.getTime() - (k * 6 + 30) * DAY),
        createdAt: o.createdAt,
        updatedAt: now,
      };
    }),
  );

  const result = (await db.execute(
    sql`select coalesce(sum(amount_cents), 0)::bigint as balance from ledger_entries where clinic_id = ${clinicId}`,
  )) as unknown as { rows: { balance: string }[] };
  if (Number(result.rows[0]!.balance) <= 0)
    throw new Error(`seedOrders: clinic ${c} would end with a non-positive balance (${result.rows[0]!.balance} cents)`);
}
