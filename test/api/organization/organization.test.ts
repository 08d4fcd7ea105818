// The organization profile and notification settings, and the fee configuration (docs/organization.md).
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { clinicFeeConfigs, customDomains, organizations } from '../../../drizzle/schema';
import { DEFAULT_DOCTOR_FEE_CENTS } from '../../../src/modules/orders/orders/lifecycle/fees';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();

const get = (key: string) => t.request('/api/v1/organization', { key });
const update = (key: string, body: unknown) => t.request('/api/v1/organization/update', { key, method: 'PUT', body });
const hostname = () => `shop-${crypto.randomUUID().slice(0, 8)}.brandhealth.com`;

/** Statements sent for one request (the request log, written after it, not counted). */
const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

describe('GET /api/v1/organization', () => {
  it('answers defaults for a clinic that never saved a profile', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const res = await get(key);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      clinicId: clinic.id,
      legalName: null,
      doingBusinessAs: null,
      ein: null,
      businessType: null,
      stateOfRegistration: null,
      phoneNumber: null,
      websiteUrl: null,
      supportEmail: null,
      supportPhone: null,
      address: { line1: null, line2: null, city: null, state: null, zipCode: null },
      timezone: 'America/New_York',
      customDomain: null,
      notifications: {
        email: { senderName: clinic.name, fromAddress: null, replyTo: null, domain: null, domainStatus: 'none' },
        sms: { enabled: false, provider: null, status: 'not_configured', fromNumber: null },
      },
      updatedAt: null,
    });
  });

  it('is one query after the key lookup, with the SMS number, the custom domain and the verified sender', async () => {
    const { key } = await makeTenant(t.db);
    t.clock.freezeAt(Date.now());
    await t.request('/api/v1/organization/sms/twilio', {
      key,
      method: 'PUT',
      body: { accountSid: `AC${'ab'.repeat(16)}`, authToken: 'token-0123456789abcdef', phoneNumber: '+14155550123' },
    });
    const { data: sms } = await (await t.request('/api/v1/organization/sms/activate', { key, method: 'POST' })).json();
    const host = hostname();
    await t.request('/api/v1/clinic/custom-domain/start', { key, body: { domain: host } });
    await t.request('/api/v1/clinic/email-domain/start', { key, body: { domain: `mail.${host}`, fromLocalPart: 'care' } });
    await t.request('/api/v1/clinic/email-sender', {
      key,
      method: 'PUT',
      body: { replyTo: 'help@brandhealth.com', senderName: 'Brand Health' },
    });
    t.clock.advance(61_000);
    await t.request('/api/v1/clinic/email-domain/verify', { key, method: 'POST' });

    const { status, count } = await statements(() => get(key));
    expect(status).toBe(200);
    // The key lookup, then one query.
    expect(count).toBe(2);
    const { data } = await (await get(key)).json();
    expect(data.customDomain).toMatchObject({ hostname: host, status: 'pending_verification' });
    expect(data.customDomain.dnsRecords).toHaveLength(2);
    expect(data.notifications).toEqual({
      email: {
        senderName: 'Brand Health',
        fromAddress: `care@mail.${host}`,
        replyTo: 'help@brandhealth.com',
        domain: `mail.${host}`,
        domainStatus: 'verified',
      },
      sms: { enabled: true, provider: 'twilio', status: 'active', fromNumber: sms.tollFreeNumber },
    });
  });
});

describe('reads of the area', () => {
  it('each makes one query after the key lookup', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await t.request('/api/v1/organization/sms/twilio', {
      key,
      method: 'PUT',
      body: { accountSid: `AC${'cd'.repeat(16)}`, authToken: 'token-0123456789abcdef', phoneNumber: '+14155550123' },
    });
    await t.request('/api/v1/clinic/custom-domain/start', { key, body: { domain: hostname() } });
    await t.request('/api/v1/clinic/email-domain/start', { key, body: { domain: hostname(), fromLocalPart: 'care' } });
    for (const path of [
      '/api/v1/organization',
      '/api/v1/clinic',
      `/api/v1/clinic/check-slug/${clinic.slug}`,
      '/api/v1/config/fees',
      '/api/v1/clinic/email-domain',
      '/api/v1/organization/sms/twilio',
      '/api/v1/organization/sms/status',
    ]) {
      const { status, count } = await statements(() => t.request(path, { key }));
      expect(status, path).toBe(200);
      expect(count, path).toBe(2);
    }
  });
});

