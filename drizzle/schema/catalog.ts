// Platform-wide catalogues (no clinic_id): read by every clinic, never written through the API.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns';

export const pharmacies = pgTable(
  'pharmacies',
  {
    id: id(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('pharmacies_slug_key').on(t.slug)],
);

/** The platform's SKUs. Prices are integer cents. */
export const globalProducts = pgTable(
  'global_products',
  {
    id: id(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    categories: text('categories').array().notNull().default(sql`'{}'::text[]`),
    description: text('description'),
    imageUrl: text('image_url'),
    /** What the pharmacy charges the platform for one pack. */
    pharmacyBasePriceCents: integer('pharmacy_base_price_cents').notNull(),
    /** One pack lasts this many months; displayPrice prices one pack. */
    packDurationMonths: integer('pack_duration_months').notNull().default(1),
    vialsPerPack: integer('vials_per_pack').notNull().default(1),
    supplyDays: integer('supply_days').notNull().default(30),
    requiresCooler: boolean('requires_cooler').notNull().default(false),
    allowPrepay: boolean('allow_prepay').notNull().default(false),
    isDiscontinued: boolean('is_discontinued').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('global_products_slug_key').on(t.slug),
    index('global_products_name_idx').on(t.name),
    check('global_products_price_check', sql`${t.pharmacyBasePriceCents} >= 0`),
    check('global_products_pack_check', sql`${t.packDurationMonths} > 0 and ${t.vialsPerPack} > 0 and ${t.supplyDays} > 0`),
  ],
);

export const COVERAGE_ROLES = ['primary', 'backup'] as const;
export type CoverageRole = (typeof COVERAGE_ROLES)[number];

/** Which pharmacies fill which global product. */
export const pharmacyCoverages = pgTable(
  'pharmacy_coverages',
  {
    id: id(),
    globalProductId: uuid('global_product_id')
      .notNull()
      .references(() => globalProducts.id, { onDelete: 'cascade' }),
    pharmacyId: uuid('pharmacy_id')
      .notNull()
      .references(() => pharmacies.id, { onDelete: 'cascade' }),
    role: text('role').$type<CoverageRole>().notNull().default('primary'),
    customName: text('custom_name'),
    priceCents: integer('price_cents').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('pharmacy_coverages_product_pharmacy_key').on(t.globalProductId, t.pharmacyId),
    index('pharmacy_coverages_pharmacy_id_idx').on(t.pharmacyId),
    check('pharmacy_coverages_role_check', sql`${t.role} in ('primary', 'backup')`),
    check('pharmacy_coverages_price_check', sql`${t.priceCents} >= 0`),
  ],
);

/** What a clinic's program can be derived from; `version` moves when the template changes. */
export const programTemplates = pgTable(
  'program_templates',
  {
    id: id(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description'),
    nonMedicalServiceFeeCents: integer('non_medical_service_fee_cents').notNull().default(0),
    version: integer('version').notNull().default(1),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('program_templates_slug_key').on(t.slug)],
);

export const programTemplateProducts = pgTable(
  'program_template_products',
  {
    id: id(),
    templateId: uuid('template_id')
      .notNull()
      .references(() => programTemplates.id, { onDelete: 'cascade' }),
    globalProductId: uuid('global_product_id')
      .notNull()
      .references(() => globalProducts.id, { onDelete: 'restrict' }),
    displayOrder: integer('display_order').notNull().default(0),
    isPatientVisible: boolean('is_patient_visible').notNull().default(true),
    /** The template's fee for this product; copied into program_products.program_base_fee_cents. */
    programBaseFeeCents: integer('program_base_fee_cents'),
  },
  (t) => [
    uniqueIndex('program_template_products_template_product_key').on(t.templateId, t.globalProductId),
    index('program_template_products_global_product_id_idx').on(t.globalProductId),
  ],
);

/** One step of a dose-escalation protocol. */
export interface TitrationLevel {
  level: number;
  dose: string;
  weeks: number;
}

export const titrationProtocols = pgTable(
  'titration_protocols',
  {
    id: id(),
    name: text('name').notNull(),
    description: text('description'),
    levels: jsonb('levels').$type<TitrationLevel[]>().notNull(),
    maxLevel: integer('max_level').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('titration_protocols_name_idx').on(t.name)],
);

/** The shared form-builder catalogue. */
export const formStructures = pgTable(
  'form_structures',
  {
    id: id(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    category: text('category').notNull(),
    structure: jsonb('structure').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('form_structures_slug_key').on(t.slug)],
);
