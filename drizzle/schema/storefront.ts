// The clinic's storefront and brand content: page-builder pages (+ published versions), navigation,
// the custom website, legacy treatments, intake-form sessions and product likes (analytics),
// notifications, intake requests, teleform removals and form-to-product links.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { globalProducts } from './catalog';
import { clinics } from './clinics';
import { createdAt, id, timestamptz, updatedAt } from './columns';
import { patients } from './patients';
import { questionnaires, tenantProducts, uploads } from './products';
import { programs } from './programs';
import { users } from './users';

const clinicId = () =>
  uuid('clinic_id')
    .notNull()
    .references(() => clinics.id, { onDelete: 'cascade' });

export const PAGE_STATUSES = ['draft', 'published'] as const;
export type PageStatus = (typeof PAGE_STATUSES)[number];

export const pages = pgTable(
  'pages',
  {
    id: id(),
    clinicId: clinicId(),
    slug: text('slug').notNull(),
    pageType: text('page_type').notNull().default('custom'),
    isHomepage: boolean('is_homepage').notNull().default(false),
    /** draft until first published; published afterwards (a later draft edit keeps it published). */
    status: text('status').$type<PageStatus>().notNull().default('draft'),
    draftContent: jsonb('draft_content').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    publishedContent: jsonb('published_content').$type<Record<string, unknown>>(),
    seoTitle: text('seo_title'),
    seoDescription: text('seo_description'),
    seoOgImage: text('seo_og_image'),
    seoCanonical: text('seo_canonical'),
    /** The number of the newest page_versions row; 0 before the first publish. */
    publishedVersion: integer('published_version').notNull().default(0),
    publishedAt: timestamptz('published_at'),
    deletedAt: timestamptz('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // A slug is taken only by a live page; deleting a page frees it.
    uniqueIndex('pages_clinic_id_slug_key').on(t.clinicId, t.slug).where(sql`${t.deletedAt} is null`),
    uniqueIndex('pages_clinic_id_homepage_key').on(t.clinicId).where(sql`${t.isHomepage} and ${t.deletedAt} is null`),
    index('pages_clinic_id_updated_at_idx').on(t.clinicId, t.updatedAt, t.id).where(sql`${t.deletedAt} is null`),
    check('pages_status_check', sql`${t.status} in ('draft', 'published')`),
  ],
);

/** A snapshot taken by each publish. */
export const pageVersions = pgTable(
  'page_versions',
  {
    id: id(),
    clinicId: clinicId(),
    pageId: uuid('page_id')
      .notNull()
      .references(() => pages.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    content: jsonb('content').$type<Record<string, unknown>>().notNull(),
    seo: jsonb('seo').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    publishedAt: timestamptz('published_at').notNull(),
  },
  (t) => [uniqueIndex('page_versions_page_id_version_key').on(t.pageId, t.version)],
);

/** Header and footer menus, one row per clinic (GET answers empty menus when there is none). */
export const navigationMenus = pgTable('navigation_menus', {
  clinicId: uuid('clinic_id')
    .primaryKey()
    .references(() => clinics.id, { onDelete: 'cascade' }),
  headerMenu: jsonb('header_menu').$type<unknown[]>().notNull().default(sql`'[]'::jsonb`),
  footerMenu: jsonb('footer_menu').$type<unknown[]>().notNull().default(sql`'[]'::jsonb`),
  updatedAt: updatedAt(),
});

/** The clinic's hosted website settings, one row per clinic. */
export const customWebsites = pgTable('custom_websites', {
  clinicId: uuid('clinic_id')
    .primaryKey()
    .references(() => clinics.id, { onDelete: 'cascade' }),
  isActive: boolean('is_active').notNull().default(false),
  heroTitle: text('hero_title'),
  heroSubtitle: text('hero_subtitle'),
  heroPrimaryButtonText: text('hero_primary_button_text'),
  primaryColor: text('primary_color'),
  footerColor: text('footer_color'),
  footerText: text('footer_text'),
  /** Network name -> https URL. */
  socialMediaLinks: jsonb('social_media_links').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
  logoUploadId: uuid('logo_upload_id').references(() => uploads.id, { onDelete: 'set null' }),
  heroUploadId: uuid('hero_upload_id').references(() => uploads.id, { onDelete: 'set null' }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Legacy treatments: the clinic's own (Treatment in the spec). */
export const treatments = pgTable(
  'treatments',
  {
    id: id(),
    clinicId: clinicId(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description'),
    brandColor: text('brand_color'),
    logoUrl: text('logo_url'),
    /** Price of the treatment's products together, in cents; null when not priced. */
    productsPriceCents: integer('products_price_cents'),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('treatments_clinic_id_slug_key').on(t.clinicId, t.slug),
    index('treatments_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
  ],
);

/** The treatments the brand offers (selected); removing one deletes the row. */
export const brandTreatments = pgTable(
  'brand_treatments',
  {
    id: id(),
    clinicId: clinicId(),
    treatmentId: uuid('treatment_id')
      .notNull()
      .references(() => treatments.id, { onDelete: 'cascade' }),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('brand_treatments_clinic_id_treatment_id_key').on(t.clinicId, t.treatmentId)],
);

export const FORM_SESSION_STATUSES = ['started', 'completed', 'abandoned'] as const;
export type FormSessionStatus = (typeof FORM_SESSION_STATUSES)[number];

/** A patient's pass through an intake form (a questionnaire of the clinic): the funnels' raw data. */
export const formSessions = pgTable(
  'form_sessions',
  {
    id: id(),
    clinicId: clinicId(),
    questionnaireId: uuid('questionnaire_id')
      .notNull()
      .references(() => questionnaires.id, { onDelete: 'cascade' }),
    programId: uuid('program_id').references(() => programs.id, { onDelete: 'set null' }),
    patientId: uuid('patient_id').references(() => patients.id, { onDelete: 'set null' }),
    status: text('status').$type<FormSessionStatus>().notNull().default('started'),
    /** Steps reached so far (1-based) out of totalSteps. */
    lastStepReached: integer('last_step_reached').notNull().default(1),
    totalSteps: integer('total_steps').notNull(),
    startedAt: timestamptz('started_at').notNull(),
    completedAt: timestamptz('completed_at'),
    abandonedAt: timestamptz('abandoned_at'),
  },
  (t) => [
    index('form_sessions_clinic_id_questionnaire_id_started_at_idx').on(t.clinicId, t.questionnaireId, t.startedAt),
    index('form_sessions_clinic_id_program_id_started_at_idx').on(t.clinicId, t.programId, t.startedAt),
    index('form_sessions_stale_idx').on(t.startedAt).where(sql`${t.status} = 'started'`),
    check('form_sessions_status_check', sql`${t.status} in ('started', 'completed', 'abandoned')`),
    check('form_sessions_steps_check', sql`${t.lastStepReached} >= 1 and ${t.lastStepReached} <= ${t.totalSteps}`),
  ],
);

/** A patient liking one of the clinic's tenant products. */
export const productLikes = pgTable(
  'product_likes',
  {
    id: id(),
    clinicId: clinicId(),
    tenantProductId: uuid('tenant_product_id')
      .notNull()
      .references(() => tenantProducts.id, { onDelete: 'cascade' }),
    patientId: uuid('patient_id')
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('product_likes_tenant_product_id_patient_id_key').on(t.tenantProductId, t.patientId),
    index('product_likes_clinic_id_tenant_product_id_created_at_idx').on(t.clinicId, t.tenantProductId, t.createdAt),
  ],
);

/**
 * What a notification is about. The column is free text (older rows carry other names); new writers
 * use these. webhook_endpoint_disabled: the delivery engine turned an endpoint off (docs/webhooks.md).
 */
export const NOTIFICATION_TYPES = ['order', 'payout', 'refund', 'system', 'webhook_endpoint_disabled'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const notifications = pgTable(
  'notifications',
  {
    id: id(),
    clinicId: clinicId(),
    /** order, payout, refund, system, webhook_endpoint_disabled, ... (NOTIFICATION_TYPES) */
    type: text('type').$type<NotificationType | (string & {})>().notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    /** Ids the notification points at (no patient details). */
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    readAt: timestamptz('read_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('notifications_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
    index('notifications_clinic_id_unread_idx').on(t.clinicId).where(sql`${t.readAt} is null`),
  ],
);

export const INTAKE_REQUEST_STATUSES = ['pending', 'in_review', 'completed', 'declined'] as const;
export type IntakeRequestStatus = (typeof INTAKE_REQUEST_STATUSES)[number];

/** A brand asking the platform for an intake form for a treatment. */
export const intakeRequests = pgTable(
  'intake_requests',
  {
    id: id(),
    clinicId: clinicId(),
    treatmentName: text('treatment_name').notNull(),
    notes: text('notes'),
    status: text('status').$type<IntakeRequestStatus>().notNull().default('pending'),
    /** The staff user who asked; null when asked with an API key. */
    requestedByUserId: uuid('requested_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('intake_requests_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
    check('intake_requests_status_check', sql`${t.status} in ('pending', 'in_review', 'completed', 'declined')`),
  ],
);

export const TELEFORM_REMOVAL_STATUSES = ['scheduled', 'completed', 'cancelled'] as const;
export type TeleformRemovalStatus = (typeof TELEFORM_REMOVAL_STATUSES)[number];

/** A scheduled removal of one of the clinic's intake forms (questionnaires) from its storefront. */
export const teleformRemovals = pgTable(
  'teleform_removals',
  {
    id: id(),
    clinicId: clinicId(),
    questionnaireId: uuid('questionnaire_id')
      .notNull()
      .references(() => questionnaires.id, { onDelete: 'cascade' }),
    reason: text('reason'),
    status: text('status').$type<TeleformRemovalStatus>().notNull().default('scheduled'),
    scheduledFor: timestamptz('scheduled_for').notNull(),
    cancelReason: text('cancel_reason'),
    cancelledAt: timestamptz('cancelled_at'),
    completedAt: timestamptz('completed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('teleform_removals_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
    check('teleform_removals_status_check', sql`${t.status} in ('scheduled', 'completed', 'cancelled')`),
  ],
);

/** Which global product an intake form (questionnaire) is for; one product per form. */
export const formGlobalProducts = pgTable(
  'form_global_products',
  {
    id: id(),
    clinicId: clinicId(),
    questionnaireId: uuid('questionnaire_id')
      .notNull()
      .references(() => questionnaires.id, { onDelete: 'cascade' }),
    globalProductId: uuid('global_product_id')
      .notNull()
      .references(() => globalProducts.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('form_global_products_questionnaire_id_key').on(t.questionnaireId),
    index('form_global_products_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
  ],
);
