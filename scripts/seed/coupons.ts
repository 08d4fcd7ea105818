// Per live demo clinic: coupons in every state validate-coupon tells apart (valid percent and fixed
// ones, expired, at its maximum redemptions, inactive), their redemptions by seeded patients, and
// pharmacy price-change alerts (an open increase, an open decrease, an acknowledged one).
import { and, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import { couponRedemptions, coupons, priceChangeAlerts, programs } from '../../drizzle/schema';
import type { Database } from '../../src/platform/db/client';
import { seedGlobalProductId, seedPatientId } from './catalog';
import { DEMO_BLOCKS as B, demoId, LIVE_DEMO_CLINICS } from './ids';
import { refresh } from './upsert';

const DAY = 86_400_000;

export const seedCouponId = (clinicIndex: number, n: number) => demoId(B.coupons, clinicIndex * 100 + n);
export const seedProgramId = (clinicIndex: number, i: number) => demoId(B.programs, clinicIndex * 100 + i);

interface SeedCoupon {
  n: number;
  codes: [string, string]; // Demo clinic, Harbor clinic
  description: string;
  type: 'percent' | 'fixed';
  value: number; // percent, or dollars
  startsDaysAgo: number | null;
  expiresInDays: number | null; // negative: already expired
  isActive: boolean;
  scope: 'first_charge' | 'all_charges';
  overMargin: 'reject' | 'cap';
  maxRedemptions: number | null;
  perCustomerLimit: number | null;
  minOrderCents: number | null;
  /** Redemptions: [patient i, days ago, order amount cents]. */
  redemptions: [number, number, number][];
}

const COUPONS: SeedCoupon[] = [
  {
    n: 1,
    codes: ['WELCOME10', 'HARBOR10'],
    description: 'Ten percent off the first month',
    type: 'percent',
    value: 10,
    startsDaysAgo: 90,
    expiresInDays: null,
    isActive: true,
    scope: 'first_charge',
    overMargin: 'reject',
    maxRedemptions: null,
    perCustomerLimit: 1,
    minOrderCents: null,
    redemptions: [
      [1, 70, 22_800],
      [2, 64, 22_800],
      [3, 51, 32_800],
      [4, 45, 22_800],
      [5, 33, 17_800],
      [6, 20, 22_800],
      [7, 9, 32_800],
      [8, 2, 22_800],
    ],
  },
  {
    n: 2,
    codes: ['SAVE25', 'HARBOR25OFF'],
    description: '$25 off every charge over $100',
    type: 'fixed',
    value: 25,
    startsDaysAgo: 60,
    expiresInDays: 120,
    isActive: true,
    scope: 'all_charges',
    overMargin: 'cap',
    maxRedemptions: 500,
    perCustomerLimit: 3,
    minOrderCents: 10_000,
    redemptions: [
      [9, 55, 22_800],
      [9, 25, 22_800],
      [10, 40, 32_800],
      [11, 12, 17_800],
      [12, 5, 22_800],
    ],
  },
  {
    n: 3,
    codes: ['SPRING15', 'WINTER15'],
    description: 'Seasonal offer, now over',
    type: 'percent',
    value: 15,
    startsDaysAgo: 110,
    expiresInDays: -30,
    isActive: true,
    scope: 'first_charge',
    overMargin: 'reject',
    maxRedemptions: null,
    perCustomerLimit: 1,
    minOrderCents: null,
    redemptions: [
      [13, 75, 22_800],
      [14, 62, 32_800],
      [15, 48, 22_800],
      [16, 35, 17_800],
    ],
  },
  {
    n: 4,
    codes: ['LAUNCH50', 'FIRST50'],
    description: 'Launch offer for the first three patients',
    type: 'percent',
    value: 50,
    startsDaysAgo: 80,
    expiresInDays: null,
    isActive: true,
    scope: 'first_charge',
    overMargin: 'cap',
    maxRedemptions: 3,
    perCustomerLimit: 1,
    minOrderCents: null,
    redemptions: [
      [17, 78, 22_800],
      [18, 74, 22_800],
      [19, 71, 32_800],
    ],
  },
  {
    n: 5,
    codes: ['STAFF20', 'TEAM20'],
    description: 'Staff discount (paused)',
    type: 'percent',
    value: 20,
    startsDaysAgo: null,
    expiresInDays: null,
    isActive: false,
    scope: 'all_charges',
    overMargin: 'reject',
    maxRedemptions: null,
    perCustomerLimit: null,
    minOrderCents: null,
    redemptions: [
      [20, 60, 17_800],
      [21, 30, 17_800],
    ],
  },
];

const discountCents = (c: SeedCoupon, orderCents: number) =>
  c.type === 'percent' ? Math.round((orderCents * c.value) / 100) : Math.min(orderCents, Math.round(c.value * 100));

export async function seedCoupons(db: Database, now: Date): Promise<void> {
  const at = (daysFromNow: number) => new Date(now.getTime() + daysFromNow * DAY);
  const seedIds = LIVE_DEMO_CLINICS.flatMap((_, c) => COUPONS.map((coupon) => seedCouponId(c, coupon.n)));

  // A code a developer has since given to a coupon of their own stays theirs: that demo coupon is skipped.
  const taken = await db
    .select({ clinicId: coupons.clinicId, code: sql<string>`lower(${coupons.code})` })
    .from(coupons)
    .where(and(inArray(coupons.clinicId, [...LIVE_DEMO_CLINICS]), isNull(coupons.deletedAt), notInArray(coupons.id, seedIds)));
  const isTaken = (clinicId: string, code: string) => taken.some((t) => t.clinicId === clinicId && t.code === code.toLowerCase());

  const couponRows: (typeof coupons.$inferInsert)[] = [];
  const redemptionRows: (typeof couponRedemptions.$inferInsert)[] = [];
  for (const [c, clinicId] of LIVE_DEMO_CLINICS.entries()) {
    for (const coupon of COUPONS) {
      const code = coupon.codes[c]!;
      if (isTaken(clinicId, code)) continue;
      const id = seedCouponId(c, coupon.n);
      couponRows.push({
        id,
        clinicId,
        code,
        description: coupon.description,
        discountType: coupon.type,
        discountValueHundredths: Math.round(coupon.value * 100),
        startsAt: coupon.startsDaysAgo === null ? null : at(-coupon.startsDaysAgo),
        expiresAt: coupon.expiresInDays === null ? null : at(coupon.expiresInDays),
        isActive: coupon.isActive,
        scope: coupon.scope,
        overMarginBehavior: coupon.overMargin,
        maxRedemptions: coupon.maxRedemptions,
        perCustomerLimit: coupon.perCustomerLimit,
        minOrderAmountCents: coupon.minOrderCents,
        deletedAt: null,
        createdAt: at(-(coupon.startsDaysAgo ?? 100) - 1),
        updatedAt: at(-(coupon.startsDaysAgo ?? 100) - 1),
      });
      coupon.redemptions.forEach(([patient, daysAgo, orderCents], k) => {
        redemptionRows.push({
          id: demoId(B.redemptions, c * 1000 + coupon.n * 50 + k + 1),
          clinicId,
          couponId: id,
          patientId: seedPatientId(c, patient),
          orderId: null,
          orderAmountCents: orderCents,
          discountCents: discountCents(coupon, orderCents),
          redeemedAt: at(-daysAgo),
        });
      });
    }
  }
  if (couponRows.length) {
    await db
      .insert(coupons)
      .values(couponRows)
      .onConflictDoUpdate({
        target: coupons.id,
        set: refresh([
          'code',
          'description',
          'discountType',
          'discountValueHundredths',
          'startsAt',
          'expiresAt',
          'isActive',
          'scope',
          'overMarginBehavior',
          'maxRedemptions',
          'perCustomerLimit',
          'minOrderAmountCents',
          'deletedAt',
          'createdAt',
          'updatedAt',
        ]),
      });
  }
  if (redemptionRows.length) {
    await db
      .insert(couponRedemptions)
      .values(redemptionRows)
      .onConflictDoUpdate({
        target: couponRedemptions.id,
        set: refresh(['couponId', 'patientId', 'orderAmountCents', 'discountCents', 'redeemedAt']),
      });
  }

  // Alerts point at programs 1 and 2 of each clinic (seeded by the programs area, before this seeder);
  // should one be missing the alert is kept without its program rather than failing the seed.
  const wantedPrograms = LIVE_DEMO_CLINICS.flatMap((_, c) => [seedProgramId(c, 1), seedProgramId(c, 2)]);
  const present = new Set(
    (await db.select({ id: programs.id }).from(programs).where(inArray(programs.id, wantedPrograms))).map((p) => p.id),
  );
  const program = (c: number, i: number) => (present.has(seedProgramId(c, i)) ? seedProgramId(c, i) : null);
  const alertRows: (typeof priceChangeAlerts.$inferInsert)[] = LIVE_DEMO_CLINICS.flatMap((clinicId, c) => [
    // Semaglutide's pharmacy price went up $10: the margin shrinks unless the fee follows.
    {
      id: demoId(B.priceAlerts, c * 100 + 1),
      clinicId,
      productId: null,
      programId: program(c, 1),
      globalProductId: seedGlobalProductId(1),
      direction: 'increase',
      previousPharmacyPriceCents: 12_900,
      newPharmacyPriceCents: 13_900,
      currentProgramFeeCents: 9_900,
      suggestedProgramFeeCents: 10_900,
      perUnitMarginDeltaCents: -1_000,
      status: 'open',
      acknowledgedAt: null,
      createdAt: at(-3),
    },
    // Tirzepatide got $15 cheaper: the margin grows with the fee unchanged.
    {
      id: demoId(B.priceAlerts, c * 100 + 2),
      clinicId,
      productId: null,
      programId: program(c, 2),
      globalProductId: seedGlobalProductId(2),
      direction: 'decrease',
      previousPharmacyPriceCents: 21_400,
      newPharmacyPriceCents: 19_900,
      currentProgramFeeCents: 12_900,
      suggestedProgramFeeCents: 12_900,
      perUnitMarginDeltaCents: 1_500,
      status: 'open',
      acknowledgedAt: null,
      createdAt: at(-6),
    },
    // An earlier increase the clinic has already seen.
    {
      id: demoId(B.priceAlerts, c * 100 + 3),
      clinicId,
      productId: null,
      programId: program(c, 1),
      globalProductId: seedGlobalProductId(1),
      direction: 'increase',
      previousPharmacyPriceCents: 12_400,
      newPharmacyPriceCents: 12_900,
      currentProgramFeeCents: 9_900,
      suggestedProgramFeeCents: 10_400,
      perUnitMarginDeltaCents: -500,
      status: 'acknowledged',
      acknowledgedAt: at(-20),
      createdAt: at(-28),
    },
  ]);
  await db
    .insert(priceChangeAlerts)
    .values(alertRows)
    .onConflictDoUpdate({
      target: priceChangeAlerts.id,
      set: refresh([
        'productId',
        'programId',
        'globalProductId',
        'direction',
        'previousPharmacyPriceCents',
        'newPharmacyPriceCents',
        'currentProgramFeeCents',
        'suggestedProgramFeeCents',
        'perUnitMarginDeltaCents',
        'status',
        'acknowledgedAt',
        'createdAt',
      ]),
    });
}
