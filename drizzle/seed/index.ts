// Demo data for development, never for production. Each API area adds a seeder to this list with
// realistic rows for both live clinics; every seeder must be idempotent (fixed ids, upserts).
import type { Database } from '../../src/platform/db/client';
import { seedFoundation } from './foundation';

export type Seeder = (db: Database, now: Date) => Promise<void>;

export const SEEDERS: Seeder[] = [seedFoundation];

export async function seedDemoData(db: Database, now = new Date()): Promise<void> {
  await db.transaction(async (tx) => {
    for (const seeder of SEEDERS) await seeder(tx as unknown as Database, now);
  });
}

export { DEMO, DEMO_LOGINS, DEMO_PASSWORD } from './ids';
