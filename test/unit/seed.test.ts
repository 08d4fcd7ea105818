// The demo data loads on a fresh database and loads again over itself (npm run dev seeds on every start).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../scripts/seed';
import { createTestDatabase } from '../helpers/database';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.close());

const count = async (table: string) =>
  ((await database.db.execute(sql.raw(`select count(*)::int as n from ${table}`))) as unknown as { rows: { n: number }[] }).rows[0]!.n;

// Two full seeds (a few seconds each on a quiet machine): the suite's 20 s default is too tight when the
// machine is busy, and the seed's speed is not what this test is about.
const TWO_SEEDS_MS = 60_000;

describe('demo data', () => {
  it('seeds idempotently: a second run changes no counts', { timeout: TWO_SEEDS_MS }, async () => {
    await seedDemoData(database.db);
    const tables = [
      'clinics',
      'users',
      'pharmacies',
      'global_products',
      'pharmacy_coverages',
      'program_templates',
      'titration_protocols',
      'form_structures',
      'patients',
      'questionnaires',
      'products',
      'product_pharmacy_coverages',
      'coupons',
      'coupon_redemptions',
      'price_change_alerts',
      'programs',
      'program_products',
      'program_titration_protocols',
      'tenant_products',
      'enrollments',
      'orders',
      'order_items',
      'payments',
      'shipping_addresses',
      'shipments',
      'order_events',
      'lab_legs',
      'visits',
      'titration_schedules',
      'ledger_entries',
      'payouts',
      'refunds',
      'refund_requests',
      'disputes',
    ];
    const first = Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const)));
    await seedDemoData(database.db);
    const second = Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const)));
    expect(second).toEqual(first);
    expect(first.global_products).toBeGreaterThanOrEqual(12);
    expect(first.patients).toBeGreaterThanOrEqual(80);
  });
});
