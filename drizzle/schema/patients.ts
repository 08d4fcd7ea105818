// A clinic's patients (its customers, and the CRM's contacts) and their enrollments on programs.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { globalProducts } from './catalog';
import { clinics } from './clinics';
import { createdAt, id, timestamptz, updatedAt } from './columns';
import { programs } from './programs';

export const patients = pgTable(
  'patients',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    /** Stored lower-cased; unique per clinic (the same person may be a patient of two clinics). */
    email: text('email').notNull(),
    phoneNumber: text('phone_number'),
    emailOptedOut: boolean('email_opted_out').notNull().default(false),
    smsOptedOut: boolean('sms_opted_out').notNull().default(false),
    optOutDate: timestamptz('opt_out_date'),
    lastLoginAt: timestamptz('last_login_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('patients_clinic_id_email_key').on(t.clinicId, t.email),
    index('patients_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    check('patients_email_lower_check', sql`${t.email} = lower(${t.email})`),
  ],
);

/** active and paused enrollments count as patients on the program (wind-down, overview). */
export const ENROLLMENT_STATUSES = ['active', 'paused', 'cancelled', 'completed'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

/** A patient on a program: what they are billed and when. */
export const enrollments = pgTable(
  'enrollments',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    patientId: uuid('patient_id')
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    programId: uuid('program_id')
      .notNull()
      .references(() => programs.id, { onDelete: 'restrict' }),
    globalProductId: uuid('global_product_id').references(() => globalProducts.id, { onDelete: 'restrict' }),
    status: text('status').$type<EnrollmentStatus>().notNull().default('active'),
    /** Charged every billingIntervalMonths months. */
    billingIntervalMonths: integer('billing_interval_months').notNull().default(1),
    /** What one charge is, and the part of it the clinic keeps after pharmacy and platform costs. */
    chargeAmountCents: integer('charge_amount_cents').notNull(),
    netAmountCents: integer('net_amount_cents').notNull(),
    nextChargeAt: timestamptz('next_charge_at'),
    startedAt: timestamptz('started_at').notNull().defaultNow(),
    endedAt: timestamptz('ended_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('enrollments_clinic_id_program_id_status_idx').on(t.clinicId, t.programId, t.status),
    index('enrollments_clinic_id_patient_id_idx').on(t.clinicId, t.patientId),
    index('enrollments_program_id_idx').on(t.programId),
    check('enrollments_status_check', sql`${t.status} in ('active', 'paused', 'cancelled', 'completed')`),
    check('enrollments_amounts_check', sql`${t.chargeAmountCents} >= 0 and ${t.billingIntervalMonths} > 0`),
  ],
);
