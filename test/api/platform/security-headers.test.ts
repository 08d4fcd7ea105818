// X-Content-Type-Options: nosniff on every answer (src/platform/http/security-headers.ts): walks the
// route table (every declared operation, with and without credentials, with a body it refuses), and the
// answers no route declares: 404s, 413, 429, preflights, the docs page, the simulator's 404 and errors.
import { describe, expect, it } from 'vitest';
import { createApp, routeTable } from '../../../src/app';
import { useTestApp } from '../../helpers/app';
import { makeTenant, makeUser, TEST_PASSWORD } from '../../helpers/factories';

const t = useTestApp();
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, crypto.randomUUID());

/** Every answer seen, with where it came from, so one assertion lists every miss. */
const seen: { label: string; status: number; nosniff: string | null }[] = [];
function record(label: string, res: Response) {
  seen.push({ label, status: res.status, nosniff: res.headers.get('x-content-type-options') });
  return res;
}
const missing = () => seen.filter((answer) => answer.nosniff !== 'nosniff');

async function credentials() {
  const { clinic, key } = await makeTenant(t.db, { entitlements: ['affiliates', 'crm_connect'] });
  const user = await makeUser(t.db, clinic.id, { role: 'owner' });
  const signin = await t.request('/auth/signin', { body: { email: user.email, password: TEST_PASSWORD } });
  return { key, token: (await signin.json()).data.token as string };
}

describe('X-Content-Type-Options: nosniff', () => {
  it('is on every answer of every declared route: without credentials, with them, and for a refused body', async () => {
    const { key, token } = await credentials();
    const routes = routeTable(t.app);
    expect(routes.length).toBeGreaterThan(50);
    for (const route of routes) {
      // A simulated minute per route keeps every key and address under its limits.
      t.clock.advance(61_000);
      const path = concrete(route.path);
      const name = `${route.method} ${route.path}`;
      const auth = route.access.auth === 'key' ? { key } : route.access.auth === 'jwt' ? { token } : {};
      record(`${name} (no credentials)`, await t.request(path, { method: route.method }));
      record(`${name}`, await t.request(path, { method: route.method, ...auth }));
      if (route.method !== 'GET') {
        record(`${name} (refused body)`, await t.request(path, { method: route.method, ...auth, body: '{"unknown": [' }));
      }
    }
    const statuses = new Set(seen.map((answer) => answer.status));
    // Successes, validation errors, missing credentials, forbidden and not found were all among them.
    for (const status of [200, 400, 401, 403, 404]) expect(statuses, `status ${status}`).toContain(status);
    expect(missing()).toEqual([]);
  });

  it('is on the answers no route declares: 404s, 413, 429, the checkout preflight, the docs, the simulator', async () => {
    seen.length = 0;
    t.clock.freezeAtWindowStart(60);
    const { key } = await makeTenant(t.db);
    record('unknown root path', await t.request('/nothing/here'));
    record('unknown /api/v1 path without a key', await t.request('/api/v1/nothing-here'));
    record('unknown /api/v1 path', await t.request('/api/v1/nothing-here', { key }));
    record('simulator without DEV_SIMULATOR', await t.request('/_dev/webhooks/flush', { method: 'POST', key }));
    record('docs page', await t.request('/docs'));
    record('OpenAPI document', await t.request('/api/v1/openapi.json'));
    record(
      'checkout preflight',
      await t.request('/api/v1/checkout/sessions', {
        method: 'OPTIONS',
        headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'POST' },
      }),
    );
    record('OPTIONS elsewhere', await t.request('/api/v1/me', { method: 'OPTIONS', key }));
    record('413', await t.request('/api/v1/coupons', { key, body: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 1) }) }));
    const address = { 'cf-connecting-ip': '198.51.100.77' };
    let limited: Response | undefined;
    for (let i = 0; i < 130 && limited?.status !== 429; i++) limited = await t.request('/health', { headers: address });
    record('429', limited!);
    expect(seen.map((answer) => [answer.label, answer.status])).toEqual([
      ['unknown root path', 404],
      ['unknown /api/v1 path without a key', 401],
      ['unknown /api/v1 path', 404],
      ['simulator without DEV_SIMULATOR', 404],
      ['docs page', 200],
      ['OpenAPI document', 200],
      ['checkout preflight', 204],
      ['OPTIONS elsewhere', 404],
      ['413', 413],
      ['429', 429],
    ]);
    expect(missing()).toEqual([]);
  });

  it('is on an error answer, even when the request failed before its services existed', async () => {
    const broken = createApp(async () => {
      throw new Error('services could not be built');
    });
    const res = await broken.request('/health', { headers: { 'cf-connecting-ip': '198.51.100.78' } });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
