// Organization and clinic settings demo data (issue 11; docs/organization.md):
// - clinic profile fields of both live clinics (description, colors, contact, logo);
// - Demo Clinic's SMS provider account (Twilio, the auth token sealed with the development data key)
//   with an active toll-free number; Harbor Clinic has none;
// - custom domains: Demo Clinic's active, Harbor Clinic's pending verification (its records count as
//   published in development, so verify -> finalize can be tried on it);
// - email domains: Demo Clinic's verified, Harbor Clinic's pending.
// Runs after seedOrganization (which owns the organization rows, sender settings included).
// All provider ids are development ids (dev_..., and Twilio-shaped PN sids): nothing reaches a real provider.
import { and, eq, inArray, ne, notInArray, or, sql } from 'drizzle-orm';
import { clinics, customDomains, emailDomains, smsConfigs } from '../../drizzle/schema';
import { DEVELOPMENT_CNAME_TARGET, DEVELOPMENT_ROOT_SECRET_KEY } from '../../src/config';
import { encryptSmsAuthToken, toStoredDnsRecords } from '../../src/modules/organization';
import type { Database } from '../../src/platform/db/client';
import { developmentEmailRecords } from '../../src/platform/providers/domains';
import { DEMO, demoId, ORGANIZATION_BLOCKS } from './ids';

const DAY = 86_400_000;

export const SEED_CUSTOM_DOMAINS = {
  demo: { id: demoId(ORGANIZATION_BLOCKS.customDomains, 1), hostname: 'www.democlinichealth.com' },
  harbor: { id: demoId(ORGANIZATION_BLOCKS.customDomains, 2), hostname: 'shop.harborwellnesspc.com' },
} as const;

export const SEED_EMAIL_DOMAINS = {
  demo: { id: demoId(ORGANIZATION_BLOCKS.emailDomains, 1), domain: 'mail.democlinichealth.com' },
  harbor: { id: demoId(ORGANIZATION_BLOCKS.emailDomains, 2), domain: 'mail.harborwellnesspc.com' },
} as const;

/** Demo Clinic's (fictional) Twilio account and its toll-free number. */
export const SEED_SMS = {
  accountSid: `AC${'5eed'.padEnd(31, '0')}1`,
  authToken: 'demo-twilio-auth-token-0000000001',
  phoneNumber: '+18885550142',
  providerNumberId: `PN${'5eed'.padEnd(31, '0')}1`,
} as const;

/** Fixed DKIM keys, so reseeding does not change the records a developer may have copied. */
const DKIM = {
  demo: 'p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDemoClinicHealthDevelopmentOnlyKey0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000AQAB',
  harbor:
    'p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQCHarborWellnessDevelopmentOnlyKey00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000AQAB',
};

function emailRecords(domain: string, dkim: string) {
  return toStoredDnsRecords(developmentEmailRecords(domain).map((r) => (r.purpose === 'dkim' ? { ...r, value: dkim } : r)));
}

