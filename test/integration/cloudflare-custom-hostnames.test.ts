// The Cloudflare for SaaS custom-hostname adapter against a local stand-in of its API
// (test/tooling/cloudflare-stand-in.ts): what it sends, how answers map to states and errors, and the
// custom-domain operations end to end with the adapter chosen from the Worker env.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customDomains } from '../../drizzle/schema';
import { CloudflareCustomHostnames } from '../../src/platform/providers/domains';
import { ProviderError } from '../../src/platform/providers/errors';
import { withEnv } from '../api/organization/organization-fixtures';
import { buildTestApp, useTestApp } from '../helpers/app';
import { makeKey, makeTenant } from '../helpers/factories';
import { type CloudflareStandIn, startCloudflareStandIn } from '../tooling/cloudflare-stand-in';

const t = useTestApp();
let cf: CloudflareStandIn;
const TARGET = 'storefronts.brandadminapi.com';

beforeAll(async () => {
  cf = await startCloudflareStandIn();
});
afterAll(async () => {
  await cf?.close();
});

const adapter = (overrides: Partial<{ apiToken: string; baseUrl: string }> = {}, timeoutMs?: number) =>
  new CloudflareCustomHostnames(
    { apiToken: cf.apiToken, zoneId: cf.zoneId, baseUrl: cf.baseUrl, cnameTarget: TARGET, ...overrides },
    undefined,
    timeoutMs,
  );
const env = () => ({
  CLOUDFLARE_API_TOKEN: cf.apiToken,
  CLOUDFLARE_ZONE_ID: cf.zoneId,
  CUSTOM_DOMAIN_CNAME_TARGET: TARGET,
  CLOUDFLARE_API_BASE_URL: cf.baseUrl,
});
const host = () => `shop-${crypto.randomUUID().slice(0, 8)}.brandhealth.com`;
const kindOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'ok';
  } catch (error) {
    return error instanceof ProviderError ? error.kind : `other: ${String(error)}`;
  }
};