describe('PUT /api/v1/organization/update', () => {
  it('saves the fields sent (creating the row), normalizing them, and answers the settings', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const res = await update(key, {
      legalName: 'Brand Health LLC',
      doingBusinessAs: 'Brand Health',
      websiteUrl: 'https://brandhealth.com',
      supportEmail: 'Support@BrandHealth.com',
      supportPhone: '415-555-0123',
      addressLine1: '1 Main St',
      addressLine2: null,
      city: 'Austin',
      state: 'tx',
      zipCode: '78701-1234',
      timezone: 'America/Chicago',
    });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      legalName: 'Brand Health LLC',
      doingBusinessAs: 'Brand Health',
      websiteUrl: 'https://brandhealth.com',
      supportEmail: 'support@brandhealth.com',
      supportPhone: '+14155550123',
      address: { line1: '1 Main St', line2: null, city: 'Austin', state: 'TX', zipCode: '78701-1234' },
      timezone: 'America/Chicago',
      updatedAt: expect.any(String),
      customDomain: null,
    });
    const second = await update(key, { doingBusinessAs: null, timezone: 'UTC' });
    expect((await second.json()).data).toMatchObject({ legalName: 'Brand Health LLC', doingBusinessAs: null, timezone: 'UTC' });
    const [row] = await t.db.select().from(organizations).where(eq(organizations.clinicId, clinic.id));
    expect(row).toMatchObject({ legalName: 'Brand Health LLC', doingBusinessAs: null, state: 'TX', timezone: 'UTC' });
  });

  it('refuses bad values, unknown fields (onboarding fields included) and an empty body with 400', async () => {
    const { key } = await makeTenant(t.db);
    const cases: [unknown, string][] = [
      [{ timezone: 'Mars/Olympus_Mons' }, 'body.timezone'],
      [{ timezone: 'EST5EDT; drop' }, 'body.timezone'],
      [{ timezone: null }, 'body.timezone'],
      [{ state: 'ZZ' }, 'body.state'],
      [{ zipCode: '1234' }, 'body.zipCode'],
      [{ supportEmail: 'nope' }, 'body.supportEmail'],
      [{ supportPhone: '12' }, 'body.supportPhone'],
      [{ websiteUrl: 'javascript:alert(1)' }, 'body.websiteUrl'],
      [{ websiteUrl: 'ftp://brandhealth.com' }, 'body.websiteUrl'],
      [{ legalName: '' }, 'body.legalName'],
      [{ customDomain: 'https://shop.brandhealth.com' }, 'body.customDomain'],
      [{ customDomain: null }, 'body.customDomain'],
      [{ ein: '12-3456789' }, 'body'],
      [{ emailReplyTo: 'a@b.co' }, 'body'],
      [{}, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await update(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message, JSON.stringify(body)).toContain(field);
    }
  });

  it('a customDomain change starts the custom-domain flow with the profile; the same hostname is a no-op; another one is 409', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const host = hostname();
    const res = await update(key, { legalName: 'Brand Health LLC', customDomain: host });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.legalName).toBe('Brand Health LLC');
    expect(data.customDomain).toMatchObject({ hostname: host, status: 'pending_verification' });
    expect(data.customDomain.dnsRecords.map((r: { type: string }) => r.type)).toEqual(['CNAME', 'TXT']);

    const same = await update(key, { customDomain: host.toUpperCase(), city: 'Boston' });
    expect(same.status).toBe(200);
    expect((await same.json()).data).toMatchObject({ address: { city: 'Boston' }, customDomain: { id: data.customDomain.id } });

    const other = await update(key, { customDomain: hostname(), city: 'Denver' });
    expect(other.status).toBe(409);
    expect((await other.json()).code).toBe('CUSTOM_DOMAIN_EXISTS');
    const [row] = await t.db.select().from(organizations).where(eq(organizations.clinicId, clinic.id));
    expect(row!.city).toBe('Boston');
    expect(await t.db.select().from(customDomains).where(eq(customDomains.clinicId, clinic.id))).toHaveLength(1);
  });

  it('a refused customDomain (taken by another clinic) saves nothing', async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    const host = hostname();
    await t.request('/api/v1/clinic/custom-domain/start', { key: a.key, body: { domain: host } });
    const res = await update(b.key, { legalName: 'Should Not Save', customDomain: host });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('CONFLICT');
    expect(await t.db.select().from(organizations).where(eq(organizations.clinicId, b.clinic.id))).toEqual([]);
  });

  it("changes the key's clinic only; needs the write scope", async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    await update(a.key, { legalName: 'A Health' });
    expect((await (await get(b.key)).json()).data.legalName).toBeNull();
    const readOnly = await makeKey(t.db, a.clinic.id, { scopes: ['read'] });
    expect((await update(readOnly.raw, { legalName: 'X' })).status).toBe(403);
    expect((await get(readOnly.raw)).status).toBe(200);
  });
});

describe('GET /api/v1/config/fees', () => {
  it('answers the platform defaults without a fee configuration', async () => {
    const { key } = await makeTenant(t.db);
    const res = await t.request('/api/v1/config/fees', { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      source: 'default',
      pharmacy: { basis: 'per_product', description: expect.stringContaining('pharmacyPrice') },
      doctor: { basis: 'per_order', feeCents: DEFAULT_DOCTOR_FEE_CENTS },
      processor: { basis: 'per_charge', percent: 2.9, perMille: 29, fixedCents: 30 },
      merchant: { basis: 'per_charge', percent: 0, perMille: 0 },
      updatedAt: null,
    });
  });

  it("answers the clinic's own configuration", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const at = new Date('2030-01-02T03:04:05.000Z');
    await t.db.insert(clinicFeeConfigs).values({
      clinicId: clinic.id,
      platformFeePerMille: 25,
      doctorFeeCents: 3_000,
      processorFeePerMille: 30,
      processorFeeFixedCents: 25,
      updatedAt: at,
    });
    const { data } = await (await t.request('/api/v1/config/fees', { key })).json();
    expect(data).toMatchObject({
      source: 'clinic',
      doctor: { feeCents: 3_000 },
      processor: { percent: 3, perMille: 30, fixedCents: 25 },
      merchant: { percent: 2.5, perMille: 25 },
      updatedAt: at.toISOString(),
    });
    expect((await (await t.request('/api/v1/config/fees', { key: other.key })).json()).data.source).toBe('default');
  });
});