export async function seedOrganizationSettings(db: Database, now: Date): Promise<void> {
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  const live = [DEMO.clinics.demo, DEMO.clinics.harbor];

  // Clinic profiles.
  const profiles = [
    {
      id: DEMO.clinics.demo,
      description: "Online weight-loss, men's health and hair programs with licensed providers in 40 states.",
      primaryColor: '#0F766E',
      contactEmail: 'hello@demo-clinic.test',
      contactPhone: '+14155550100',
      logoUrl: 'https://assets.demo-clinic.example/brand/logo.png',
    },
    {
      id: DEMO.clinics.harbor,
      description: 'Hormone, weight and skin care from Boston, delivered nationwide.',
      primaryColor: '#1E3A8A',
      contactEmail: 'care@harbor-clinic.test',
      contactPhone: '+16175550140',
      logoUrl: null,
    },
  ];
  for (const { id, ...profile } of profiles) {
    await db
      .update(clinics)
      .set({ ...profile, updatedAt: now })
      .where(eq(clinics.id, id));
  }

  // SMS: Demo Clinic's account with an active toll-free number.
  const sealed = await encryptSmsAuthToken(SEED_SMS.authToken, DEMO.clinics.demo, DEVELOPMENT_ROOT_SECRET_KEY);
  const sms = {
    provider: 'twilio',
    accountSid: SEED_SMS.accountSid,
    encryptedAuthToken: sealed,
    phoneNumber: SEED_SMS.phoneNumber,
    providerNumberId: SEED_SMS.providerNumberId,
    status: 'active' as const,
    activatedAt: ago(30),
    releasedAt: null,
    updatedAt: now,
  };
  await db
    .insert(smsConfigs)
    .values({ clinicId: DEMO.clinics.demo, ...sms, createdAt: ago(45) })
    .onConflictDoUpdate({ target: smsConfigs.clinicId, set: sms });

  // Custom domains. Rows the API made for these clinics (or for these hostnames) are retired first,
  // so the fixed rows can be current again without meeting the partial unique indexes.
  const domainIds = [SEED_CUSTOM_DOMAINS.demo.id, SEED_CUSTOM_DOMAINS.harbor.id];
  await db
    .update(customDomains)
    .set({ status: 'removed', removedAt: now, updatedAt: now })
    .where(
      and(
        ne(customDomains.status, 'removed'),
        notInArray(customDomains.id, domainIds),
        or(
          inArray(customDomains.clinicId, live),
          inArray(customDomains.hostname, [SEED_CUSTOM_DOMAINS.demo.hostname, SEED_CUSTOM_DOMAINS.harbor.hostname]),
        ),
      ),
    );
  const domains = [
    {
      id: SEED_CUSTOM_DOMAINS.demo.id,
      clinicId: DEMO.clinics.demo,
      hostname: SEED_CUSTOM_DOMAINS.demo.hostname,
      status: 'active' as const,
      verificationToken: '3f0c6a52-7d1e-4c1b-9a55-0d3e5c1f7a01',
      cnameTarget: DEVELOPMENT_CNAME_TARGET,
      providerHostnameId: 'dev_5eed0000000000000000000000000001',
      verifiedAt: ago(59),
      activatedAt: ago(58),
      removedAt: null,
      createdAt: ago(60),
      updatedAt: now,
    },
    {
      id: SEED_CUSTOM_DOMAINS.harbor.id,
      clinicId: DEMO.clinics.harbor,
      hostname: SEED_CUSTOM_DOMAINS.harbor.hostname,
      status: 'pending_verification' as const,
      verificationToken: '8b2d4e61-1c3a-4f7e-b0d2-6a9c8e4f2b02',
      cnameTarget: DEVELOPMENT_CNAME_TARGET,
      providerHostnameId: 'dev_5eed0000000000000000000000000002',
      verifiedAt: null,
      activatedAt: null,
      removedAt: null,
      createdAt: ago(2),
      updatedAt: ago(2),
    },
  ];
  await db
    .insert(customDomains)
    .values(domains)
    .onConflictDoUpdate({
      target: customDomains.id,
      set: {
        clinicId: sql`excluded.clinic_id`,
        hostname: sql`excluded.hostname`,
        status: sql`excluded.status`,
        verificationToken: sql`excluded.verification_token`,
        cnameTarget: sql`excluded.cname_target`,
        providerHostnameId: sql`excluded.provider_hostname_id`,
        verifiedAt: sql`excluded.verified_at`,
        activatedAt: sql`excluded.activated_at`,
        removedAt: sql`excluded.removed_at`,
        createdAt: sql`excluded.created_at`,
        updatedAt: sql`excluded.updated_at`,
      },
    });

  // Email domains.
  const emailIds = [SEED_EMAIL_DOMAINS.demo.id, SEED_EMAIL_DOMAINS.harbor.id];
  await db
    .update(emailDomains)
    .set({ status: 'removed', removedAt: now, updatedAt: now })
    .where(
      and(
        ne(emailDomains.status, 'removed'),
        notInArray(emailDomains.id, emailIds),
        or(
          inArray(emailDomains.clinicId, live),
          inArray(emailDomains.domain, [SEED_EMAIL_DOMAINS.demo.domain, SEED_EMAIL_DOMAINS.harbor.domain]),
        ),
      ),
    );
  const mailDomains = [
    {
      id: SEED_EMAIL_DOMAINS.demo.id,
      clinicId: DEMO.clinics.demo,
      domain: SEED_EMAIL_DOMAINS.demo.domain,
      status: 'verified' as const,
      dnsRecords: emailRecords(SEED_EMAIL_DOMAINS.demo.domain, DKIM.demo),
      providerDomainId: 'dev_5eed00000000000000000000000000e1',
      verifiedAt: ago(50),
      removedAt: null,
      createdAt: ago(51),
      updatedAt: now,
    },
    {
      id: SEED_EMAIL_DOMAINS.harbor.id,
      clinicId: DEMO.clinics.harbor,
      domain: SEED_EMAIL_DOMAINS.harbor.domain,
      status: 'pending' as const,
      dnsRecords: emailRecords(SEED_EMAIL_DOMAINS.harbor.domain, DKIM.harbor),
      providerDomainId: 'dev_5eed00000000000000000000000000e2',
      verifiedAt: null,
      removedAt: null,
      createdAt: ago(1),
      updatedAt: ago(1),
    },
  ];
  await db
    .insert(emailDomains)
    .values(mailDomains)
    .onConflictDoUpdate({
      target: emailDomains.id,
      set: {
        clinicId: sql`excluded.clinic_id`,
        domain: sql`excluded.domain`,
        status: sql`excluded.status`,
        dnsRecords: sql`excluded.dns_records`,
        providerDomainId: sql`excluded.provider_domain_id`,
        verifiedAt: sql`excluded.verified_at`,
        removedAt: sql`excluded.removed_at`,
        createdAt: sql`excluded.created_at`,
        updatedAt: sql`excluded.updated_at`,
      },
    });
}
