// The Demo Clinic's affiliate program (Harbor Clinic's plan has no Affiliates entitlement, so it gets
// none): the program configuration, four affiliates (one paused), referrals of existing Demo patients
// who have paid orders (seedOrders), two tiers, tax documents in every status, and then the real
// generate (src/modules/crm/affiliate-program/payouts.ts) with fixed ids: the commissions of the referred orders
// and monthly payouts (paid, approved, pending). Re-running changes nothing: rows are upserted by
// fixed id, referrals keep their first values, and generate is idempotent per period.
import { and, eq, inArray, sql } from 'drizzle-orm';
import {
  affiliateCommissions,
  affiliatePayouts,
  affiliatePrograms,
  affiliates,
  affiliateTaxDocuments,
  affiliateTiers,
} from '../../drizzle/schema';
import { generatePayouts, lastCompletePeriod } from '../../src/modules/crm';
import type { Database } from '../../src/platform/db/client';
import { seedPatientId } from './catalog';
import { AFFILIATE_BLOCKS as A, DEMO, demoId } from './ids';
import { SEED_ORDERS_PER_CLINIC, seedOrderId } from './orders';
import { refresh } from './upsert';

const DAY = 86_400_000;
const CLINIC = DEMO.clinics.demo;

export const seedAffiliateId = (n: number) => demoId(A.affiliates, n);

interface SeedAffiliate {
  n: number;
  firstName: string;
  lastName: string;
  code: string;
  status: 'active' | 'paused';
  joinedDaysAgo: number;
  /** Overrides (x 100: basis points). */
  firstOrderRateHundredths: number | null;
  commissionRateHundredths: number | null;
  payoutContactMethod: string | null;
  payoutNotes: string | null;
  /** Demo patients (seedPatientId(0, i)) this affiliate referred; each has paid orders in seedOrders. */
  patients: number[];
}

const AFFILIATES: SeedAffiliate[] = [
  {
    n: 1,
    firstName: 'Maya',
    lastName: 'Torres',
    code: 'MAYAFIT',
    status: 'active',
    joinedDaysAgo: 130,
    firstOrderRateHundredths: null,
    commissionRateHundredths: null,
    payoutContactMethod: 'PayPal',
    payoutNotes: 'Pays to maya.torres@partners.demo-clinic.test',
    patients: [1, 7, 9, 21],
  },
  {
    n: 2,
    firstName: 'Jordan',
    lastName: 'Blake',
    code: 'JBLAKE',
    status: 'active',
    joinedDaysAgo: 125,
    firstOrderRateHundredths: null,
    commissionRateHundredths: 1_200,
    payoutContactMethod: 'Bank transfer',
    payoutNotes: 'Negotiated 12% on repeat orders',
    patients: [3, 8, 10],
  },
  {
    n: 3,
    firstName: 'Priya',
    lastName: 'Shah',
    code: 'PRIYAWELL',
    status: 'active',
    joinedDaysAgo: 100,
    firstOrderRateHundredths: 2_500,
    commissionRateHundredths: null,
    payoutContactMethod: 'Check',
    payoutNotes: null,
    patients: [25, 27],
  },
  {
    n: 4,
    firstName: 'Sam',
    lastName: 'Okafor',
    code: 'SAMO',
    status: 'paused',
    joinedDaysAgo: 90,
    firstOrderRateHundredths: null,
    commissionRateHundredths: null,
    payoutContactMethod: null,
    payoutNotes: 'Paused while his channel is on hiatus',
    patients: [36],
  },
];

