// The custom-domain state machine through the development implementation (docs/organization.md,
// "Custom domain"): start -> verify (DNS counts as published 60 s after start) -> finalize, remove,
// restart after remove; hostname rules; one current domain per clinic and per hostname.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { customDomains } from '../../../drizzle/schema';
import { DEVELOPMENT_CNAME_TARGET } from '../../../src/config';
import { DEVELOPMENT_DNS_PROPAGATION_MS } from '../../../src/platform/providers/domains';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { withEnv } from './organization-fixtures';

const t = useTestApp();

const start = (key: string, body: unknown) => t.request('/api/v1/clinic/custom-domain/start', { key, body });
const action = (key: string, name: 'verify' | 'finalize' | 'remove') =>
  t.request(`/api/v1/clinic/custom-domain/${name}`, { key, method: 'POST' });
let n = 0;
const hostname = () => `shop${++n}-${crypto.randomUUID().slice(0, 8)}.brandhealth.com`;
const afterPropagation = () => t.clock.advance(DEVELOPMENT_DNS_PROPAGATION_MS + 1_000);

describe('POST /api/v1/clinic/custom-domain/start', () => {
  it('registers the hostname (pending_verification) and answers the CNAME and TXT records to publish', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const host = hostname();
    const res = await start(key, { domain: `  ${host.toUpperCase()}. ` });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ hostname: host, status: 'pending_verification', verifiedAt: null, activatedAt: null, removedAt: null });
    expect(data.dnsRecords).toEqual([
      { type: 'CNAME', name: host, value: DEVELOPMENT_CNAME_TARGET, purpose: 'routing', priority: null },
      {
        type: 'TXT',
        name: `_cf-custom-hostname.${host}`,
        value: expect.stringMatching(/^[0-9a-f-]{36}$/),
        purpose: 'ownership_verification',
        priority: null,
      },
    ]);
    const [row] = await t.db.select().from(customDomains).where(eq(customDomains.id, data.id));
    expect(row).toMatchObject({
      clinicId: clinic.id,
      hostname: host,
      status: 'pending_verification',
      providerHostnameId: expect.stringMatching(/^dev_[0-9a-f]{32}$/),
    });
    expect(row!.verificationToken).toBe(data.dnsRecords[1].value);
  });

  it('refuses names that are not a bare public hostname with 400 naming body.domain', async () => {
    const { key } = await makeTenant(t.db);
    const bad = [
      'https://shop.brandhealth.com',
      'shop.brandhealth.com/path',
      'shop.brandhealth.com:8443',
      'localhost',
      'brandhealth',
      '192.168.1.10',
      '*.brandhealth.com',
      'shop..brandhealth.com',
      '-shop.brandhealth.com',
      'shop.brandhealth.test',
      'shop.example.com',
      'www.example.org',
      'shop.example',
      'app.invalid',
      'café.brandhealth.com',
      'shop.brandhealth.123',
      `${'a'.repeat(64)}.com`,
      `${'a.'.repeat(127)}com`,
      '',
      'shop brand.com',
      'shop\u0000.brandhealth.com',
    ];
    for (const domain of bad) {
      const res = await start(key, { domain });
      expect(res.status, domain).toBe(400);
      const body = await res.json();
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.message, domain).toContain('body.domain');
    }
    expect((await start(key, {})).status).toBe(400);
    expect((await start(key, { domain: hostname(), extra: true })).status).toBe(400);
    expect((await start(key, { domain: 42 })).status).toBe(400);
  });

  it("refuses the platform's own domains (PLATFORM_DOMAINS, PUBLIC_BASE_URL's host, the CNAME target's zone) with 400", async () => {
    const { key } = await makeTenant(t.db);
    const env = {
      PLATFORM_DOMAINS: 'brandadmin.com, Brand-Admin.io',
      PUBLIC_BASE_URL: 'https://api.brand-admin-api.net',
      CUSTOM_DOMAIN_CNAME_TARGET: 'storefronts.brandsites.net',
    };
    for (const domain of [
      'brandadmin.com',
      'shop.brandadmin.com',
      'www.brand-admin.io',
      'api.brand-admin-api.net',
      'x.api.brand-admin-api.net',
      'evil.brandsites.net',
    ]) {
      const res = await withEnv(t, '/api/v1/clinic/custom-domain/start', { key, body: { domain }, env });
      expect(res.status, domain).toBe(400);
      const body = await res.json();
      expect(body.message, domain).toContain("body.domain: must not be the platform's own domain");
    }
    // A look-alike outside those domains is fine.
    expect((await withEnv(t, '/api/v1/clinic/custom-domain/start', { key, body: { domain: 'notbrandadmin.com' }, env })).status).toBe(200);
  });

  it('answers 409 CUSTOM_DOMAIN_EXISTS while the clinic has a current domain, and 409 CONFLICT for a hostname another clinic holds', async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    const host = hostname();
    expect((await start(a.key, { domain: host })).status).toBe(200);
    const again = await start(a.key, { domain: hostname() });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('CUSTOM_DOMAIN_EXISTS');
    const same = await start(a.key, { domain: host });
    expect((await same.json()).code).toBe('CUSTOM_DOMAIN_EXISTS');
    const taken = await start(b.key, { domain: host });
    expect(taken.status).toBe(409);
    const body = await taken.json();
    expect(body.code).toBe('CONFLICT');
    expect(body.message).toContain(host);
    expect(await t.db.select().from(customDomains).where(eq(customDomains.clinicId, b.clinic.id))).toEqual([]);
  });

  it('needs the write scope', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await start(readOnly.raw, { domain: hostname() });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('verify, finalize and remove', () => {
  it('runs the whole machine: finalize before verify is 409, verify stays pending until DNS is published, then verified -> active -> removed', async () => {
    const { clinic, key } = await makeTenant(t.db);
    t.clock.freezeAt(Date.now());
    const host = hostname();
    const { data: started } = await (await start(key, { domain: host })).json();

    const early = await action(key, 'finalize');
    expect(early.status).toBe(409);
    const earlyBody = await early.json();
    expect(earlyBody.code).toBe('CUSTOM_DOMAIN_NOT_VERIFIED');
    expect(earlyBody.message).toContain('verify');

    const pending = await action(key, 'verify');
    expect(pending.status).toBe(200);
    const pendingBody = await pending.json();
    expect(pendingBody.data).toMatchObject({ verified: false, domain: { id: started.id, status: 'pending_verification' } });
    expect(pendingBody.data.problems.length).toBeGreaterThan(0);
    expect(pendingBody.data.problems[0]).toContain(host);
    expect((await action(key, 'finalize')).status).toBe(409);

    afterPropagation();
    const verified = await action(key, 'verify');
    const verifiedBody = await verified.json();
    expect(verifiedBody.data).toMatchObject({
      verified: true,
      problems: [],
      domain: { status: 'verified', verifiedAt: new Date(t.clock.now()).toISOString() },
    });
    // Verifying again changes nothing.
    expect((await (await action(key, 'verify')).json()).data).toMatchObject({ verified: true, domain: { status: 'verified' } });

    const finalized = await action(key, 'finalize');
    expect(finalized.status).toBe(200);
    const active = (await finalized.json()).data;
    expect(active).toMatchObject({ id: started.id, status: 'active', activatedAt: expect.any(String) });
    expect((await (await action(key, 'finalize')).json()).data.status).toBe('active');
    const profile = (await (await t.request('/api/v1/clinic', { key })).json()).data;
    expect(profile.customDomain).toBe(host);

    const removed = await action(key, 'remove');
    expect(removed.status).toBe(200);
    expect((await removed.json()).data).toMatchObject({ id: started.id, status: 'removed', removedAt: expect.any(String) });
    expect((await (await t.request('/api/v1/clinic', { key })).json()).data.customDomain).toBeNull();
    for (const name of ['verify', 'finalize', 'remove'] as const) {
      const res = await action(key, name);
      expect(res.status, name).toBe(404);
      expect((await res.json()).message).toBe('Custom domain not found');
    }

    // Restart after remove: the same hostname may be registered again (a new record).
    const restarted = await start(key, { domain: host });
    expect(restarted.status).toBe(200);
    const again = (await restarted.json()).data;
    expect(again.id).not.toBe(started.id);
    expect(again.status).toBe('pending_verification');
    const rows = await t.db.select().from(customDomains).where(eq(customDomains.clinicId, clinic.id));
    expect(rows.map((r) => r.status).sort()).toEqual(['pending_verification', 'removed']);
  });

  it('removes a pending domain, freeing its hostname for another clinic', async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    const host = hostname();
    await start(a.key, { domain: host });
    expect((await (await action(a.key, 'remove')).json()).data.status).toBe('removed');
    expect((await start(b.key, { domain: host })).status).toBe(200);
  });

  it('finalize on a verified domain that stopped validating goes back to pending with 409', async () => {
    const { key } = await makeTenant(t.db);
    const { data } = await (await start(key, { domain: hostname() })).json();
    // Mark it verified without the DNS having propagated (as if verified earlier, then the records went away).
    await t.db.update(customDomains).set({ status: 'verified', verifiedAt: new Date() }).where(eq(customDomains.id, data.id));
    const res = await action(key, 'finalize');
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('CUSTOM_DOMAIN_NOT_VERIFIED');
    const [row] = await t.db.select().from(customDomains).where(eq(customDomains.id, data.id));
    expect(row).toMatchObject({ status: 'pending_verification', verifiedAt: null });
  });

  it("acts on the key's clinic only: another clinic's domain is never verified, finalized or removed", async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    const { data } = await (await start(a.key, { domain: hostname() })).json();
    afterPropagation();
    for (const name of ['verify', 'finalize', 'remove'] as const) expect((await action(b.key, name)).status, name).toBe(404);
    const [row] = await t.db.select().from(customDomains).where(eq(customDomains.id, data.id));
    expect(row!.status).toBe('pending_verification');
  });
});
