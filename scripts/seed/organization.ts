// Billing and onboarding demo data (issue 11), plus each clinic's organization profile:
// - organization profiles (legal details) and fee configurations of the three demo clinics;
// - platform subscriptions of the live clinics (Demo on Growth, Harbor on Basic), their period around now;
// - payout accounts (Demo active, Harbor pending with requirements due; the sandbox has none);
// - onboarding: Demo and Harbor completed, Sandbox Clinic mid-onboarding (business details saved,
//   identity verification pending, signer Jordan Rivera).
// Development records (acct_dev_..., sub_dev_...) go through the development billing processor, never Stripe.
import { and, eq, notInArray, sql } from 'drizzle-orm';
import { clinicFeeConfigs, onboarding, organizations, payoutAccounts, platformSubscriptions } from '../../drizzle/schema';
import type { Database } from '../../src/platform/db/client';
import { DEMO, demoId, ORGANIZATION_BLOCKS } from './ids';
import { refresh } from './upsert';

const DAY = 86_400_000;

/** Every column of `values` but the key, refreshed from the row being inserted. */

export const SEED_SUBSCRIPTION_IDS = {
  demo: demoId(ORGANIZATION_BLOCKS.subscriptions, 1),
  harbor: demoId(ORGANIZATION_BLOCKS.subscriptions, 2),
} as const;

/** Midnight UTC `days` before `now`. */
const daysAgoMidnight = (now: Date, days: number) => {
  const d = new Date(now.getTime() - days * DAY);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
};

/** One calendar month later (UTC), the day clamped to the month's length. */
const nextMonth = (date: Date) => {
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 2, 0)).getUTCDate();
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, Math.min(date.getUTCDate(), lastDay)));
};

