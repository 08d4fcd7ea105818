// Strict query strings (docs/api-conventions.md, "Unknown query parameters"): an undeclared query
// parameter answers 400 VALIDATION_ERROR naming it, on every route of the route table and on the
// plain routes (the document, /docs, the simulator, QStash's callback); declared ones still work.
import { describe, expect, it } from 'vitest';
import { QSTASH_CALLBACK_PATH } from '../../../src/config';
import { routeTable } from '../../../src/platform/http/route-table';
import { buildTestApp, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
const SOME_ID = '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10';

describe('unknown query parameters', () => {
  it('GET /orders?stauts=paid (a typo) is a 400 naming it and the parameters the operation takes', async () => {
    const { key } = await makeTenant(t.db);
    const res = await t.request('/api/v1/orders?stauts=paid&page=1', { key });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(body.errors).toEqual([
      {
        field: 'query.stauts',
        message: 'Unknown query parameter; this operation takes page, limit, status, programId, createdGte, createdLte, q',
      },
    ]);
    expect(body.message).toContain('query.stauts');
  });

  it('every key operation of the route table refuses one, after the access checks and before anything else', async () => {
    const { clinic } = await makeTenant(t.db, { entitlements: ['affiliates', 'crm_connect'] });
    const key = (await makeKey(t.db, clinic.id, { rateLimitPerMin: null })).raw;
    const refused: string[] = [];
    let checked = 0;
    for (const route of routeTable(t.app)) {
      if (route.access.auth !== 'key' || route.access.publishable || route.access.sandbox === 'only') continue;
      // A simulated second per route keeps the key under its burst cap however many routes exist.
      t.clock.advance(1_000);
      const path = route.path.replace(/\{[^}]+\}/g, SOME_ID);
      const res = await t.request(`${path}?notAParameter=1`, { key, method: route.method });
      const body = await res.json();
      checked++;
      if (res.status !== 400 || body.errors?.[0]?.field !== 'query.notAParameter')
        refused.push(`${route.method} ${route.path} → ${res.status}`);
    }
    expect(refused).toEqual([]);
    expect(checked).toBeGreaterThan(150);
  }, 120_000);

  it('the plain routes take none: the document, /docs, the simulator and the QStash callback', async () => {
    const dev = buildTestApp(t.db, t.databaseUrl);
    dev.config.devSimulator = true;
    const { key } = await makeTenant(t.db);
    expect((await t.request('/api/v1/openapi.json?x=1', { key })).status).toBe(400);
    expect((await t.request('/docs?x=1')).status).toBe(400);
    expect((await t.request('/docs')).status).toBe(200);
    expect((await dev.request('/_dev/webhooks/flush?x=1', { method: 'POST', key })).status).toBe(400);
    // QStash calls back on the bare path (src/config/qstash.ts); a query string is refused before the signature.
    const callback = await t.request(`${QSTASH_CALLBACK_PATH}?x=1`, { method: 'POST', body: {} });
    expect(callback.status).toBe(400);
  });

  it('declared parameters, repeated or empty-valued, still pass', async () => {
    const { key } = await makeTenant(t.db);
    expect((await t.request('/api/v1/orders?page=1&limit=5&status=paid&status=shipped', { key })).status).toBe(200);
    expect((await t.request('/api/v1/orders?', { key })).status).toBe(200);
    expect((await t.request('/api/v1/me', { key })).status).toBe(200);
  });
});
