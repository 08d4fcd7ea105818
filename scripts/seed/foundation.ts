import { sql } from 'drizzle-orm';
import { clinics, plans, users } from '../../drizzle/schema';
import { hashPassword } from '../../src/platform/auth/password';
import type { Database } from '../../src/platform/db/client';
import { DEMO, DEMO_PASSWORD } from './ids';

const SANDBOX_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** Plans, the three demo clinics and their owners. */
export async function seedFoundation(db: Database, now: Date): Promise<void> {
  await db
    .insert(plans)
    .values([
      {
        id: DEMO.plans.growth,
        code: 'growth',
        name: 'Growth',
        monthlyPriceCents: 49_900,
        entitlements: ['affiliates', 'crm_connect'],
        maxSelectedProducts: 50,
        maxProductPriceCents: 200_000,
      },
      {
        id: DEMO.plans.basic,
        code: 'basic',
        name: 'Basic',
        monthlyPriceCents: 19_900,
        entitlements: [],
        maxSelectedProducts: 10,
        maxProductPriceCents: 100_000,
      },
      {
        id: DEMO.plans.sandbox,
        code: 'sandbox',
        name: 'Sandbox',
        monthlyPriceCents: 0,
        entitlements: [],
        isInviteOnly: true,
        maxSelectedProducts: 5,
        maxProductPriceCents: 50_000,
      },
    ])
    .onConflictDoUpdate({
      target: plans.id,
      set: {
        name: sql`excluded.name`,
        monthlyPriceCents: sql`excluded.monthly_price_cents`,
        entitlements: sql`excluded.entitlements`,
        maxSelectedProducts: sql`excluded.max_selected_products`,
        maxProductPriceCents: sql`excluded.max_product_price_cents`,
      },
    });

  // The sandbox window is reopened on every seed, so the demo sandbox keys always work.
  const sandboxExpiresAt = new Date(now.getTime() + SANDBOX_WINDOW_MS);
  await db
    .insert(clinics)
    .values([
      { id: DEMO.clinics.demo, name: 'Demo Clinic', slug: 'demo-clinic', mode: 'live', planId: DEMO.plans.growth },
      { id: DEMO.clinics.harbor, name: 'Harbor Clinic', slug: 'harbor-clinic', mode: 'live', planId: DEMO.plans.basic },
      {
        id: DEMO.clinics.sandbox,
        name: 'Sandbox Clinic',
        slug: 'sandbox-clinic',
        mode: 'sandbox',
        planId: DEMO.plans.sandbox,
        sandboxExpiresAt,
      },
    ])
    .onConflictDoUpdate({
      target: clinics.id,
      set: {
        mode: sql`excluded.mode`,
        planId: sql`excluded.plan_id`,
        sandboxExpiresAt: sql`excluded.sandbox_expires_at`,
        isActive: true,
        deactivatedReason: null,
        deactivatedAt: null,
      },
    });

  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await db
    .insert(users)
    .values([
      {
        id: DEMO.users.demoOwner,
        clinicId: DEMO.clinics.demo,
        email: 'owner@demo-clinic.test',
        firstName: 'Dana',
        lastName: 'Demo',
        role: 'owner',
        passwordHash,
      },
      {
        id: DEMO.users.harborOwner,
        clinicId: DEMO.clinics.harbor,
        email: 'owner@harbor-clinic.test',
        firstName: 'Hugo',
        lastName: 'Harbor',
        role: 'owner',
        passwordHash,
      },
      {
        id: DEMO.users.sandboxOwner,
        clinicId: DEMO.clinics.sandbox,
        email: 'owner@sandbox-clinic.test',
        firstName: 'Sam',
        lastName: 'Sandbox',
        role: 'owner',
        passwordHash,
      },
    ])
    // Demo owners keep the demo password even if it was changed locally.
    .onConflictDoUpdate({ target: users.id, set: { passwordHash: sql`excluded.password_hash`, isActive: true } });
}