export async function seedAffiliates(db: Database, now: Date): Promise<void> {
  await db
    .insert(affiliatePrograms)
    .values({
      clinicId: CLINIC,
      enabled: true,
      commissionMode: 'percentage',
      firstOrderRateHundredths: 2_000,
      defaultRateHundredths: 1_000,
      commissionDurationMonths: 12,
      cookieWindowDays: 30,
      minimumPayoutThresholdCents: 5_000,
      payoutFrequency: 'monthly',
      maxAffiliates: 50,
      createdAt: new Date(now.getTime() - 140 * DAY),
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: affiliatePrograms.clinicId,
      set: refresh([
        'enabled',
        'commissionMode',
        'firstOrderRateHundredths',
        'defaultRateHundredths',
        'commissionDurationMonths',
        'cookieWindowDays',
        'minimumPayoutThresholdCents',
        'payoutFrequency',
        'maxAffiliates',
      ]),
    });

  await db
    .insert(affiliates)
    .values(
      AFFILIATES.map((a) => ({
        id: seedAffiliateId(a.n),
        clinicId: CLINIC,
        firstName: a.firstName,
        lastName: a.lastName,
        email: `${a.firstName}.${a.lastName}@partners.demo-clinic.test`.toLowerCase(),
        referralCode: a.code,
        status: a.status,
        firstOrderRateHundredths: a.firstOrderRateHundredths,
        commissionRateHundredths: a.commissionRateHundredths,
        payoutContactMethod: a.payoutContactMethod,
        payoutNotes: a.payoutNotes,
        joinedAt: new Date(now.getTime() - a.joinedDaysAgo * DAY),
        createdAt: new Date(now.getTime() - a.joinedDaysAgo * DAY),
        updatedAt: now,
      })),
    )
    .onConflictDoUpdate({
      target: affiliates.id,
      set: refresh([
        'firstName',
        'lastName',
        'email',
        'referralCode',
        'status',
        'firstOrderRateHundredths',
        'commissionRateHundredths',
        'payoutContactMethod',
        'payoutNotes',
      ]),
    });

  // Referred when they signed up: the referral takes the patient's own created_at, so it precedes their orders.
  let k = 0;
  for (const a of AFFILIATES) {
    for (const i of a.patients) {
      k++;
      await db.execute(sql`
        insert into affiliate_referrals (id, clinic_id, affiliate_id, patient_id, referred_at, created_at)
        select ${demoId(A.referrals, k)}, p.clinic_id, ${seedAffiliateId(a.n)}, p.id, p.created_at, p.created_at
        from patients p where p.id = ${seedPatientId(0, i)} and p.clinic_id = ${CLINIC}
        on conflict do nothing`);
    }
  }

  await db
    .insert(affiliateTiers)
    .values([
      {
        id: demoId(A.tiers, 1),
        clinicId: CLINIC,
        minActiveReferrals: 3,
        percentageHundredths: 1_250,
        label: 'Silver',
        createdAt: new Date(now.getTime() - 120 * DAY),
      },
      {
        id: demoId(A.tiers, 2),
        clinicId: CLINIC,
        minActiveReferrals: 10,
        percentageHundredths: 1_500,
        label: 'Gold',
        createdAt: new Date(now.getTime() - 120 * DAY),
      },
    ])
    .onConflictDoUpdate({ target: affiliateTiers.id, set: refresh(['minActiveReferrals', 'percentageHundredths', 'label']) });

  const lastYear = now.getUTCFullYear() - 1;
  await db
    .insert(affiliateTaxDocuments)
    .values([
      {
        id: demoId(A.taxDocuments, 1),
        clinicId: CLINIC,
        affiliateId: seedAffiliateId(1),
        documentType: 'w9',
        taxYear: lastYear,
        status: 'verified',
        tinLastFour: '4821',
        submittedAt: new Date(now.getTime() - 60 * DAY),
        reviewedAt: new Date(now.getTime() - 58 * DAY),
        createdAt: new Date(now.getTime() - 60 * DAY),
      },
      {
        id: demoId(A.taxDocuments, 2),
        clinicId: CLINIC,
        affiliateId: seedAffiliateId(2),
        documentType: 'w9',
        taxYear: lastYear,
        status: 'pending',
        tinLastFour: '0937',
        submittedAt: new Date(now.getTime() - 5 * DAY),
        createdAt: new Date(now.getTime() - 5 * DAY),
      },
      {
        id: demoId(A.taxDocuments, 3),
        clinicId: CLINIC,
        affiliateId: seedAffiliateId(3),
        documentType: 'w8ben',
        taxYear: lastYear,
        status: 'pending',
        tinLastFour: null,
        submittedAt: new Date(now.getTime() - 2 * DAY),
        createdAt: new Date(now.getTime() - 2 * DAY),
      },
      {
        id: demoId(A.taxDocuments, 4),
        clinicId: CLINIC,
        affiliateId: seedAffiliateId(4),
        documentType: 'w9',
        taxYear: lastYear,
        status: 'rejected',
        tinLastFour: '1200',
        submittedAt: new Date(now.getTime() - 40 * DAY),
        reviewedAt: new Date(now.getTime() - 39 * DAY),
        rejectionReason: 'The name does not match the TIN.',
        createdAt: new Date(now.getTime() - 40 * DAY),
      },
    ])
    .onConflictDoNothing();

  // Commissions and payouts, computed by the API's own generate as if it had run mid-month for the
  // last three months: the oldest month's payouts are then paid, the next one's approved, the last
  // month's stay pending (and an affiliate under the threshold carries over).
  const orderNumber = new Map(Array.from({ length: SEED_ORDERS_PER_CLINIC }, (_, i) => [seedOrderId(0, i + 1), i + 1] as const));
  const affiliateNumber = new Map(AFFILIATES.map((a) => [seedAffiliateId(a.n), a.n] as const));
  const ids = {
    commission: (orderId: string) => (orderNumber.has(orderId) ? demoId(A.commissions, orderNumber.get(orderId)!) : undefined),
    payout: (affiliateId: string, periodStart: Date) =>
      affiliateNumber.has(affiliateId)
        ? demoId(A.payouts, affiliateNumber.get(affiliateId)! * 100_000 + Math.floor(periodStart.getTime() / DAY))
        : undefined,
  };
  const runs = [2, 1, 0].map((monthsAgo) =>
    monthsAgo === 0 ? now : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsAgo, 15, 12)),
  );
  for (const runAt of runs) await generatePayouts(db, CLINIC, runAt, ids);

  const [paidPeriod, approvedPeriod] = runs.map((runAt) => lastCompletePeriod('monthly', runAt));
  const paidAt = new Date(runs[0]!.getTime() + 5 * DAY);
  const paid = await db
    .update(affiliatePayouts)
    .set({ status: 'paid', approvedAt: new Date(runs[0]!.getTime() + 2 * DAY), paidAt, notes: 'Paid by bank transfer', updatedAt: paidAt })
    .where(
      and(
        eq(affiliatePayouts.clinicId, CLINIC),
        eq(affiliatePayouts.periodStart, paidPeriod!.start),
        eq(affiliatePayouts.status, 'pending'),
      ),
    )
    .returning({ id: affiliatePayouts.id });
  if (paid.length) {
    await db
      .update(affiliateCommissions)
      .set({ status: 'paid' })
      .where(
        and(
          inArray(
            affiliateCommissions.payoutId,
            paid.map((p) => p.id),
          ),
          eq(affiliateCommissions.status, 'included'),
        ),
      );
  }
  await db
    .update(affiliatePayouts)
    .set({ status: 'approved', approvedAt: new Date(runs[1]!.getTime() + 2 * DAY), updatedAt: new Date(runs[1]!.getTime() + 2 * DAY) })
    .where(
      and(
        eq(affiliatePayouts.clinicId, CLINIC),
        eq(affiliatePayouts.periodStart, approvedPeriod!.start),
        eq(affiliatePayouts.status, 'pending'),
      ),
    );
}
