// A clinic's own products, its offerings of the platform's global products, and the rows behind
// uploads and the payment processor's prices. Money is integer cents.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { formStructures, globalProducts, pharmacies } from './catalog';
import { clinics } from './clinics';
import { createdAt, id, timestamptz, updatedAt } from './columns';

const clinicId = () =>
  uuid('clinic_id')
    .notNull()
    .references(() => clinics.id, { onDelete: 'cascade' });

/** Products a clinic made itself (beside the global products every clinic sees). */
export const products = pgTable(
  'products',
  {
    id: id(),
    clinicId: clinicId(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description'),
    category: text('category'),
    categories: text('categories').array().notNull().default(sql`'{}'::text[]`),
    isActive: boolean('is_active').notNull().default(true),
    pharmacyProvider: text('pharmacy_provider'),
    pharmacyPriceCents: integer('pharmacy_price_cents').notNull().default(0),
    pharmacyProductId: text('pharmacy_product_id'),
    brandName: text('brand_name'),
    imageUrl: text('image_url'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('products_clinic_id_slug_key').on(t.clinicId, t.slug),
    index('products_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    check('products_pharmacy_price_check', sql`${t.pharmacyPriceCents} >= 0`),
  ],
);

/** Pharmacies filling a clinic's own product (global products use pharmacy_coverages). */
export const productPharmacyCoverages = pgTable(
  'product_pharmacy_coverages',
  {
    id: id(),
    clinicId: clinicId(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    pharmacyId: uuid('pharmacy_id')
      .notNull()
      .references(() => pharmacies.id, { onDelete: 'restrict' }),
    role: text('role').notNull().default('primary'),
    customName: text('custom_name'),
    priceCents: integer('price_cents').notNull(),
  },
  (t) => [
    uniqueIndex('product_pharmacy_coverages_product_pharmacy_key').on(t.productId, t.pharmacyId),
    index('product_pharmacy_coverages_clinic_id_idx').on(t.clinicId),
  ],
);

/** A clinic's offering of a global product: its facilitation fee, price and processor price. */
export const tenantProducts = pgTable(
  'tenant_products',
  {
    id: id(),
    clinicId: clinicId(),
    globalProductId: uuid('global_product_id')
      .notNull()
      .references(() => globalProducts.id, { onDelete: 'restrict' }),
    facilitationFeeCents: integer('facilitation_fee_cents').notNull().default(0),
    /** The price the clinic set (POST /tenant-products/update); null until set. */
    priceCents: integer('price_cents'),
    /** The payment processor's price id for priceCents. */
    processorPriceId: text('processor_price_id'),
    /** The tenant placeholder fee: last in the fee resolution (clinic override -> program base fee -> this). */
    placeholderFeeCents: integer('placeholder_fee_cents'),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('tenant_products_clinic_id_global_product_id_key').on(t.clinicId, t.globalProductId),
    index('tenant_products_global_product_id_idx').on(t.globalProductId),
    check(
      'tenant_products_money_check',
      sql`${t.facilitationFeeCents} >= 0 and (${t.priceCents} is null or ${t.priceCents} >= 0) and (${t.placeholderFeeCents} is null or ${t.placeholderFeeCents} >= 0)`,
    ),
  ],
);

/** A clinic's intake questionnaires (the forms area grows them); tenant-product selections point here. */
export const questionnaires = pgTable(
  'questionnaires',
  {
    id: id(),
    clinicId: clinicId(),
    name: text('name').notNull(),
    formStructureId: uuid('form_structure_id').references(() => formStructures.id, { onDelete: 'set null' }),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [index('questionnaires_clinic_id_created_at_idx').on(t.clinicId, t.createdAt)],
);

/** Which tenant products a questionnaire offers (POST /tenant-products/update-selection). */
export const tenantProductSelections = pgTable(
  'tenant_product_selections',
  {
    id: id(),
    clinicId: clinicId(),
    tenantProductId: uuid('tenant_product_id')
      .notNull()
      .references(() => tenantProducts.id, { onDelete: 'cascade' }),
    questionnaireId: uuid('questionnaire_id')
      .notNull()
      .references(() => questionnaires.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('tenant_product_selections_product_questionnaire_key').on(t.tenantProductId, t.questionnaireId),
    index('tenant_product_selections_clinic_id_idx').on(t.clinicId),
    index('tenant_product_selections_questionnaire_id_idx').on(t.questionnaireId),
  ],
);

/** A brand-scoped image for a global product (the shared product itself never changes). */
export const globalProductImageOverrides = pgTable(
  'global_product_image_overrides',
  {
    id: id(),
    clinicId: clinicId(),
    globalProductId: uuid('global_product_id')
      .notNull()
      .references(() => globalProducts.id, { onDelete: 'cascade' }),
    imageUrl: text('image_url').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('global_product_image_overrides_clinic_product_key').on(t.clinicId, t.globalProductId)],
);

/** Prices created through the development payment processor (production: the processor keeps them). */
export const processorPrices = pgTable(
  'processor_prices',
  {
    id: id(),
    clinicId: clinicId(),
    processorPriceId: text('processor_price_id').notNull(),
    /** What the price is for, e.g. tenant_product:<uuid>. */
    reference: text('reference').notNull(),
    unitAmountCents: integer('unit_amount_cents').notNull(),
    currency: text('currency').notNull().default('usd'),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('processor_prices_processor_price_id_key').on(t.processorPriceId),
    index('processor_prices_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
  ],
);

/** Stored files (bytes in the R2 bucket under objectKey). */
export const uploads = pgTable(
  'uploads',
  {
    id: id(),
    clinicId: clinicId(),
    objectKey: text('object_key').notNull(),
    contentType: text('content_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    /** What it is for, e.g. program_image, product_image, global_product_image. */
    purpose: text('purpose').notNull(),
    createdAt: createdAt(),
    deletedAt: timestamptz('deleted_at'),
  },
  (t) => [uniqueIndex('uploads_object_key_key').on(t.objectKey), index('uploads_clinic_id_created_at_idx').on(t.clinicId, t.createdAt)],
);
