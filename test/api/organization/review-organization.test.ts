// Reviewer's failing tests for defects found in the organization area (custom domain, email domain,
// SMS). Each `it` is one defect; each fails on the current code for the reason in its name.
import { and, eq, ne } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { emailDomains } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();

const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}.brandhealth.com`;

describe('review: organization area', () => {
  it('email domain: concurrent starts of the same domain by different clinics leave one current row (others 409 CONFLICT)', async () => {
    const tenants = await Promise.all(Array.from({ length: 6 }, () => makeTenant(t.db)));
    const domain = unique('mail');
    const answers = await Promise.all(
      tenants.map(({ key }) => t.request('/api/v1/clinic/email-domain/start', { key, body: { domain, fromLocalPart: 'care' } })),
    );
    const statuses = answers.map((res) => res.status);
    const rows = await t.db
      .select()
      .from(emailDomains)
      .where(and(eq(emailDomains.domain, domain), ne(emailDomains.status, 'removed')));
    expect(rows.length, `current rows for ${domain} (answers ${statuses.join(',')})`).toBe(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(tenants.length - 1);
  });

  it('custom domain: verify racing remove never answers 5xx (the provider no longer knowing a just-removed hostname is not a provider error)', async () => {
    const seen: number[] = [];
    for (let i = 0; i < 25; i++) {
      const { key } = await makeTenant(t.db);
      expect((await t.request('/api/v1/clinic/custom-domain/start', { key, body: { domain: unique(`shop${i}`) } })).status).toBe(200);
      const [removed, verified] = await Promise.all([
        t.request('/api/v1/clinic/custom-domain/remove', { key, method: 'POST' }),
        t.request('/api/v1/clinic/custom-domain/verify', { key, method: 'POST' }),
      ]);
      expect(removed.status).toBe(200);
      seen.push(verified.status);
    }
    expect(
      seen.filter((s) => s >= 500),
      `verify statuses: ${seen.join(',')}`,
    ).toEqual([]);
  });

  it('email domain: verify racing remove never answers 5xx (the provider no longer knowing a just-removed domain is not a provider error)', async () => {
    const seen: number[] = [];
    for (let i = 0; i < 25; i++) {
      const { key } = await makeTenant(t.db);
      expect(
        (await t.request('/api/v1/clinic/email-domain/start', { key, body: { domain: unique(`mail${i}`), fromLocalPart: 'care' } })).status,
      ).toBe(200);
      const [removed, verified] = await Promise.all([
        t.request('/api/v1/clinic/email-domain/remove', { key, method: 'POST' }),
        t.request('/api/v1/clinic/email-domain/verify', { key, method: 'POST' }),
      ]);
      expect(removed.status).toBe(200);
      seen.push(verified.status);
    }
    expect(
      seen.filter((s) => s >= 500),
      `verify statuses: ${seen.join(',')}`,
    ).toEqual([]);
  });

  it('SMS: of concurrent releases of one number only one answers 200; the others 409 SMS_NUMBER_NOT_ACTIVE', async () => {
    const { key } = await makeTenant(t.db);
    const body = { accountSid: `AC${'ab'.repeat(16)}`, authToken: 'token-0123456789abcdef', phoneNumber: '+14155550123' };
    expect((await t.request('/api/v1/organization/sms/twilio', { key, method: 'PUT', body })).status).toBe(200);
    expect((await t.request('/api/v1/organization/sms/activate', { key, method: 'POST' })).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.request('/api/v1/organization/sms/release', { key, method: 'DELETE' })),
    );
    const statuses = answers.map((res) => res.status);
    expect(
      statuses.filter((s) => s === 200),
      `release statuses: ${statuses.join(',')}`,
    ).toHaveLength(1);
    const codes = await Promise.all(answers.filter((res) => res.status !== 200).map(async (res) => (await res.json()).code));
    expect(new Set(codes)).toEqual(new Set(['SMS_NUMBER_NOT_ACTIVE']));
  });
});
