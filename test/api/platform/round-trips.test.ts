// A read request may make two database round trips: the key (or token user) lookup and its query.
// The request log is written after the response and is not counted.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant, makeUser, TEST_PASSWORD } from '../../helpers/factories';

const t = useTestApp();

async function roundTrips(send: () => Promise<{ status: number }>, expectedStatus = 200): Promise<string[]> {
  await t.flush();
  t.queries.length = 0;
  const res = await send();
  expect(res.status).toBe(expectedStatus);
  await t.flush();
  return t.queries.filter((sql) => !sql.includes('"request_logs"'));
}

describe('database round trips per request', () => {
  it('GET /api/v1/me: one (the key lookup, which also brings the plan)', async () => {
    const { key } = await makeTenant(t.db);
    expect(await roundTrips(() => t.request('/api/v1/me', { key }))).toHaveLength(1);
  });

  it('a refused request costs the key lookup at most, and a made-up key nothing', async () => {
    const { clinic } = await makeTenant(t.db);
    const { raw } = await makeKey(t.db, clinic.id, { kind: 'publishable' });
    expect(await roundTrips(() => t.request('/api/v1/me', { key: raw }), 403)).toHaveLength(1);
    expect(await roundTrips(() => t.request('/api/v1/me', { key: 'svc_live_unknown' }), 401)).toHaveLength(0);
  });

  it('GET /api-keys: two (the token user, then the page with its total)', async () => {
    const { clinic } = await makeTenant(t.db);
    const user = await makeUser(t.db, clinic.id);
    const signIn = await t.request('/auth/signin', { body: { email: user.email, password: TEST_PASSWORD } });
    const { token } = (await signIn.json()).data;
    expect(await roundTrips(() => t.request('/api-keys', { token }))).toHaveLength(2);
  });
});