describe('CloudflareCustomHostnames', () => {
  it('creates with POST /zones/{zone}/custom_hostnames (Bearer token, HTTP validation) and answers the ownership token and CNAME target', async () => {
    const name = host();
    const created = await adapter().create({ clinicId: crypto.randomUUID(), hostname: name });
    const request = cf.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', path: `/client/v4/zones/${cf.zoneId}/custom_hostnames` });
    expect(request.headers.authorization).toBe(`Bearer ${cf.apiToken}`);
    expect(request.body).toEqual({ hostname: name, ssl: { method: 'http', type: 'dv', settings: { min_tls_version: '1.2' } } });
    const stored = cf.hostnames.get(created.providerHostnameId)!;
    expect(created).toEqual({ providerHostnameId: stored.id, verificationToken: stored.token, cnameTarget: TARGET });
  });

  it('check: pending with the reasons until the DNS resolves, then verified; attach re-reads it; remove deletes it (twice is fine)', async () => {
    const name = host();
    const created = await adapter().create({ clinicId: crypto.randomUUID(), hostname: name });
    const record = { providerHostnameId: created.providerHostnameId, hostname: name, startedAt: new Date() };
    const pending = await adapter().check(record);
    expect(pending.verified).toBe(false);
    expect(pending.problems).toEqual([
      'Hostname ownership is pending at Cloudflare',
      'custom hostname does not CNAME to this zone.',
      'The certificate is pending_validation at Cloudflare',
      'The certificate authority could not validate the hostname yet.',
    ]);
    expect(cf.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: `/client/v4/zones/${cf.zoneId}/custom_hostnames/${created.providerHostnameId}`,
    });
    cf.publish(name);
    expect(await adapter().check(record)).toEqual({ verified: true, problems: [] });
    expect(await adapter().attach(record)).toEqual({ verified: true, problems: [] });
    await adapter().remove(record);
    expect(cf.requests.at(-1)).toMatchObject({ method: 'DELETE' });
    expect(cf.hostnames.get(created.providerHostnameId)!.deleted).toBe(true);
    await adapter().remove(record);
    expect(await kindOf(adapter().check(record))).toBe('not_found');
  });

  it('maps Cloudflare errors: duplicate, invalid names, credentials, outages, no answer', async () => {
    const name = host();
    await adapter().create({ clinicId: 'a', hostname: name });
    expect(await kindOf(adapter().create({ clinicId: 'b', hostname: name }))).toBe('duplicate');
    expect(await kindOf(adapter().create({ clinicId: 'b', hostname: 'shop.brand.test' }))).toBe('invalid');
    expect(await kindOf(adapter().create({ clinicId: 'b', hostname: 'www.example.com' }))).toBe('invalid');
    expect(await kindOf(adapter({ apiToken: 'wrong' }).create({ clinicId: 'b', hostname: host() }))).toBe('refused');
    cf.failNext(503, [{ code: 10000, message: 'Service unavailable' }]);
    expect(await kindOf(adapter().create({ clinicId: 'b', hostname: host() }))).toBe('unavailable');
    cf.failNext(429, [{ code: 10429, message: 'Rate limited' }]);
    expect(await kindOf(adapter().create({ clinicId: 'b', hostname: host() }))).toBe('unavailable');
    expect(await kindOf(adapter({ baseUrl: 'http://127.0.0.1:9/client/v4' }).create({ clinicId: 'b', hostname: host() }))).toBe(
      'unavailable',
    );
    cf.delayNext(300);
    expect(await kindOf(adapter({}, 50).create({ clinicId: 'b', hostname: host() }))).toBe('unavailable');
    // The stand-in is still holding that request; a failure queued now belongs to the next request,
    // even when that one arrives after the held one is answered.
    cf.failNext(502, [{ code: 10000, message: 'Bad gateway' }]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await kindOf(adapter().create({ clinicId: 'b', hostname: host() }))).toBe('unavailable');
    // The error never carries the token.
    try {
      await adapter({ apiToken: 'secret-token-value' }).create({ clinicId: 'b', hostname: host() });
    } catch (error) {
      expect(String((error as Error).message)).not.toContain('secret-token-value');
    }
  });
});

