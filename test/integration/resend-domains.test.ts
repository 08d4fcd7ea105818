// The Resend domains adapter against a local stand-in of its API (test/tooling/resend-domains-stand-in.ts):
// what it sends, how records and answers map, and the email-domain operations end to end with the
// adapter chosen from the Worker env (RESEND_API_KEY).
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailDomains } from '../../drizzle/schema';
import { ResendEmailDomains, recordsFromResend } from '../../src/platform/providers/domains';
import { ProviderError } from '../../src/platform/providers/errors';
import { withEnv } from '../api/organization/organization-fixtures';
import { useTestApp } from '../helpers/app';
import { makeTenant } from '../helpers/factories';
import { type ResendDomainsStandIn, startResendDomainsStandIn } from '../tooling/resend-domains-stand-in';

const t = useTestApp();
let resend: ResendDomainsStandIn;

beforeAll(async () => {
  resend = await startResendDomainsStandIn();
});
afterAll(async () => {
  await resend?.close();
});

const adapter = (overrides: Partial<{ apiKey: string; baseUrl: string }> = {}) =>
  new ResendEmailDomains({ apiKey: resend.apiKey, baseUrl: resend.baseUrl, ...overrides });
const env = () => ({ RESEND_API_KEY: resend.apiKey, RESEND_API_BASE_URL: resend.baseUrl });
const domain = () => `mail-${crypto.randomUUID().slice(0, 8)}.brandhealth.com`;
const kindOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'ok';
  } catch (error) {
    return error instanceof ProviderError ? error.kind : `other: ${String(error)}`;
  }
};

