// Email-domain authentication and the sender settings through the development implementation
// (docs/organization.md, "Email domain and sender"): status, start (DNS records), verify, remove,
// restart; PUT /clinic/email-sender.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { emailDomains, organizations } from '../../../drizzle/schema';
import { DEVELOPMENT_DNS_PROPAGATION_MS } from '../../../src/platform/providers/domains';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { withEnv } from './organization-fixtures';

const t = useTestApp();

const status = (key: string) => t.request('/api/v1/clinic/email-domain', { key });
const start = (key: string, body: unknown) => t.request('/api/v1/clinic/email-domain/start', { key, body });
const action = (key: string, name: 'verify' | 'remove') => t.request(`/api/v1/clinic/email-domain/${name}`, { key, method: 'POST' });
const sender = (key: string, body: unknown) => t.request('/api/v1/clinic/email-sender', { key, method: 'PUT', body });
const domain = () => `mail-${crypto.randomUUID().slice(0, 8)}.brandhealth.com`;

describe('GET /api/v1/clinic/email-domain', () => {
  it('answers status none and empty sender settings for a clinic without any', async () => {
    const { key } = await makeTenant(t.db);
    const res = await status(key);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      status: 'none',
      domain: null,
      sender: { senderName: null, fromLocalPart: null, fromAddress: null, replyTo: null, domain: null, domainStatus: 'none' },
    });
  });
});

describe('the email-domain state machine', () => {
  it('start answers SPF, DKIM and return-path records; verify stays pending until published; verified; remove; restart', async () => {
    const { clinic, key } = await makeTenant(t.db);
    t.clock.freezeAt(Date.now());
    const name = domain();
    const res = await start(key, { domain: name.toUpperCase(), fromLocalPart: 'Care' });
    expect(res.status).toBe(200);
    const started = (await res.json()).data;
    expect(started).toMatchObject({ domain: name, status: 'pending', verifiedAt: null, removedAt: null });
    expect(started.dnsRecords).toEqual([
      { type: 'MX', name: `send.${name}`, value: 'feedback-smtp.us-east-1.amazonses.com', purpose: 'return_path', priority: 10 },
      { type: 'TXT', name: `send.${name}`, value: 'v=spf1 include:amazonses.com ~all', purpose: 'spf', priority: null },
      {
        type: 'TXT',
        name: `resend._domainkey.${name}`,
        value: expect.stringMatching(/^p=[A-Za-z0-9+/=]{100,}$/),
        purpose: 'dkim',
        priority: null,
      },
    ]);
    const [org] = await t.db.select().from(organizations).where(eq(organizations.clinicId, clinic.id));
    expect(org!.emailSenderLocalPart).toBe('care');

    const current = (await (await status(key)).json()).data;
    expect(current).toMatchObject({ status: 'pending', domain: { id: started.id, dnsRecords: started.dnsRecords } });
    expect(current.sender).toMatchObject({ fromLocalPart: 'care', fromAddress: null, domain: name, domainStatus: 'pending' });

    const early = (await (await action(key, 'verify')).json()).data;
    expect(early).toMatchObject({ verified: false, domain: { status: 'pending' } });
    expect(early.problems.join(' ')).toContain(`send.${name}`);

    const again = await start(key, { domain: domain(), fromLocalPart: 'hello' });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('EMAIL_DOMAIN_EXISTS');

    t.clock.advance(DEVELOPMENT_DNS_PROPAGATION_MS);
    const verified = (await (await action(key, 'verify')).json()).data;
    expect(verified).toMatchObject({
      verified: true,
      problems: [],
      domain: { status: 'verified', verifiedAt: new Date(t.clock.now()).toISOString() },
    });
    expect((await (await status(key)).json()).data.sender).toMatchObject({ fromAddress: `care@${name}`, domainStatus: 'verified' });
    expect((await (await action(key, 'verify')).json()).data.verified).toBe(true);

    const removed = await action(key, 'remove');
    expect(removed.status).toBe(200);
    expect((await removed.json()).data).toMatchObject({ id: started.id, status: 'removed', removedAt: expect.any(String) });
    expect((await (await status(key)).json()).data).toMatchObject({
      status: 'none',
      domain: null,
      sender: { fromAddress: null, fromLocalPart: 'care' },
    });
    for (const name of ['verify', 'remove'] as const) {
      const res = await action(key, name);
      expect(res.status).toBe(404);
      expect((await res.json()).message).toBe('Email domain not found');
    }

    const restarted = await start(key, { domain: name, fromLocalPart: 'team' });
    expect(restarted.status).toBe(200);
    expect((await restarted.json()).data.id).not.toBe(started.id);
    const rows = await t.db.select().from(emailDomains).where(eq(emailDomains.clinicId, clinic.id));
    expect(rows.map((r) => r.status).sort()).toEqual(['pending', 'removed']);
  });

  it('refuses bad input with 400 naming the field, and unknown fields', async () => {
    const { key } = await makeTenant(t.db);
    const cases: [unknown, string][] = [
      [{ domain: 'https://mail.brandhealth.com', fromLocalPart: 'care' }, 'body.domain'],
      [{ domain: '10.0.0.1', fromLocalPart: 'care' }, 'body.domain'],
      [{ domain: 'mail.example.com', fromLocalPart: 'care' }, 'body.domain'],
      [{ domain: domain(), fromLocalPart: 'care@x' }, 'body.fromLocalPart'],
      [{ domain: domain(), fromLocalPart: '.care' }, 'body.fromLocalPart'],
      [{ domain: domain(), fromLocalPart: 'x'.repeat(65) }, 'body.fromLocalPart'],
      [{ domain: domain() }, 'body.fromLocalPart'],
      [{ domain: domain(), fromLocalPart: 'care', region: 'eu' }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await start(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message, JSON.stringify(body)).toContain(field);
    }
    const platform = await withEnv(t, '/api/v1/clinic/email-domain/start', {
      key,
      body: { domain: 'mail.brandadmin.com', fromLocalPart: 'care' },
      env: { PLATFORM_DOMAINS: 'brandadmin.com' },
    });
    expect(platform.status).toBe(400);
  });

  it('answers 409 CONFLICT for a domain another clinic holds; each clinic sees only its own', async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    const name = domain();
    expect((await start(a.key, { domain: name, fromLocalPart: 'care' })).status).toBe(200);
    const taken = await start(b.key, { domain: name, fromLocalPart: 'care' });
    expect(taken.status).toBe(409);
    expect((await taken.json()).code).toBe('CONFLICT');
    expect((await (await status(b.key)).json()).data.status).toBe('none');
    for (const name of ['verify', 'remove'] as const) expect((await action(b.key, name)).status).toBe(404);
    expect((await (await status(a.key)).json()).data.status).toBe('pending');
  });
});

