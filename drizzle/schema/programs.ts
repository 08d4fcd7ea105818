// A clinic's programs, their products and titration protocols. Money is integer cents.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { globalProducts, programTemplates, titrationProtocols } from './catalog';
import { clinics } from './clinics';
import { createdAt, id, timestamptz, updatedAt } from './columns';

/** draft, live and paused are counted in the overview; retired programs are no longer offered. */
export const PROGRAM_STATES = ['draft', 'live', 'paused', 'retired'] as const;
export type ProgramState = (typeof PROGRAM_STATES)[number];

export const programs = pgTable(
  'programs',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    state: text('state').$type<ProgramState>().notNull().default('draft'),
    isActive: boolean('is_active').notNull().default(false),
    isFeatured: boolean('is_featured').notNull().default(false),
    nonMedicalServiceFeeCents: integer('non_medical_service_fee_cents').notNull().default(0),
    heroImageUrl: text('hero_image_url'),
    customSlug: text('custom_slug'),
    accentColor: text('accent_color'),
    templateId: uuid('template_id').references(() => programTemplates.id, { onDelete: 'set null' }),
    /** The template version last applied (sync-status compares it with the template's). */
    templateVersion: integer('template_version'),
    retiredAt: timestamptz('retired_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('programs_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    index('programs_clinic_id_state_idx').on(t.clinicId, t.state),
    index('programs_template_id_idx').on(t.templateId),
    uniqueIndex('programs_clinic_id_custom_slug_key').on(t.clinicId, t.customSlug).where(sql`${t.customSlug} is not null`),
    check('programs_state_check', sql`${t.state} in ('draft', 'live', 'paused', 'retired')`),
    check('programs_fee_check', sql`${t.nonMedicalServiceFeeCents} >= 0`),
  ],
);

/** A program's global products, and the two fees the pricing rules read. */
export const programProducts = pgTable(
  'program_products',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    programId: uuid('program_id')
      .notNull()
      .references(() => programs.id, { onDelete: 'cascade' }),
    globalProductId: uuid('global_product_id')
      .notNull()
      .references(() => globalProducts.id, { onDelete: 'restrict' }),
    displayOrder: integer('display_order').notNull().default(0),
    isPatientVisible: boolean('is_patient_visible').notNull().default(true),
    isActive: boolean('is_active').notNull().default(true),
    /** program: added to this program; template: came from its template. */
    linkSource: text('link_source').notNull().default('program'),
    /** The program's base fee for the product (from the template or set on the program). */
    programBaseFeeCents: integer('program_base_fee_cents'),
    /** The clinic's override (PUT /programs/{id} productPricing); wins over everything else. */
    clinicFeeOverrideCents: integer('clinic_fee_override_cents'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('program_products_program_id_global_product_id_key').on(t.programId, t.globalProductId),
    index('program_products_clinic_id_program_id_idx').on(t.clinicId, t.programId, t.displayOrder),
    index('program_products_global_product_id_idx').on(t.globalProductId),
    check(
      'program_products_fees_check',
      sql`(${t.programBaseFeeCents} is null or ${t.programBaseFeeCents} >= 0) and (${t.clinicFeeOverrideCents} is null or ${t.clinicFeeOverrideCents} >= 0)`,
    ),
  ],
);

export const programTitrationProtocols = pgTable(
  'program_titration_protocols',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    programId: uuid('program_id')
      .notNull()
      .references(() => programs.id, { onDelete: 'cascade' }),
    titrationProtocolId: uuid('titration_protocol_id')
      .notNull()
      .references(() => titrationProtocols.id, { onDelete: 'restrict' }),
    flatFeeCents: integer('flat_fee_cents').notNull().default(0),
    allowedBillingMonths: integer('allowed_billing_months').array().notNull().default(sql`'{}'::integer[]`),
    position: integer('position').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    index('program_titration_protocols_clinic_id_program_id_idx').on(t.clinicId, t.programId, t.position),
    index('program_titration_protocols_protocol_id_idx').on(t.titrationProtocolId),
    check('program_titration_protocols_fee_check', sql`${t.flatFeeCents} >= 0`),
  ],
);
