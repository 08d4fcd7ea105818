// Rollups: a clinic's order and patient aggregates kept as counters, so the reports, the dashboard
// and the list totals read a few rows instead of counting the clinic's orders on every request.
// They are kept by statement-level triggers on orders, refunds, payments, refund_requests, patients
// and enrollments (migration 0012), in the same transaction as the write: exact, never eventually
// consistent. `recount_clinic_rollups(clinic)` rebuilds one clinic from scratch (bulk loads, checks).
// docs/orders.md ("Rollups") has the definitions.
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, pgTable, primaryKey, smallint, text, uuid } from 'drizzle-orm/pg-core';
import { clinics } from './clinics';
import { timestamptz } from './columns';

const counter = (name: string) => bigint(name, { mode: 'number' }).notNull().default(0);

/**
 * One row per (clinic, dim, key, slot); a figure is the sum over the slots. dim `total` (key ''): the
 * whole clinic; `status`, `program` (key the program id, '' for none), `state` (upper-cased shipping
 * state, '' for none): the summary's groups; `day` ('YYYY-MM-DD') and `hour` ('YYYY-MM-DD"T"HH24'),
 * UTC, by the order's or patient's created_at: the time buckets windows are summed from;
 * `day_status`, `day_program`, `day_state` ('YYYY-MM-DD|<group key>'): the summary's groups per UTC
 * day (migration 0013); `day_refund_request` ('YYYY-MM-DD|<status>', the order's day): the refund
 * requests of the day's orders; `refund_request` (key the request's status): only `refundRequests`.
 * A count that reaches 0 leaves its row with zeros (readers skip those).
 *
 * `slot`: a writing transaction takes the first of the clinic's `total` rows no other transaction holds
 * (FOR UPDATE SKIP LOCKED; a new slot when all are held, up to 8) and writes only that slot's rows, so
 * concurrent writers of one clinic do not queue on its counters. An uncontended clinic has slot 0 only.
 */
export const clinicRollups = pgTable(
  'clinic_rollups',
  {
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    dim: text('dim').notNull(),
    key: text('key').notNull(),
    slot: smallint('slot').notNull().default(0),
    /** Orders (any status). */
    orders: counter('orders'),
    /** Orders with paid_at (refunded ones included). */
    paidOrders: counter('paid_orders'),
    /** Σ total_cents of the paid orders. */
    grossCents: counter('gross_cents'),
    /** Orders with a succeeded refund, and Σ of those refunds. */
    refundedOrders: counter('refunded_orders'),
    refundedCents: counter('refunded_cents'),
    /** Over the orders paid and not refunded ("kept"): brand amount and the fee waterfall. */
    keptBrandCents: counter('kept_brand_cents'),
    keptPharmacyCents: counter('kept_pharmacy_cents'),
    keptDoctorCents: counter('kept_doctor_cents'),
    keptProcessorCents: counter('kept_processor_cents'),
    keptPlatformCents: counter('kept_platform_cents'),
    keptTaxCents: counter('kept_tax_cents'),
    keptShippingCents: counter('kept_shipping_cents'),
    /** Orders paid and on their way (the dashboard's inProgress statuses). */
    inProgressOrders: counter('in_progress_orders'),
    /** Orders whose latest payment attempt failed and that are not cancelled or refunded (needs-attention). */
    attentionOrders: counter('attention_orders'),
    /** Refund requests (dim refund_request only). */
    refundRequests: counter('refund_requests'),
    /** Patients (dim total, day, hour: created in the bucket). */
    patients: counter('patients'),
    /** Patients with an active enrollment (dim total only). */
    activePatients: counter('active_patients'),
    /** Titration schedules with status held (dim total only). */
    heldSchedules: counter('held_schedules'),
  },
  (t) => [primaryKey({ columns: [t.clinicId, t.dim, t.key, t.slot] })],
);

/**
 * What each order currently adds to its clinic's rollups, as last counted: the triggers subtract this
 * and add the order's new figures, so any change to an order, its refund or its payments moves the
 * counters exactly. `attention_at` (the latest failed attempt's time, when the order needs attention)
 * also serves GET /orders/needs-attention's newest-first items.
 */
export const orderRollupFacts = pgTable(
  'order_rollup_facts',
  {
    orderId: uuid('order_id').primaryKey(),
    clinicId: uuid('clinic_id').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    status: text('status').notNull(),
    programKey: text('program_key').notNull(),
    stateKey: text('state_key').notNull(),
    paid: boolean('paid').notNull(),
    totalCents: bigint('total_cents', { mode: 'number' }).notNull(),
    refunded: boolean('refunded').notNull(),
    refundedCents: bigint('refunded_cents', { mode: 'number' }).notNull(),
    brandCents: bigint('brand_cents', { mode: 'number' }).notNull(),
    pharmacyCents: bigint('pharmacy_cents', { mode: 'number' }).notNull(),
    doctorCents: bigint('doctor_cents', { mode: 'number' }).notNull(),
    processorCents: bigint('processor_cents', { mode: 'number' }).notNull(),
    platformCents: bigint('platform_cents', { mode: 'number' }).notNull(),
    taxCents: bigint('tax_cents', { mode: 'number' }).notNull(),
    shippingCents: bigint('shipping_cents', { mode: 'number' }).notNull(),
    inProgress: boolean('in_progress').notNull(),
    attentionAt: timestamptz('attention_at'),
    attentionPaymentId: uuid('attention_payment_id'),
    /** The order's patient: distinct ordering patients of a window (an index-only scan of the index below). */
    patientId: uuid('patient_id'),
    /** The statuses of the order's refund requests, one entry per request (sorted). */
    refundRequestStatuses: text('refund_request_statuses').array().notNull().default(sql`'{}'::text[]`),
  },
  (t) => [
    index('order_rollup_facts_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.patientId),
    index('order_rollup_facts_attention_idx')
      .on(t.clinicId, t.attentionAt.desc(), t.orderId.desc())
      .where(sql`${t.attentionAt} is not null`),
  ],
);

/** What each patient adds to its clinic's rollups, as last counted (created_at, an active enrollment). */
export const patientRollupFacts = pgTable('patient_rollup_facts', {
  patientId: uuid('patient_id').primaryKey(),
  clinicId: uuid('clinic_id').notNull(),
  createdAt: timestamptz('created_at').notNull(),
  active: boolean('active').notNull(),
});