describe('PUT /api/v1/clinic/email-sender', () => {
  it('sets the reply-to (and the sender name when sent), answering the sender settings', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const res = await sender(key, { replyTo: ' Support@BrandHealth.com ', senderName: 'Brand Health' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      senderName: 'Brand Health',
      fromLocalPart: null,
      fromAddress: null,
      replyTo: 'support@brandhealth.com',
      domain: null,
      domainStatus: 'none',
    });
    // Without senderName the name is kept; null reply-to clears it.
    const cleared = await sender(key, { replyTo: null });
    expect((await cleared.json()).data).toMatchObject({ senderName: 'Brand Health', replyTo: null });
    const [org] = await t.db.select().from(organizations).where(eq(organizations.clinicId, clinic.id));
    expect(org).toMatchObject({ emailReplyTo: null, emailSenderName: 'Brand Health' });
  });

  it('refuses a bad address, a missing replyTo and unknown fields; needs the write scope', async () => {
    const { clinic, key } = await makeTenant(t.db);
    for (const body of [
      { replyTo: 'not-an-email' },
      {},
      { replyTo: 'a@b.co', from: 'x' },
      { replyTo: 42 },
      { replyTo: 'a@b.co', senderName: '' },
    ]) {
      const res = await sender(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await sender(readOnly.raw, { replyTo: 'a@b.co' })).status).toBe(403);
    expect((await status(readOnly.raw)).status).toBe(200);
  });
});