export async function seedOrganization(db: Database, now: Date): Promise<void> {
  const ago = (days: number) => new Date(now.getTime() - days * DAY);

  const profiles = [
    {
      clinicId: DEMO.clinics.demo,
      legalName: 'Demo Clinic Health LLC',
      doingBusinessAs: 'Demo Clinic',
      ein: '84-1234567',
      businessType: 'llc' as const,
      stateOfRegistration: 'DE',
      phoneNumber: '+14155550100',
      websiteUrl: 'https://demo-clinic.test',
      supportEmail: 'support@demo-clinic.test',
      supportPhone: '+14155550101',
      addressLine1: '500 Market Street',
      addressLine2: 'Suite 300',
      city: 'San Francisco',
      state: 'CA',
      zipCode: '94105',
      timezone: 'America/Los_Angeles',
      emailSenderName: 'Demo Clinic',
      emailSenderLocalPart: 'care',
      emailReplyTo: 'support@demo-clinic.test',
    },
    {
      clinicId: DEMO.clinics.harbor,
      legalName: 'Harbor Wellness PC',
      doingBusinessAs: 'Harbor Clinic',
      ein: '04-7654321',
      businessType: 'professional_corporation' as const,
      stateOfRegistration: 'MA',
      phoneNumber: '+16175550140',
      websiteUrl: 'https://harbor-clinic.test',
      supportEmail: 'hello@harbor-clinic.test',
      supportPhone: '+16175550141',
      addressLine1: '1 Seaport Lane',
      addressLine2: null,
      city: 'Boston',
      state: 'MA',
      zipCode: '02210',
      timezone: 'America/New_York',
      emailSenderName: 'Harbor Clinic',
      emailSenderLocalPart: 'hello',
      emailReplyTo: 'hello@harbor-clinic.test',
    },
    {
      clinicId: DEMO.clinics.sandbox,
      legalName: 'Sandbox Health Inc',
      doingBusinessAs: 'Sandbox Clinic',
      ein: '27-1122334',
      businessType: 'c_corporation' as const,
      stateOfRegistration: 'TX',
      phoneNumber: '+15125550170',
      websiteUrl: null,
      supportEmail: 'owner@sandbox-clinic.test',
      supportPhone: null,
      addressLine1: '100 Congress Avenue',
      addressLine2: null,
      city: 'Austin',
      state: 'TX',
      zipCode: '78701-4042',
      timezone: 'America/Chicago',
      emailSenderName: null,
      emailSenderLocalPart: null,
      emailReplyTo: null,
    },
  ].map((p) => ({ ...p, updatedAt: now }));
  await db
    .insert(organizations)
    .values(profiles)
    .onConflictDoUpdate({
      target: organizations.clinicId,
      set: refresh(Object.keys(profiles[0]!).filter((k) => k !== 'clinicId')),
    });

  const fees = [
    {
      clinicId: DEMO.clinics.demo,
      platformFeePerMille: 25,
      doctorFeeCents: 3_000,
      processorFeePerMille: 29,
      processorFeeFixedCents: 30,
      updatedAt: now,
    },
    {
      clinicId: DEMO.clinics.harbor,
      platformFeePerMille: 30,
      doctorFeeCents: 3_500,
      processorFeePerMille: 29,
      processorFeeFixedCents: 30,
      updatedAt: now,
    },
    {
      clinicId: DEMO.clinics.sandbox,
      platformFeePerMille: 25,
      doctorFeeCents: 3_000,
      processorFeePerMille: 29,
      processorFeeFixedCents: 30,
      updatedAt: now,
    },
  ];
  await db
    .insert(clinicFeeConfigs)
    .values(fees)
    .onConflictDoUpdate({
      target: clinicFeeConfigs.clinicId,
      set: refresh(['platformFeePerMille', 'doctorFeeCents', 'processorFeePerMille', 'processorFeeFixedCents', 'updatedAt']),
    });

  // Subscriptions: Demo's period began 12 days ago, Harbor's 25 days ago; both renew monthly.
  const demoStart = daysAgoMidnight(now, 12);
  const harborStart = daysAgoMidnight(now, 25);
  const subscriptions = [
    {
      id: SEED_SUBSCRIPTION_IDS.demo,
      clinicId: DEMO.clinics.demo,
      planId: DEMO.plans.growth,
      status: 'active' as const,
      currentPeriodStart: demoStart,
      currentPeriodEnd: nextMonth(demoStart),
      needsSync: false,
      processorSubscriptionId: 'sub_dev_DemoClinicGrowthPlan0001',
      cancelledAt: null,
      createdAt: ago(116),
      updatedAt: now,
    },
    {
      id: SEED_SUBSCRIPTION_IDS.harbor,
      clinicId: DEMO.clinics.harbor,
      planId: DEMO.plans.basic,
      status: 'active' as const,
      currentPeriodStart: harborStart,
      currentPeriodEnd: nextMonth(harborStart),
      needsSync: false,
      processorSubscriptionId: 'sub_dev_HarborClinicBasicPlan001',
      cancelledAt: null,
      createdAt: ago(90),
      updatedAt: now,
    },
  ];
  // Rows the API made for the demo clinics (onboarding completed in development, say) go, so the
  // fixed ones are the clinics' only subscriptions again.
  await db.delete(platformSubscriptions).where(
    and(
      sql`${platformSubscriptions.clinicId} in (${sql.join(
        [DEMO.clinics.demo, DEMO.clinics.harbor, DEMO.clinics.sandbox].map((id) => sql`${id}`),
        sql`, `,
      )})`,
      notInArray(
        platformSubscriptions.id,
        subscriptions.map((s) => s.id),
      ),
    ),
  );
  await db
    .insert(platformSubscriptions)
    .values(subscriptions)
    .onConflictDoUpdate({
      target: platformSubscriptions.id,
      set: refresh([
        'planId',
        'status',
        'currentPeriodStart',
        'currentPeriodEnd',
        'needsSync',
        'processorSubscriptionId',
        'cancelledAt',
        'updatedAt',
      ]),
    });

  const accounts = [
    {
      clinicId: DEMO.clinics.demo,
      processorAccountId: 'acct_dev_DemoClinicPayoutAcct0001',
      status: 'active' as const,
      chargesEnabled: true,
      payoutsEnabled: true,
      detailsSubmitted: true,
      requirementsDue: [] as string[],
      statusCheckedAt: now,
      createdAt: ago(115),
      updatedAt: now,
    },
    {
      clinicId: DEMO.clinics.harbor,
      processorAccountId: 'acct_dev_HarborClinicPayoutAc0002',
      status: 'pending' as const,
      chargesEnabled: false,
      payoutsEnabled: false,
      detailsSubmitted: false,
      requirementsDue: ['external_account', 'representative.verification.document'],
      statusCheckedAt: now,
      createdAt: ago(89),
      updatedAt: now,
    },
  ];
  await db
    .insert(payoutAccounts)
    .values(accounts)
    .onConflictDoUpdate({
      target: payoutAccounts.clinicId,
      set: refresh([
        'processorAccountId',
        'status',
        'chargesEnabled',
        'payoutsEnabled',
        'detailsSubmitted',
        'requirementsDue',
        'statusCheckedAt',
        'updatedAt',
      ]),
    });
  await db.delete(payoutAccounts).where(eq(payoutAccounts.clinicId, DEMO.clinics.sandbox));

  const completed = (clinicId: string, first: string, last: string, email: string, startedDaysAgo: number) => ({
    clinicId,
    currentStep: 'completed' as const,
    signerFirstName: first,
    signerLastName: last,
    signerEmail: email,
    businessDetailsSubmittedAt: ago(startedDaysAgo),
    nameChangeRequestedAt: null,
    identityVerifiedAt: ago(startedDaysAgo - 2),
    signatureTypedName: `${first} ${last}`,
    signatureDeclaredAt: ago(startedDaysAgo - 3),
    planPaidAt: ago(startedDaysAgo - 4),
    completedAt: ago(startedDaysAgo - 4),
    createdAt: ago(startedDaysAgo + 1),
    updatedAt: now,
  });
  const rows = [
    completed(DEMO.clinics.demo, 'Dana', 'Demo', 'owner@demo-clinic.test', 120),
    completed(DEMO.clinics.harbor, 'Hugo', 'Harbor', 'owner@harbor-clinic.test', 94),
    {
      clinicId: DEMO.clinics.sandbox,
      currentStep: 'identity_verification' as const,
      signerFirstName: 'Jordan',
      signerLastName: 'Rivera',
      signerEmail: 'jordan.rivera@sandbox-clinic.test',
      businessDetailsSubmittedAt: ago(2),
      nameChangeRequestedAt: null,
      identityVerifiedAt: null,
      signatureTypedName: null,
      signatureDeclaredAt: null,
      planPaidAt: null,
      completedAt: null,
      createdAt: ago(3),
      updatedAt: now,
    },
  ];
  await db
    .insert(onboarding)
    .values(rows)
    .onConflictDoUpdate({
      target: onboarding.clinicId,
      set: refresh(Object.keys(rows[0]!).filter((k) => k !== 'clinicId' && k !== 'createdAt')),
    });
}