describe('custom-domain operations through Cloudflare (chosen from the Worker env)', () => {
  it('start -> verify (pending, then verified once published) -> finalize -> remove, all at the stand-in', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const name = host();
    const started = await withEnv(t, '/api/v1/clinic/custom-domain/start', { key, body: { domain: name }, env: env() });
    expect(started.status).toBe(200);
    const { data } = await started.json();
    const [row] = await t.db.select().from(customDomains).where(eq(customDomains.id, data.id));
    const remote = cf.hostnames.get(row!.providerHostnameId!)!;
    expect(remote.hostname).toBe(name);
    expect(data.dnsRecords).toEqual([
      { type: 'CNAME', name, value: TARGET, purpose: 'routing', priority: null },
      { type: 'TXT', name: `_cf-custom-hostname.${name}`, value: remote.token, purpose: 'ownership_verification', priority: null },
    ]);

    const early = await withEnv(t, '/api/v1/clinic/custom-domain/verify', { key, method: 'POST', env: env() });
    expect((await early.json()).data).toMatchObject({
      verified: false,
      problems: expect.arrayContaining(['custom hostname does not CNAME to this zone.']),
    });
    expect((await withEnv(t, '/api/v1/clinic/custom-domain/finalize', { key, method: 'POST', env: env() })).status).toBe(409);

    cf.publish(name);
    const verified = await withEnv(t, '/api/v1/clinic/custom-domain/verify', { key, method: 'POST', env: env() });
    expect((await verified.json()).data).toMatchObject({ verified: true, domain: { status: 'verified' } });
    const active = await withEnv(t, '/api/v1/clinic/custom-domain/finalize', { key, method: 'POST', env: env() });
    expect((await active.json()).data.status).toBe('active');

    const removed = await withEnv(t, '/api/v1/clinic/custom-domain/remove', { key, method: 'POST', env: env() });
    expect((await removed.json()).data.status).toBe('removed');
    expect(remote.deleted).toBe(true);
    expect((await t.db.select().from(customDomains).where(eq(customDomains.clinicId, clinic.id)))[0]!.status).toBe('removed');
  });

  it('a hostname registered at Cloudflare outside the platform is 409 CONFLICT; an outage is 503 with Retry-After; nothing is stored', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const name = host();
    await adapter().create({ clinicId: 'elsewhere', hostname: name });
    const taken = await withEnv(t, '/api/v1/clinic/custom-domain/start', { key, body: { domain: name }, env: env() });
    expect(taken.status).toBe(409);
    expect((await taken.json()).code).toBe('CONFLICT');
    cf.failNext(502, [{ code: 10000, message: 'Bad gateway' }]);
    const down = await withEnv(t, '/api/v1/clinic/custom-domain/start', { key, body: { domain: host() }, env: env() });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(await down.json()).toMatchObject({ code: 'DOMAIN_PROVIDER_UNAVAILABLE', retryAfterSeconds: 5 });
    expect(await t.db.select().from(customDomains).where(eq(customDomains.clinicId, clinic.id))).toEqual([]);
  });

  it('a hostname removed at Cloudflare behind our back answers 502 on verify; remove still tears ours down', async () => {
    const { key } = await makeTenant(t.db);
    const name = host();
    const { data } = await (await withEnv(t, '/api/v1/clinic/custom-domain/start', { key, body: { domain: name }, env: env() })).json();
    const [row] = await t.db.select().from(customDomains).where(eq(customDomains.id, data.id));
    cf.hostnames.get(row!.providerHostnameId!)!.deleted = true;
    const res = await withEnv(t, '/api/v1/clinic/custom-domain/verify', { key, method: 'POST', env: env() });
    expect(res.status).toBe(502);
    expect((await res.json()).code).toBe('DOMAIN_PROVIDER_ERROR');
    expect((await withEnv(t, '/api/v1/clinic/custom-domain/remove', { key, method: 'POST', env: env() })).status).toBe(200);
  });

  it('sandbox clinics and development records never reach Cloudflare', async () => {
    const sandbox = await makeTenant(t.db, { mode: 'sandbox' });
    const before = cf.requests.length;
    const res = await withEnv(t, '/api/v1/clinic/custom-domain/start', { key: sandbox.key, body: { domain: host() }, env: env() });
    expect(res.status).toBe(200);
    const [row] = await t.db.select().from(customDomains).where(eq(customDomains.clinicId, sandbox.clinic.id));
    expect(row!.providerHostnameId).toMatch(/^dev_/);
    // A development record of a live clinic (made before Cloudflare was configured) stays development.
    const live = await makeTenant(t.db);
    await t.request('/api/v1/clinic/custom-domain/start', { key: live.key, body: { domain: host() } });
    expect((await withEnv(t, '/api/v1/clinic/custom-domain/remove', { key: live.key, method: 'POST', env: env() })).status).toBe(200);
    expect(cf.requests.length).toBe(before);
  });

  it('production without the Cloudflare variables answers 503 DOMAIN_PROVIDER_UNAVAILABLE instead of pretending', async () => {
    const production = buildTestApp(t.db, t.databaseUrl);
    production.config.environment = 'production';
    const { clinic } = await makeTenant(t.db);
    const key = (await makeKey(t.db, clinic.id)).raw;
    const res = await withEnv(production, '/api/v1/clinic/custom-domain/start', { key, body: { domain: host() }, env: {} });
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.code).toBe('DOMAIN_PROVIDER_UNAVAILABLE');
    expect(body.message).toContain('CLOUDFLARE_API_TOKEN');
    // The same request with the variables set goes to Cloudflare.
    const ok = await withEnv(production, '/api/v1/clinic/custom-domain/start', { key, body: { domain: host() }, env: env() });
    expect(ok.status).toBe(200);
    await production.flush();
  });
});
