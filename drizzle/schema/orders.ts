// Orders and what happens to them on the platform (payments, shipping, lab legs, visits, events),
// titration schedules, and the clinic's money: an append-only ledger, payouts, refunds, disputes.
// Money is integer cents; signed only in the ledger (credit to the clinic > 0, debit < 0).
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { globalProducts, titrationProtocols } from './catalog';
import { clinics } from './clinics';
import { createdAt, id, timestamptz, updatedAt } from './columns';
import { coupons } from './coupons';
import { enrollments, patients } from './patients';
import { programs } from './programs';

const clinicId = () =>
  uuid('clinic_id')
    .notNull()
    .references(() => clinics.id, { onDelete: 'cascade' });

/** The order lifecycle's states; transitions are documented with the lifecycle service (docs/order-lifecycle.md). */
export const ORDER_STATUSES = [
  'pending_payment',
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
  'payment_failed',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** shipping: the pharmacy ships to the patient; pickup: the patient collects it. */
export const FULFILLMENT_TYPES = ['shipping', 'pickup'] as const;
export type FulfillmentType = (typeof FULFILLMENT_TYPES)[number];

/**
 * The fee waterfall of an order, in cents. subtotal - discount + tax + shipping = total;
 * total = pharmacyCost + doctorFee + processorFee + platformFee + tax + shipping + brandAmount.
 */
export interface FeeBreakdownCents {
  subtotal: number;
  discount: number;
  tax: number;
  shipping: number;
  total: number;
  pharmacyCost: number;
  doctorFee: number;
  processorFee: number;
  platformFee: number;
  brandAmount: number;
}

export const orders = pgTable(
  'orders',
  {
    id: id(),
    clinicId: clinicId(),
    /** Human-facing, unique per clinic (e.g. DEM-10042). */
    orderNumber: text('order_number').notNull(),
    patientId: uuid('patient_id')
      .notNull()
      .references(() => patients.id, { onDelete: 'restrict' }),
    programId: uuid('program_id').references(() => programs.id, { onDelete: 'set null' }),
    enrollmentId: uuid('enrollment_id').references(() => enrollments.id, { onDelete: 'set null' }),
    couponId: uuid('coupon_id').references(() => coupons.id, { onDelete: 'set null' }),
    status: text('status').$type<OrderStatus>().notNull().default('pending_payment'),
    subtotalCents: integer('subtotal_cents').notNull(),
    discountCents: integer('discount_cents').notNull().default(0),
    taxCents: integer('tax_cents').notNull().default(0),
    shippingCents: integer('shipping_cents').notNull().default(0),
    totalCents: integer('total_cents').notNull(),
    brandAmountCents: integer('brand_amount_cents').notNull(),
    feeBreakdown: jsonb('fee_breakdown').$type<FeeBreakdownCents>().notNull(),
    billingIntervalMonths: integer('billing_interval_months').notNull().default(1),
    /** shipping (pharmacy ships to the patient) or pickup. */
    fulfillmentType: text('fulfillment_type').$type<FulfillmentType>().notNull().default('shipping'),
    approvedByDoctor: boolean('approved_by_doctor').notNull().default(false),
    /** Two-letter state of the shipping address, kept on the order for the summary's by-state counts. */
    shippingState: text('shipping_state'),
    /** Storage key of the prescription PDF once the doctor wrote one. */
    prescriptionPdfKey: text('prescription_pdf_key'),
    paidAt: timestamptz('paid_at'),
    shippedAt: timestamptz('shipped_at'),
    deliveredAt: timestamptz('delivered_at'),
    cancelledAt: timestamptz('cancelled_at'),
    refundedAt: timestamptz('refunded_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('orders_clinic_id_order_number_key').on(t.clinicId, t.orderNumber),
    index('orders_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
    index('orders_clinic_id_status_idx').on(t.clinicId, t.status, t.createdAt),
    index('orders_clinic_id_patient_id_idx').on(t.clinicId, t.patientId, t.createdAt),
    index('orders_clinic_id_program_id_idx').on(t.clinicId, t.programId, t.createdAt),
    check(
      'orders_money_check',
      sql`${t.subtotalCents} >= 0 and ${t.discountCents} >= 0 and ${t.taxCents} >= 0 and ${t.shippingCents} >= 0 and ${t.totalCents} >= 0`,
    ),
  ],
);

export const orderItems = pgTable(
  'order_items',
  {
    id: id(),
    clinicId: clinicId(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    globalProductId: uuid('global_product_id').references(() => globalProducts.id, { onDelete: 'set null' }),
    productName: text('product_name').notNull(),
    quantity: integer('quantity').notNull().default(1),
    unitPriceCents: integer('unit_price_cents').notNull(),
    totalPriceCents: integer('total_price_cents').notNull(),
  },
  (t) => [
    index('order_items_clinic_id_order_id_idx').on(t.clinicId, t.orderId),
    index('order_items_global_product_id_idx').on(t.globalProductId),
  ],
);

export const PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Every charge attempt of an order; the latest decides needs-attention. */
export const payments = pgTable(
  'payments',
  {
    id: id(),
    clinicId: clinicId(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    status: text('status').$type<PaymentStatus>().notNull().default('pending'),
    paymentMethod: text('payment_method').notNull().default('card'),
    amountCents: integer('amount_cents').notNull(),
    processorPaymentId: text('processor_payment_id'),
    failureReason: text('failure_reason'),
    failedAt: timestamptz('failed_at'),
    succeededAt: timestamptz('succeeded_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('payments_clinic_id_order_id_created_at_idx').on(t.clinicId, t.orderId, t.createdAt),
    index('payments_clinic_id_status_idx').on(t.clinicId, t.status),
    // The dashboard's recent-activity feed: the clinic's newest payments.
    index('payments_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
  ],
);

export const shippingAddresses = pgTable(
  'shipping_addresses',
  {
    id: id(),
    clinicId: clinicId(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    address: text('address').notNull(),
    city: text('city').notNull(),
    state: text('state').notNull(),
    zipCode: text('zip_code').notNull(),
    country: text('country').notNull().default('US'),
  },
  (t) => [uniqueIndex('shipping_addresses_order_id_key').on(t.orderId), index('shipping_addresses_clinic_id_idx').on(t.clinicId)],
);

export const shipments = pgTable(
  'shipments',
  {
    id: id(),
    clinicId: clinicId(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    status: text('status').notNull().default('label_created'),
    carrier: text('carrier'),
    trackingNumber: text('tracking_number'),
    trackingUrl: text('tracking_url'),
    shippedAt: timestamptz('shipped_at'),
    deliveredAt: timestamptz('delivered_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('shipments_clinic_id_order_id_idx').on(t.clinicId, t.orderId)],
);

/** Append-only history of an order, written by every lifecycle transition. */
export const orderEvents = pgTable(
  'order_events',
  {
    id: id(),
    clinicId: clinicId(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    eventType: text('event_type').notNull(),
    /** Who caused it: patient, doctor, pharmacy, lab, carrier, processor, brand, system. */
    actorType: text('actor_type').notNull(),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
    /** Insertion order: events of one transaction share created_at (now()), so this breaks the tie. */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
  },
  (t) => [
    index('order_events_clinic_id_order_id_created_at_idx').on(t.clinicId, t.orderId, t.createdAt, t.seq),
    // The dashboard's recent-activity feed: the clinic's newest events across orders.
    index('order_events_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.seq),
  ],
);

export const LAB_STAGES = [
  'requisition_created',
  'shipped_to_patient',
  'delivered_to_patient',
  'shipped_to_lab',
  'received_by_lab',
  'results',
] as const;
export type LabStage = (typeof LAB_STAGES)[number];

/** The lab leg of a lab-gated order: its current stage and when each stage was reached. */
export const labLegs = pgTable(
  'lab_legs',
  {
    id: id(),
    clinicId: clinicId(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    isLabGated: boolean('is_lab_gated').notNull().default(true),
    stage: text('stage').$type<LabStage>().notNull().default('requisition_created'),
    requisitionCreatedAt: timestamptz('requisition_created_at'),
    deliveredToPatientAt: timestamptz('delivered_to_patient_at'),
    receivedByLabAt: timestamptz('received_by_lab_at'),
    resultsAvailableAt: timestamptz('results_available_at'),
    kitToPatientCarrier: text('kit_to_patient_carrier'),
    kitToPatientTrackingNumber: text('kit_to_patient_tracking_number'),
    kitToLabCarrier: text('kit_to_lab_carrier'),
    kitToLabTrackingNumber: text('kit_to_lab_tracking_number'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('lab_legs_order_id_key').on(t.orderId),
    index('lab_legs_clinic_id_idx').on(t.clinicId),
    check(
      'lab_legs_stage_check',
      sql`${t.stage} in ('requisition_created', 'shipped_to_patient', 'delivered_to_patient', 'shipped_to_lab', 'received_by_lab', 'results')`,
    ),
  ],
);

export const VISIT_STATUSES = ['not_booked', 'booked', 'no_show', 'concluded', 'cancelled'] as const;
export type VisitStatus = (typeof VISIT_STATUSES)[number];

export const visits = pgTable(
  'visits',
  {
    id: id(),
    clinicId: clinicId(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    status: text('status').$type<VisitStatus>().notNull().default('not_booked'),
    /** null: the order predates visit-type resolution (unknown, not "no appointment needed"). */
    bookingRequired: boolean('booking_required'),
    scheduledAt: timestamptz('scheduled_at'),
    lastSyncedAt: timestamptz('last_synced_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('visits_order_id_key').on(t.orderId),
    index('visits_clinic_id_idx').on(t.clinicId),
    check('visits_status_check', sql`${t.status} in ('not_booked', 'booked', 'no_show', 'concluded', 'cancelled')`),
  ],
);

/** active, held (fulfilment waits for a revisit), completed. */
export const TITRATION_SCHEDULE_STATUSES = ['active', 'held', 'completed'] as const;
export type TitrationScheduleStatus = (typeof TITRATION_SCHEDULE_STATUSES)[number];

/** A patient's dose escalation on an order; "held" schedules wait for a revisit before fulfilment. */
export const titrationSchedules = pgTable(
  'titration_schedules',
  {
    id: id(),
    clinicId: clinicId(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    patientId: uuid('patient_id')
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    programId: uuid('program_id').references(() => programs.id, { onDelete: 'set null' }),
    titrationProtocolId: uuid('titration_protocol_id')
      .notNull()
      .references(() => titrationProtocols.id, { onDelete: 'restrict' }),
    currentLevel: integer('current_level').notNull().default(1),
    maxLevel: integer('max_level').notNull(),
    status: text('status').$type<TitrationScheduleStatus>().notNull().default('active'),
    nextRevisitDueAt: timestamptz('next_revisit_due_at'),
    lastRevisitAt: timestamptz('last_revisit_at'),
    heldSince: timestamptz('held_since'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('titration_schedules_clinic_id_status_held_since_idx').on(t.clinicId, t.status, t.heldSince, t.id)],
);

export const LEDGER_ENTRY_TYPES = [
  'charge',
  'pharmacy_cost',
  'doctor_fee',
  'processor_fee',
  'platform_fee',
  'refund',
  'payout',
  'reserve_hold',
  'reserve_release',
  'reserve_forfeit',
  'dispute',
  'dispute_reversal',
] as const;
export type LedgerEntryType = (typeof LEDGER_ENTRY_TYPES)[number];

/**
 * The clinic's money, append-only (never updated or deleted). amount_cents is signed from the
 * clinic's point of view; balance, payouts and withdrawable are sums over it.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    clinicId: clinicId(),
    type: text('type').$type<LedgerEntryType>().notNull(),
    amountCents: integer('amount_cents').notNull(),
    orderId: uuid('order_id').references(() => orders.id, { onDelete: 'restrict' }),
    payoutId: uuid('payout_id'),
    refundId: uuid('refund_id'),
    disputeId: uuid('dispute_id'),
    description: text('description'),
    createdAt: createdAt(),
  },
  (t) => [
    index('ledger_entries_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
    index('ledger_entries_clinic_id_type_idx').on(t.clinicId, t.type),
    index('ledger_entries_order_id_idx').on(t.orderId),
    check(
      'ledger_entries_type_check',
      sql`${t.type} in ('charge', 'pharmacy_cost', 'doctor_fee', 'processor_fee', 'platform_fee', 'refund', 'payout', 'reserve_hold', 'reserve_release', 'reserve_forfeit', 'dispute', 'dispute_reversal')`,
    ),
  ],
);

/** order_transfer: one order's brand amount; withdrawal: POST /payouts/withdraw. */
export const PAYOUT_TYPES = ['order_transfer', 'withdrawal'] as const;
export type PayoutType = (typeof PAYOUT_TYPES)[number];
export const PAYOUT_STATUSES = ['pending', 'paid', 'failed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** Money sent to the clinic: per-order transfers and withdrawals of the balance. */
export const payouts = pgTable(
  'payouts',
  {
    id: id(),
    clinicId: clinicId(),
    type: text('type').$type<PayoutType>().notNull(),
    orderId: uuid('order_id').references(() => orders.id, { onDelete: 'set null' }),
    amountCents: integer('amount_cents').notNull(),
    status: text('status').$type<PayoutStatus>().notNull().default('pending'),
    processorTransferId: text('processor_transfer_id'),
    paidAt: timestamptz('paid_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('payouts_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
    check('payouts_amount_check', sql`${t.amountCents} > 0`),
  ],
);

/**
 * A refund's state at the payment processor. Refunds are issued synchronously today, so the API stores
 * succeeded; pending and failed are the processor's other outcomes, declared so clients handle them.
 */
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** At most one refund per order (full refunds only). */
export const refunds = pgTable(
  'refunds',
  {
    id: id(),
    clinicId: clinicId(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'restrict' }),
    amountCents: integer('amount_cents').notNull(),
    status: text('status').$type<RefundStatus>().notNull().default('succeeded'),
    processorRefundId: text('processor_refund_id'),
    reason: text('reason'),
    refundRequestId: uuid('refund_request_id'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('refunds_order_id_key').on(t.orderId), index('refunds_clinic_id_created_at_idx').on(t.clinicId, t.createdAt)],
);

export const REFUND_REQUEST_STATUSES = ['pending', 'approved', 'denied'] as const;
export type RefundRequestStatus = (typeof REFUND_REQUEST_STATUSES)[number];

/** A patient's request for a refund, approved (issuing the refund) or denied by the brand. */
export const refundRequests = pgTable(
  'refund_requests',
  {
    id: id(),
    clinicId: clinicId(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    patientId: uuid('patient_id').references(() => patients.id, { onDelete: 'set null' }),
    reason: text('reason'),
    status: text('status').$type<RefundRequestStatus>().notNull().default('pending'),
    reviewNotes: text('review_notes'),
    decidedAt: timestamptz('decided_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('refund_requests_clinic_id_status_created_at_idx').on(t.clinicId, t.status, t.createdAt),
    index('refund_requests_order_id_idx').on(t.orderId),
  ],
);

export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export const disputes = pgTable(
  'disputes',
  {
    id: id(),
    clinicId: clinicId(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'restrict' }),
    amountCents: integer('amount_cents').notNull(),
    status: text('status').$type<DisputeStatus>().notNull().default('needs_response'),
    reason: text('reason'),
    evidenceDueAt: timestamptz('evidence_due_at'),
    resolvedAt: timestamptz('resolved_at'),
    createdAt: createdAt(),
  },
  (t) => [index('disputes_clinic_id_created_at_idx').on(t.clinicId, t.createdAt)],
);
