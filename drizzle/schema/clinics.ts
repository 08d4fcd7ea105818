import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz, updatedAt } from './columns';

/** Commercial entitlements a plan can carry; each gates one API area. */
export const ENTITLEMENTS = ['affiliates', 'crm_connect'] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];

export const plans = pgTable(
  'plans',
  {
    id: id(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    monthlyPriceCents: integer('monthly_price_cents').notNull().default(0),
    entitlements: text('entitlements').array().$type<Entitlement[]>().notNull().default(sql`'{}'::text[]`),
    isInviteOnly: boolean('is_invite_only').notNull().default(false),
    /** Tenant products a clinic on this plan may offer at once (update-selection); null = no limit. */
    maxSelectedProducts: integer('max_selected_products'),
    /** Highest price a clinic on this plan may set for one product, in cents (billing cap); null = none. */
    maxProductPriceCents: integer('max_product_price_cents'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('plans_code_key').on(t.code)],
);

export const CLINIC_MODES = ['live', 'sandbox'] as const;
export type ClinicMode = (typeof CLINIC_MODES)[number];

export const clinics = pgTable(
  'clinics',
  {
    id: id(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    /** live: a real brand; sandbox: a demo brand whose keys are svc_test_ keys. */
    mode: text('mode').$type<ClinicMode>().notNull().default('live'),
    /** End of the 30-day sandbox window; sandbox keys answer 401 after it. */
    sandboxExpiresAt: timestamptz('sandbox_expires_at'),
    goLiveRequestedAt: timestamptz('go_live_requested_at'),
    planId: uuid('plan_id').references(() => plans.id),
    /** Clinic profile (GET/PUT /organization/clinic). */
    description: text('description'),
    logoUrl: text('logo_url'),
    primaryColor: text('primary_color'),
    contactEmail: text('contact_email'),
    contactPhone: text('contact_phone'),
    /** Why the clinic is inactive (cancelled: its plan was cancelled; its keys answer 401). */
    deactivatedReason: text('deactivated_reason'),
    deactivatedAt: timestamptz('deactivated_at'),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('clinics_slug_key').on(t.slug),
    index('clinics_plan_id_idx').on(t.planId),
    check('clinics_mode_check', sql`${t.mode} in ('live', 'sandbox')`),
  ],
);
