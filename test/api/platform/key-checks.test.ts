import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { clinics } from '../../../drizzle/schema';
import { announceKeyChanges, KEY_CACHE_TTL_MS } from '../../../src/platform/auth/key-cache';
import { type TestResponse, useTestApp } from '../../helpers/app';
import { makeClinic, makeKey, makeTenant } from '../../helpers/factories';
import { addProbeRoute } from '../../helpers/probe-routes';

const t = useTestApp();

beforeAll(() => {
  addProbeRoute(t.app, { auth: 'key', scope: 'read' }, 'get', '/api/v1/probe/read');
  addProbeRoute(t.app, { auth: 'key', scope: 'write' }, 'post', '/api/v1/probe/write', true);
  addProbeRoute(t.app, { auth: 'key', scope: 'write', gate: 'affiliates' }, 'post', '/api/v1/probe/affiliates-gated', true);
  addProbeRoute(t.app, { auth: 'key', scope: 'read', gate: 'crm_connect' }, 'get', '/api/v1/probe/crm-gated');
  addProbeRoute(t.app, { auth: 'key', scope: 'read', aiConnector: true }, 'get', '/api/v1/probe/ai-allowed');
});

async function expectError(res: TestResponse, status: number, code?: string) {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.success).toBe(false);
  expect(typeof body.message).toBe('string');
  if (code) expect(body.code).toBe(code);
  return body;
}

describe('401: keys that do not open the door', () => {
  it('answers 401 to a missing, malformed, unknown, expired, revoked or deactivated-clinic key', async () => {
    const { clinic } = await makeTenant(t.db);
    const expired = await makeKey(t.db, clinic.id, { expiresAt: new Date(Date.now() - 1000) });
    const revoked = await makeKey(t.db, clinic.id, { revokedAt: new Date() });
    const inactiveClinic = await makeClinic(t.db, { isActive: false });
    const inactiveKey = await makeKey(t.db, inactiveClinic.id);
    const cases: (string | undefined)[] = [
      undefined,
      '',
      'not-a-key',
      `svc_live_${'x'.repeat(43)}`,
      `svc_live_${'x'.repeat(500)}`,
      expired.raw,
      revoked.raw,
      inactiveKey.raw,
    ];
    const bodies = [];
    for (const key of cases) {
      const headers: Record<string, string> = key === undefined ? {} : { 'x-api-key': key };
      const res = await t.request('/api/v1/me', { headers });
      bodies.push(await expectError(res, 401, 'UNAUTHORIZED'));
    }
    // Nothing in the answer tells which part failed.
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
  });

  it('answers 401 to a sandbox key once the 30-day window is over', async () => {
    const { key } = await makeTenant(t.db, { mode: 'sandbox', sandboxExpiresAt: new Date(Date.now() + 60_000) });
    expect((await t.request('/api/v1/me', { key })).status).toBe(200);
    const over = await makeTenant(t.db, { mode: 'sandbox', sandboxExpiresAt: new Date(Date.now() - 1000) });
    await expectError(await t.request('/api/v1/me', { key: over.key }), 401, 'UNAUTHORIZED');
  });

  it('stops a key as soon as its clinic is deactivated and announced; unannounced, once the key cache lapses', async () => {
    // Deactivation is an operator's change outside the API: with the clinic's marker set it is immediate.
    const { clinic, key } = await makeTenant(t.db);
    expect((await t.request('/api/v1/me', { key })).status).toBe(200);
    await t.db.update(clinics).set({ isActive: false }).where(eq(clinics.id, clinic.id));
    await announceKeyChanges(t.services, [], [clinic.id]);
    await expectError(await t.request('/api/v1/me', { key }), 401);

    // Without the marker, a key this isolate looked up stays trusted for at most KEY_CACHE_TTL_MS.
    const other = await makeTenant(t.db);
    expect((await t.request('/api/v1/me', { key: other.key })).status).toBe(200);
    await t.db.update(clinics).set({ isActive: false }).where(eq(clinics.id, other.clinic.id));
    expect((await t.request('/api/v1/me', { key: other.key })).status).toBe(200);
    t.clock.advance(KEY_CACHE_TTL_MS);
    await expectError(await t.request('/api/v1/me', { key: other.key }), 401);
  });

  it('requires a key on unknown /api/v1 paths too, then answers 404', async () => {
    await expectError(await t.request('/api/v1/nothing-here'), 401);
    const { key } = await makeTenant(t.db);
    await expectError(await t.request('/api/v1/nothing-here', { key }), 404, 'NOT_FOUND');
  });
});

