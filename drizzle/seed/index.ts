// Demo data for development, never for production. Each API area adds a seeder to this list with
// realistic rows for both live clinics; every seeder must be idempotent (fixed ids, upserts).
import type { Database } from '../../src/platform/db/client';
import { seedCatalog } from './catalog';
import { seedCoupons } from './coupons';
import { seedOrders } from './orders';
import { seedFoundation } from './foundation';
import { seedProducts } from './products';
import { seedPrograms } from './programs';

export type Seeder = (db: Database, now: Date) => Promise<void>;

/** In dependency order; each area adds its seeder on its own line. */
export const SEEDERS: Seeder[] = [
  seedFoundation,
  seedCatalog,
  seedProducts,
  seedPrograms, // after seedCatalog: programs, their products, tenant products, enrollments
  seedCoupons, // after seedPrograms: its alerts point at programs
  seedOrders, // after seedCoupons: orders of the enrolled patients, with their payments, ledger and refunds
];

export async function seedDemoData(db: Database, now = new Date()): Promise<void> {
  await db.transaction(async (tx) => {
    for (const seeder of SEEDERS) await seeder(tx as unknown as Database, now);
  });
}

export { DEMO, DEMO_BLOCKS, DEMO_LOGINS, DEMO_PASSWORD, demoId, LIVE_DEMO_CLINICS, ORDER_BLOCKS } from './ids';
