import { randomUUID } from 'node:crypto';
import {
  apiKeys,
  clinics,
  couponRedemptions,
  coupons,
  type Entitlement,
  type KeyKind,
  type KeyScope,
  plans,
  priceChangeAlerts,
  type UserRole,
  users,
} from '../../drizzle/schema';
import { generateApiKey } from '../../src/platform/auth/api-key-format';
import { hashPassword } from '../../src/platform/auth/password';
import type { Database } from '../../src/platform/db/client';

export const TEST_PASSWORD = 'correct horse battery staple';
let passwordHash: Promise<string> | undefined;
const unique = () => randomUUID().slice(0, 8);

export async function makeClinic(
  db: Database,
  options: { mode?: 'live' | 'sandbox'; entitlements?: Entitlement[]; sandboxExpiresAt?: Date | null; isActive?: boolean } = {},
) {
  const suffix = unique();
  const [plan] = await db
    .insert(plans)
    .values({ code: `plan-${suffix}`, name: `Plan ${suffix}`, entitlements: options.entitlements ?? [] })
    .returning();
  const mode = options.mode ?? 'live';
  const sandboxExpiresAt =
    options.sandboxExpiresAt !== undefined ? options.sandboxExpiresAt : mode === 'sandbox' ? new Date(Date.now() + 30 * 86_400_000) : null;
  const [clinic] = await db
    .insert(clinics)
    .values({
      name: `Clinic ${suffix}`,
      slug: `clinic-${suffix}`,
      mode,
      planId: plan!.id,
      sandboxExpiresAt,
      isActive: options.isActive ?? true,
    })
    .returning();
  return clinic!;
}

export async function makeUser(db: Database, clinicId: string, options: { role?: UserRole; isActive?: boolean } = {}) {
  passwordHash ??= hashPassword(TEST_PASSWORD);
  const [user] = await db
    .insert(users)
    .values({
      clinicId,
      email: `user-${unique()}@example.test`,
      passwordHash: await passwordHash,
      firstName: 'Test',
      lastName: 'User',
      role: options.role ?? 'owner',
      isActive: options.isActive ?? true,
    })
    .returning();
  return { ...user!, password: TEST_PASSWORD };
}

export async function makeKey(
  db: Database,
  clinicId: string,
  options: {
    kind?: KeyKind;
    scopes?: KeyScope[];
    isSandbox?: boolean;
    expiresAt?: Date | null;
    revokedAt?: Date | null;
    rateLimitPerMin?: number | null;
    name?: string;
  } = {},
) {
  const kind = options.kind ?? 'secret';
  const isSandbox = options.isSandbox ?? false;
  const generated = await generateApiKey(kind, isSandbox);
  const [row] = await db
    .insert(apiKeys)
    .values({
      clinicId,
      name: options.name ?? `key-${unique()}`,
      kind,
      keyPrefix: generated.keyPrefix,
      keyHash: generated.keyHash,
      scopes: options.scopes ?? ['read', 'write'],
      isSandbox,
      rateLimitPerMin: options.rateLimitPerMin ?? null,
      expiresAt: options.expiresAt === undefined ? new Date(Date.now() + 365 * 86_400_000) : options.expiresAt,
      revokedAt: options.revokedAt ?? null,
    })
    .returning();
  return { raw: generated.raw, row: row! };
}

/** A clinic with an owner and a read+write secret key: the usual starting point of a test. */
export async function makeTenant(db: Database, options: Parameters<typeof makeClinic>[1] = {}) {
  const clinic = await makeClinic(db, options);
  const owner = await makeUser(db, clinic.id, { role: 'owner' });
  const key = await makeKey(db, clinic.id, { isSandbox: clinic.mode === 'sandbox' });
  return { clinic, owner, key: key.raw, keyRow: key.row };
}

// --- coupons and price-change alerts (issue 6) ---

/** A coupon row as stored (discountValueHundredths: percent x 100 or cents); defaults: an active 10% coupon. */
export async function makeCoupon(db: Database, clinicId: string, values: Partial<typeof coupons.$inferInsert> = {}) {
  const [row] = await db
    .insert(coupons)
    .values({ code: `C${unique()}`, discountType: 'percent', discountValueHundredths: 1_000, ...values, clinicId })
    .returning();
  return row!;
}

/** A redemption of `couponId` (patientId optional: null means a deleted or unknown patient). */
export async function makeCouponRedemption(
  db: Database,
  clinicId: string,
  couponId: string,
  values: Partial<typeof couponRedemptions.$inferInsert> = {},
) {
  const [row] = await db
    .insert(couponRedemptions)
    .values({ orderAmountCents: 10_000, discountCents: 1_000, ...values, clinicId, couponId })
    .returning();
  return row!;
}

/** A pharmacy price-change alert; defaults: an open increase with no program or product. */
export async function makePriceChangeAlert(db: Database, clinicId: string, values: Partial<typeof priceChangeAlerts.$inferInsert> = {}) {
  const [row] = await db
    .insert(priceChangeAlerts)
    .values({ direction: 'increase', ...values, clinicId })
    .returning();
  return row!;
}