describe('ResendEmailDomains', () => {
  it('creates with POST /domains { name } (Bearer key) and answers the records fully qualified and unquoted', async () => {
    const name = domain();
    const created = await adapter().create({ clinicId: 'c', domain: name });
    const request = resend.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', path: '/domains', body: { name } });
    expect(request.headers.authorization).toBe(`Bearer ${resend.apiKey}`);
    const remote = resend.domains.get(created.providerDomainId)!;
    expect(created.records).toEqual([
      { type: 'MX', name: `send.${name}`, value: 'feedback-smtp.us-east-1.amazonses.com', purpose: 'return_path', priority: 10 },
      { type: 'TXT', name: `send.${name}`, value: 'v=spf1 include:amazonses.com ~all', purpose: 'spf', priority: null },
      { type: 'TXT', name: `resend._domainkey.${name}`, value: `p=${remote.dkim}`, purpose: 'dkim', priority: null },
    ]);
  });

  it('maps record kinds: DKIM CNAMEs, DMARC, tracking; skips what it does not know', () => {
    expect(
      recordsFromResend(
        [
          { record: 'DKIM', name: 'abc._domainkey', type: 'CNAME', value: 'abc.dkim.amazonses.com.' },
          { record: 'DMARC', name: '_dmarc', type: 'TXT', value: 'v=DMARC1; p=none;' },
          { record: 'Tracking', name: 'links.x.com', type: 'CNAME', value: 'links1.resend-dns.com' },
          { record: 'Receiving', name: 'x.com', type: 'MX', value: 'inbound-smtp.us-east-1.amazonaws.com', priority: 10 },
          { record: 'SPF', name: 'send', type: 'A', value: '1.2.3.4' },
          'garbage',
        ],
        'x.com',
      ),
    ).toEqual([
      { type: 'CNAME', name: 'abc._domainkey.x.com', value: 'abc.dkim.amazonses.com.', purpose: 'dkim', priority: null },
      { type: 'TXT', name: '_dmarc.x.com', value: 'v=DMARC1; p=none;', purpose: 'dmarc', priority: null },
      { type: 'CNAME', name: 'links.x.com', value: 'links1.resend-dns.com', purpose: 'tracking', priority: null },
    ]);
  });

  it('verify kicks POST /domains/{id}/verify then reads the status: pending with the records, then verified; remove deletes', async () => {
    const name = domain();
    const created = await adapter().create({ clinicId: 'c', domain: name });
    const record = { providerDomainId: created.providerDomainId, domain: name, startedAt: new Date() };
    const pending = await adapter().verify(record);
    expect(resend.requests.slice(-2).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /domains/${created.providerDomainId}/verify`,
      `GET /domains/${created.providerDomainId}`,
    ]);
    expect(pending.verified).toBe(false);
    expect(pending.problems[0]).toContain('pending at Resend');
    expect(pending.problems).toContain(`SPF MX record send.${name} is pending`);
    resend.publish(name);
    expect(await adapter().verify(record)).toEqual({ verified: true, problems: [] });
    await adapter().remove(record);
    expect(resend.domains.get(created.providerDomainId)!.deleted).toBe(true);
    await adapter().remove(record);
    expect(await kindOf(adapter().verify(record))).toBe('not_found');
  });

  it('maps Resend errors: registered already, invalid name, keys, outages, no answer', async () => {
    const name = domain();
    await adapter().create({ clinicId: 'a', domain: name });
    expect(await kindOf(adapter().create({ clinicId: 'b', domain: name }))).toBe('duplicate');
    expect(await kindOf(adapter().create({ clinicId: 'b', domain: 'Not A Domain' }))).toBe('invalid');
    expect(await kindOf(adapter({ apiKey: 're_wrong' }).create({ clinicId: 'b', domain: domain() }))).toBe('refused');
    resend.failNext(500, { statusCode: 500, name: 'internal_server_error', message: 'Something went wrong' });
    expect(await kindOf(adapter().create({ clinicId: 'b', domain: domain() }))).toBe('unavailable');
    resend.failNext(429, { statusCode: 429, name: 'rate_limit_exceeded', message: 'Too many requests' });
    expect(await kindOf(adapter().create({ clinicId: 'b', domain: domain() }))).toBe('unavailable');
    expect(await kindOf(adapter({ baseUrl: 'http://127.0.0.1:9' }).create({ clinicId: 'b', domain: domain() }))).toBe('unavailable');
  });
});

describe('email-domain operations through Resend (chosen from the Worker env)', () => {
  it('start stores the records Resend gave; verify pending, then verified once published; remove deletes at Resend', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const name = domain();
    const res = await withEnv(t, '/api/v1/clinic/email-domain/start', { key, body: { domain: name, fromLocalPart: 'care' }, env: env() });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    const [row] = await t.db.select().from(emailDomains).where(eq(emailDomains.id, data.id));
    const remote = resend.domains.get(row!.providerDomainId!)!;
    expect(remote.name).toBe(name);
    expect(data.dnsRecords.map((r: { purpose: string }) => r.purpose)).toEqual(['return_path', 'spf', 'dkim']);
    expect(data.dnsRecords[2].value).toBe(`p=${remote.dkim}`);

    const pending = await withEnv(t, '/api/v1/clinic/email-domain/verify', { key, method: 'POST', env: env() });
    expect((await pending.json()).data).toMatchObject({ verified: false, domain: { status: 'pending' } });
    resend.publish(name);
    const verified = await withEnv(t, '/api/v1/clinic/email-domain/verify', { key, method: 'POST', env: env() });
    expect((await verified.json()).data).toMatchObject({ verified: true, domain: { status: 'verified' } });
    const status = await withEnv(t, '/api/v1/clinic/email-domain', { key, env: env() });
    expect((await status.json()).data.sender.fromAddress).toBe(`care@${name}`);

    expect((await withEnv(t, '/api/v1/clinic/email-domain/remove', { key, method: 'POST', env: env() })).status).toBe(200);
    expect(remote.deleted).toBe(true);
    expect((await t.db.select().from(emailDomains).where(eq(emailDomains.clinicId, clinic.id)))[0]!.status).toBe('removed');
  });

  it('a domain registered at Resend elsewhere is 409 CONFLICT; a refused key is 502; nothing is stored', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const name = domain();
    await adapter().create({ clinicId: 'elsewhere', domain: name });
    const taken = await withEnv(t, '/api/v1/clinic/email-domain/start', { key, body: { domain: name, fromLocalPart: 'care' }, env: env() });
    expect(taken.status).toBe(409);
    expect((await taken.json()).code).toBe('CONFLICT');
    const refused = await withEnv(t, '/api/v1/clinic/email-domain/start', {
      key,
      body: { domain: domain(), fromLocalPart: 'care' },
      env: { ...env(), RESEND_API_KEY: 're_not_the_key' },
    });
    expect(refused.status).toBe(502);
    expect((await refused.json()).code).toBe('DOMAIN_PROVIDER_ERROR');
    expect(await t.db.select().from(emailDomains).where(eq(emailDomains.clinicId, clinic.id))).toEqual([]);
  });
});
