// Demo data for development, never for production. Each API area adds a seeder to this list with
// realistic rows for both live clinics; every seeder must be idempotent (fixed ids, upserts).
import type { Database } from '../../src/platform/db/client';
import { seedAffiliates } from './affiliates';
import { seedAnalytics } from './analytics';
import { seedBrandContent } from './brand-content';
import { seedCatalog } from './catalog';
import { seedContacts } from './contacts';
import { seedCoupons } from './coupons';
import { seedFoundation } from './foundation';
import { seedOrders } from './orders';
import { seedOrganization } from './organization';
import { seedOrganizationSettings } from './organization-settings';
import { seedProducts } from './products';
import { seedPrograms } from './programs';
import { seedSequences } from './sequences';
import { seedStorefrontPages } from './storefront-pages';
import { seedTeamAndSupport } from './team-support';

export type Seeder = (db: Database, now: Date) => Promise<void>;

/** In dependency order; each area adds its seeder on its own line. */
export const SEEDERS: Seeder[] = [
  seedFoundation,
  seedCatalog,
  seedProducts,
  seedPrograms, // after seedCatalog: programs, their products, tenant products, enrollments
  seedCoupons, // after seedPrograms: its alerts point at programs
  seedOrders, // after seedCoupons: orders of the enrolled patients, with their payments, ledger and refunds
  seedContacts, // after seedCatalog's patients: tags and their assignments
  seedSequences, // after seedContacts: templates, sequences, steps, enrollments
  seedAffiliates, // after seedOrders: affiliates, referred patients and orders, commissions, payouts
  seedStorefrontPages, // pages, versions, navigation, custom website
  seedBrandContent, // treatments, forms, notifications, intake requests, teleform removals
  seedAnalytics, // after seedPrograms: form sessions and likes
  seedOrganization, // organization profiles, fees, subscriptions, payout accounts, onboarding
  seedOrganizationSettings, // after seedOrganization: clinic profiles, SMS, custom and email domains
  seedTeamAndSupport, // team members, invitations, conversations, support tickets
];

export async function seedDemoData(db: Database, now = new Date()): Promise<void> {
  await db.transaction(async (tx) => {
    for (const seeder of SEEDERS) await seeder(tx as unknown as Database, now);
  });
}

export {
  AFFILIATE_BLOCKS,
  CRM_BLOCKS,
  DEMO,
  DEMO_BLOCKS,
  DEMO_LOGINS,
  DEMO_PASSWORD,
  demoId,
  LIVE_DEMO_CLINICS,
  ORDER_BLOCKS,
  ORGANIZATION_BLOCKS,
  STOREFRONT_BLOCKS,
} from './ids';
