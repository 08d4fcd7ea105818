// The organization-settings demo data (scripts/seed/organization-settings.ts): idempotent, and what it
// shows through the API. Until the lead adds seedOrganizationSettings to SEEDERS it is run here after
// seedDemoData; once added, running it again is exactly the idempotence this checks.
import { inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { customDomains, emailDomains, smsConfigs } from '../../../drizzle/schema';
import { seedDemoData } from '../../../scripts/seed';
import { DEMO } from '../../../scripts/seed/ids';
import { SEED_CUSTOM_DOMAINS, SEED_EMAIL_DOMAINS, SEED_SMS, seedOrganizationSettings } from '../../../scripts/seed/organization-settings';
import { useTestApp } from '../../helpers/app';
import { makeKey } from '../../helpers/factories';

const t = useTestApp();
const keys = { demo: '', harbor: '' };
const LIVE = [DEMO.clinics.demo, DEMO.clinics.harbor];

beforeAll(async () => {
  await seedDemoData(t.db);
  await seedOrganizationSettings(t.db, new Date());
  keys.demo = (await makeKey(t.db, DEMO.clinics.demo)).raw;
  keys.harbor = (await makeKey(t.db, DEMO.clinics.harbor)).raw;
});

const data = async (key: string, path: string, init: { method?: string } = {}) =>
  (await (await t.request(path, { key, ...init })).json()).data;

describe('organization settings demo data', () => {
  it('seeds again over itself without new rows', async () => {
    const counts = () =>
      Promise.all(
        [smsConfigs, customDomains, emailDomains].map((table) =>
          t.db
            .select({ n: sql<number>`count(*)::int` })
            .from(table)
            .where(inArray(table.clinicId, LIVE))
            .then((r) => r[0]!.n),
        ),
      );
    const first = await counts();
    await seedOrganizationSettings(t.db, new Date());
    await seedDemoData(t.db);
    await seedOrganizationSettings(t.db, new Date());
    expect(await counts()).toEqual(first);
    expect(first).toEqual([1, 2, 2]);
  });

  it('Demo Clinic: profile fields, an active SMS number (token never shown), an active custom domain, a verified email domain', async () => {
    const clinic = await data(keys.demo, '/api/v1/clinic');
    expect(clinic).toMatchObject({
      slug: 'demo-clinic',
      primaryColor: '#0F766E',
      contactEmail: 'hello@demo-clinic.test',
      customDomain: SEED_CUSTOM_DOMAINS.demo.hostname,
      logoUrl: expect.any(String),
    });
    const res = await t.request('/api/v1/organization/sms/twilio', { key: keys.demo });
    const text = await res.text();
    expect(text).not.toContain(SEED_SMS.authToken);
    expect(JSON.parse(text).data).toMatchObject({
      configured: true,
      accountSid: SEED_SMS.accountSid,
      status: 'active',
      phoneNumber: SEED_SMS.phoneNumber,
    });
    expect(await data(keys.demo, '/api/v1/organization/sms/status')).toMatchObject({
      status: 'active',
      tollFreeNumber: SEED_SMS.phoneNumber,
    });
    const email = await data(keys.demo, '/api/v1/clinic/email-domain');
    expect(email).toMatchObject({
      status: 'verified',
      domain: { domain: SEED_EMAIL_DOMAINS.demo.domain },
      sender: { fromAddress: `care@${SEED_EMAIL_DOMAINS.demo.domain}` },
    });
    const org = await data(keys.demo, '/api/v1/organization');
    expect(org).toMatchObject({
      legalName: 'Demo Clinic Health LLC',
      customDomain: { status: 'active' },
      notifications: { sms: { enabled: true }, email: { domainStatus: 'verified' } },
    });
    expect(await data(keys.demo, '/api/v1/config/fees')).toMatchObject({
      source: 'clinic',
      merchant: { perMille: 25 },
      doctor: { feeCents: 3_000 },
    });
  });

  it('Harbor Clinic: no SMS account, a pending custom domain that verifies and finalizes, a pending email domain', async () => {
    expect(await data(keys.harbor, '/api/v1/organization/sms/twilio')).toMatchObject({ configured: false });
    expect(await data(keys.harbor, '/api/v1/clinic/email-domain')).toMatchObject({
      status: 'pending',
      domain: { domain: SEED_EMAIL_DOMAINS.harbor.domain },
    });
    const org = await data(keys.harbor, '/api/v1/organization');
    expect(org.customDomain).toMatchObject({ hostname: SEED_CUSTOM_DOMAINS.harbor.hostname, status: 'pending_verification' });
    expect(await data(keys.harbor, '/api/v1/clinic/custom-domain/verify', { method: 'POST' })).toMatchObject({ verified: true });
    expect(await data(keys.harbor, '/api/v1/clinic/custom-domain/finalize', { method: 'POST' })).toMatchObject({ status: 'active' });
    // Seeding puts the demo state back.
    await seedOrganizationSettings(t.db, new Date());
    expect((await data(keys.harbor, '/api/v1/organization')).customDomain.status).toBe('pending_verification');
  });

  it('a domain the API made for a demo clinic is retired by the next seed, so the fixed rows are current again', async () => {
    await data(keys.harbor, '/api/v1/clinic/custom-domain/remove', { method: 'POST' });
    const made = await t.request('/api/v1/clinic/custom-domain/start', { key: keys.harbor, body: { domain: 'new.harborwellnesspc.com' } });
    expect(made.status).toBe(200);
    await seedOrganizationSettings(t.db, new Date());
    expect((await data(keys.harbor, '/api/v1/organization')).customDomain.hostname).toBe(SEED_CUSTOM_DOMAINS.harbor.hostname);
  });
});
