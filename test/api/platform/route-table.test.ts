// Walks every declared route: each later area's routes are checked here without writing anything new.
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../../src/app';
import { sandboxAllowedByDefault } from '../../../src/platform/http/route';
import { useTestApp } from '../../helpers/app';
import { makeClinic, makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
/**
 * Routes that are not API operations: the document itself, the page that renders it, QStash's
 * signed callback (docs/webhooks.md, "Who sends") and, below, the platform's signed entry point
 * (/internal/platform/*, docs/webhooks.md "The platform's entry point").
 */
const NOT_OPERATIONS = new Set(['GET /api/v1/openapi.json', 'GET /docs', 'POST /internal/qstash/webhook-deliveries']);
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, crypto.randomUUID());

describe('route table', () => {
  it('declares every route the router serves, with its access rule', () => {
    const table = routeTable(t.app);
    const declared = new Set(table.map((r) => `${r.method} ${r.path}`));
    const served = t.app.routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`)
      // /_dev/* and /api/v1/_dev/*: the development simulator; /internal/platform/*: signed, not keyed.
      .filter(
        (r) => !NOT_OPERATIONS.has(r) && !r.includes(' /_dev/') && !r.includes(' /api/v1/_dev/') && !r.includes(' /internal/platform/'),
      );
    for (const route of new Set(served)) expect(declared, route).toContain(route);
    for (const route of table) {
      if (route.path.startsWith('/api/v1/')) expect(route.access.auth, route.path).toBe('key');
      if (route.access.auth === 'key' && route.method !== 'GET') expect(route.access.scope, route.path).toBe('write');
    }
  });

  it('publishes the table in the OpenAPI document, served without a key', async () => {
    const res = await t.request('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    for (const route of routeTable(t.app)) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation['x-access']).toEqual(route.access);
    }
    for (const [method, path] of [
      ['post', '/auth/signin'],
      ['post', '/api-keys'],
      ['get', '/api-keys'],
      ['delete', '/api-keys/{id}'],
      ['get', '/api/v1/me'],
    ]) {
      expect(doc.paths[path!]?.[method!], `${method} ${path}`).toBeDefined();
    }
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect((await t.request('/docs')).headers.get('content-type')).toContain('text/html');
  });
});

describe('declared statuses', () => {
  it('every operation that takes a body declares 413 and 415, and sign-in its 401 (all three once answered undeclared)', async () => {
    const doc = await (await t.request('/api/v1/openapi.json')).json();
    const withBody = routeTable(t.app).filter((route) => doc.paths[route.path][route.method.toLowerCase()].requestBody);
    expect(withBody.length).toBeGreaterThan(50);
    for (const route of withBody) {
      const responses = Object.keys(doc.paths[route.path][route.method.toLowerCase()].responses);
      expect(responses, `${route.method} ${route.path}`).toEqual(expect.arrayContaining(['413', '415']));
    }
    expect(doc.paths['/auth/signin'].post.responses['401']).toBeDefined();
    const { key } = await makeTenant(t.db);
    const res = await t.request('/api/v1/coupons', { key, body: '{}', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect((await res.json()).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('every key route enforces the common checks', () => {
  const keyRoutes = () => routeTable(t.app).filter((r) => r.access.auth === 'key');

  it('401 without a key, KEY_KIND_NOT_ALLOWED for publishable keys, INSUFFICIENT_SCOPE for read-only keys on writes', async () => {
    const { clinic } = await makeTenant(t.db, { entitlements: ['affiliates', 'crm_connect'] });
    const publishable = await makeKey(t.db, clinic.id, { kind: 'publishable', rateLimitPerMin: null });
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    for (const route of keyRoutes()) {
      // A simulated second per route keeps the two keys under their burst cap however many routes exist.
      t.clock.advance(1_000);
      const access = route.access as Extract<typeof route.access, { auth: 'key' }>;
      const path = concrete(route.path);
      const name = `${route.method} ${route.path}`;
      expect((await t.request(path, { method: route.method })).status, name).toBe(401);
      if (!access.publishable) {
        const res = await t.request(path, { method: route.method, key: publishable.raw });
        expect((await res.json()).code, name).toBe('KEY_KIND_NOT_ALLOWED');
      }
      if (access.scope === 'write') {
        const res = await t.request(path, { method: route.method, key: readOnly.raw });
        expect((await res.json()).code, name).toBe('INSUFFICIENT_SCOPE');
      }
    }
  });

  it('SANDBOX_NOT_ALLOWED for sandbox keys on the blocked areas', async () => {
    const sandbox = await makeClinic(t.db, { mode: 'sandbox' });
    const { raw } = await makeKey(t.db, sandbox.id, { isSandbox: true });
    for (const route of keyRoutes()) {
      t.clock.advance(1_000);
      const access = route.access as Extract<typeof route.access, { auth: 'key' }>;
      if (access.sandbox ?? sandboxAllowedByDefault(route.path)) continue;
      const res = await t.request(concrete(route.path), { method: route.method, key: raw });
      expect((await res.json()).code, route.path).toBe('SANDBOX_NOT_ALLOWED');
    }
  });
});
