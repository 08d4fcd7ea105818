// Bad input of every kind, sent to every declared route with valid credentials: never a 5xx.
// Routes added by later areas are covered here automatically.
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../src/app';
import { useTestApp } from '../helpers/app';
import { makeTenant, makeUser, TEST_PASSWORD } from '../helpers/factories';

const t = useTestApp();

const BODIES = [
  '', 'null', '[]', '{}', '"text"', '42', 'true', '{"a":', '{"name": {"$gt": ""}}',
  JSON.stringify({ name: 'x'.repeat(10_000), email: '\u0000\uffff', password: ['a'], amount: 1e308, id: -1 }),
  JSON.stringify({ nested: JSON.parse('['.repeat(200) + ']'.repeat(200)) }),
  JSON.stringify({ expiresAt: '9999-99-99T99:99:99Z', scopes: 'read', kind: null, page: -1 }),
];
const QUERIES = ['', '?page=-1&limit=1e9', '?page=%00&limit=abc', '?page=1&page=2', "?search='%20or%201=1--"];
const IDS = ['00000000-0000-0000-0000-000000000000', 'not-a-uuid', '%27%3B--', 'x'.repeat(300)];

describe('no input produces a 5xx', () => {
  it('holds for every route, body, query and path id', async () => {
    const { clinic, key } = await makeTenant(t.db, { entitlements: ['affiliates', 'crm_connect'] });
    const user = await makeUser(t.db, clinic.id, { role: 'owner' });
    const { token } = (await (await t.request('/auth/signin', { body: { email: user.email, password: TEST_PASSWORD } })).json()).data;
    let sent = 0;
    for (const route of routeTable(t.app)) {
      const credentials = route.access.auth === 'key' ? { key } : route.access.auth === 'jwt' ? { token } : {};
      const paths = route.path.includes('{') ? IDS.map((id) => route.path.replace(/\{[^}]+\}/g, id)) : [route.path];
      for (const path of paths) {
        for (const query of QUERIES) {
          const bodies = route.method === 'GET' ? [undefined] : BODIES;
          for (const body of bodies) {
            const res = await t.request(path + query, {
              method: route.method,
              ...credentials,
              ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json', 'cf-connecting-ip': `198.18.${sent % 250}.${sent % 7}` } }),
            });
            sent++;
            expect(res.status, `${route.method} ${path}${query} ${body?.slice(0, 40)}`).toBeLessThan(500);
          }
        }
      }
    }
    expect(sent).toBeGreaterThan(50);
  });
});