describe('403 checks', () => {
  it('publishable keys may only create checkout sessions', async () => {
    const { clinic } = await makeTenant(t.db);
    const { raw } = await makeKey(t.db, clinic.id, { kind: 'publishable', scopes: ['read', 'write'] });
    await expectError(await t.request('/api/v1/me', { key: raw }), 403, 'KEY_KIND_NOT_ALLOWED');
    await expectError(await t.request('/api/v1/probe/write', { key: raw, body: { amount: 1 } }), 403, 'KEY_KIND_NOT_ALLOWED');
    // The real route (src/modules/webhooks-checkout/checkout): past the kind check, an unknown program is its own 404.
    const res = await t.request('/api/v1/checkout/sessions', { key: raw, body: { programId: crypto.randomUUID() } });
    expect(res.status).toBe(404);
  });

  it('AI-connector keys may only call their read-only allowlist', async () => {
    const { clinic } = await makeTenant(t.db);
    const { raw } = await makeKey(t.db, clinic.id, { kind: 'ai_connector', scopes: ['read'] });
    expect((await t.request('/api/v1/me', { key: raw })).status).toBe(200);
    expect((await t.request('/api/v1/probe/ai-allowed', { key: raw })).status).toBe(200);
    await expectError(await t.request('/api/v1/probe/read', { key: raw }), 403, 'KEY_KIND_NOT_ALLOWED');
    await expectError(await t.request('/api/v1/probe/write', { key: raw, body: { amount: 1 } }), 403, 'KEY_KIND_NOT_ALLOWED');
  });

  it('sandbox keys answer SANDBOX_NOT_ALLOWED on orders, customers, payouts and refunds', async () => {
    const { key } = await makeTenant(t.db, { mode: 'sandbox' });
    await expectError(await t.request('/api/v1/refunds', { key, body: { amount: 1 } }), 403, 'SANDBOX_NOT_ALLOWED');
    await expectError(await t.request('/api/v1/orders/00000000-0000-4000-8000-000000000000', { key }), 403, 'SANDBOX_NOT_ALLOWED');
    expect((await t.request('/api/v1/probe/write', { key, body: { amount: 1 } })).status).toBe(200);
  });

  it('read-only keys get INSUFFICIENT_SCOPE on mutating calls', async () => {
    const { clinic } = await makeTenant(t.db);
    const { raw } = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await t.request('/api/v1/probe/read', { key: raw })).status).toBe(200);
    await expectError(await t.request('/api/v1/probe/write', { key: raw, body: { amount: 1 } }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('plan gates answer AFFILIATES_TIER_REQUIRED and CRM_TIER_REQUIRED without the entitlement', async () => {
    const basic = await makeTenant(t.db);
    await expectError(
      await t.request('/api/v1/probe/affiliates-gated', { key: basic.key, body: { amount: 1 } }),
      403,
      'AFFILIATES_TIER_REQUIRED',
    );
    await expectError(await t.request('/api/v1/probe/crm-gated', { key: basic.key }), 403, 'CRM_TIER_REQUIRED');
    const growth = await makeTenant(t.db, { entitlements: ['affiliates', 'crm_connect'] });
    expect((await t.request('/api/v1/probe/affiliates-gated', { key: growth.key, body: { amount: 1 } })).status).toBe(200);
    expect((await t.request('/api/v1/probe/crm-gated', { key: growth.key })).status).toBe(200);
  });
});

describe('check order: 401 → 429 → KEY_KIND → SANDBOX → SCOPE → plan gate → 400 → 404', () => {
  it('reports the earliest failing check when several fail at once', async () => {
    const sandbox = await makeClinic(t.db, { mode: 'sandbox' });
    const publishable = await makeKey(t.db, sandbox.id, { kind: 'publishable', isSandbox: true });
    // Publishable + sandbox on a sandbox-blocked route: the kind check comes first.
    await expectError(await t.request('/api/v1/refunds', { key: publishable.raw, body: 'not json' }), 403, 'KEY_KIND_NOT_ALLOWED');

    const readOnlySandbox = await makeKey(t.db, sandbox.id, { scopes: ['read'], isSandbox: true });
    // Sandbox before scope.
    await expectError(await t.request('/api/v1/refunds', { key: readOnlySandbox.raw, body: { amount: 1 } }), 403, 'SANDBOX_NOT_ALLOWED');

    const basic = await makeClinic(t.db);
    const readOnly = await makeKey(t.db, basic.id, { scopes: ['read'] });
    // Scope before the plan gate.
    await expectError(
      await t.request('/api/v1/probe/affiliates-gated', { key: readOnly.raw, body: { amount: 1 } }),
      403,
      'INSUFFICIENT_SCOPE',
    );

    const writer = await makeKey(t.db, basic.id, { scopes: ['read', 'write'] });
    // The plan gate before validation.
    await expectError(
      await t.request('/api/v1/probe/affiliates-gated', { key: writer.raw, body: { amount: -1 } }),
      403,
      'AFFILIATES_TIER_REQUIRED',
    );

    // Validation (400) before the handler's 404.
    const growth = await makeTenant(t.db, { entitlements: ['affiliates'] });
    await expectError(await t.request('/api/v1/probe/write', { key: growth.key, body: { amount: 'x' } }), 400, 'VALIDATION_ERROR');
  });

  it('answers 401 before 429 and 429 before any 403', async () => {
    const { clinic } = await makeTenant(t.db);
    const publishable = await makeKey(t.db, clinic.id, { kind: 'publishable', rateLimitPerMin: 1 });
    t.clock.freezeAtWindowStart(60);
    await expectError(await t.request('/api/v1/me', { key: publishable.raw }), 403, 'KEY_KIND_NOT_ALLOWED');
    await expectError(await t.request('/api/v1/me', { key: publishable.raw }), 429, 'RATE_LIMIT_EXCEEDED');
    await t.db.update(clinics).set({ isActive: false }).where(eq(clinics.id, clinic.id));
    await announceKeyChanges(t.services, [], [clinic.id]);
    await expectError(await t.request('/api/v1/me', { key: publishable.raw }), 401, 'UNAUTHORIZED');
  });

  it('never answers ENDPOINT_NOT_ENABLED', async () => {
    const { key } = await makeTenant(t.db);
    for (const path of ['/api/v1/me', '/api/v1/probe/read', '/api/v1/unknown']) {
      const body = await (await t.request(path, { key })).text();
      expect(body).not.toContain('ENDPOINT_NOT_ENABLED');
    }
  });
});
