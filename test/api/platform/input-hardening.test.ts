// Input that used to reach PostgreSQL and answer 500: control characters and lone surrogates in
// strings, date-times PostgreSQL cannot store, and validly signed tokens with claims of the wrong shape.
import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../../src/platform/auth/jwt';
import { type TestResponse, useTestApp } from '../../helpers/app';
import { makeClinic, makeUser, TEST_PASSWORD } from '../../helpers/factories';

const t = useTestApp();

async function admin() {
  const clinic = await makeClinic(t.db);
  const user = await makeUser(t.db, clinic.id, { role: 'owner' });
  const { data } = await (await t.request('/auth/signin', { body: { email: user.email, password: TEST_PASSWORD } })).json();
  return { clinic, user, token: data.token as string };
}

async function expectFieldRefused(res: TestResponse, field: string) {
  expect(res.status).toBe(400);
  const body = await res.json();
  expect(body.code).toBe('VALIDATION_ERROR');
  expect(body.message).toContain(field);
  expect(body.errors.map((e: { field: string }) => e.field)).toContain(field);
  return body;
}

describe('control characters and lone surrogates answer 400 naming the field', () => {
  it('POST /auth/signin: a NUL in the email or password', async () => {
    const email = await expectFieldRefused(
      await t.request('/auth/signin', { body: '{"email":"a\\u0000b@x.test","password":"x"}' }),
      'body.email',
    );
    expect(email.message).toContain('control characters');
    await expectFieldRefused(await t.request('/auth/signin', { body: { email: 'a@x.test', password: 'pass\u0000word' } }), 'body.password');
    await expectFieldRefused(await t.request('/auth/signin', { body: '{"email":"a\\ud800@x.test","password":"x"}' }), 'body.email');
  });

  it('POST /api-keys: NUL, other controls, DEL and lone surrogates in the name', async () => {
    const { token } = await admin();
    for (const raw of ['a\\u0000b', 'a\\u0007b', 'a\\tb', 'a\\nb', 'a\\u007fb', 'a\\u0085b', 'a\\ud800b', '\\udfff']) {
      await expectFieldRefused(await t.request('/api-keys', { token, body: `{"name":"${raw}"}` }), 'body.name');
    }
    const fine = await t.request('/api-keys', { token, body: { name: 'Zoë 東京 👍🏽' } });
    expect(fine.status).toBe(201);
    expect((await fine.json()).data.name).toBe('Zoë 東京 👍🏽');
  });
});

describe('date-times are capped to what PostgreSQL stores', () => {
  it('POST /api-keys refuses 9999-12-31T23:59:59-23:59 and other out-of-range expiries with 400', async () => {
    const { token } = await admin();
    for (const expiresAt of [
      '9999-12-31T23:59:59-23:59',
      '9999-12-31T23:59:59-00:01',
      '2030-01-01T00:00:00+16:00',
      '0000-01-01T00:00:00Z',
    ]) {
      await expectFieldRefused(await t.request('/api-keys', { token, body: { name: 'far', expiresAt } }), 'body.expiresAt');
    }
  });

  it('accepts an offset and the last representable instant, and answers them in UTC', async () => {
    const { token } = await admin();
    const offset = await t.request('/api-keys', { token, body: { name: 'offset', expiresAt: '2031-06-01T12:00:00+05:30' } });
    expect(offset.status).toBe(201);
    expect((await offset.json()).data.expiresAt).toBe('2031-06-01T06:30:00.000Z');
    const last = await t.request('/api-keys', { token, body: { name: 'last', expiresAt: '9999-12-31T23:59:59+00:00' } });
    expect(last.status).toBe(201);
    expect((await last.json()).data.expiresAt).toBe('9999-12-31T23:59:59.000Z');
  });
});

describe('validly signed tokens with claims of the wrong shape answer 401', () => {
  const signed = (claims: Record<string, unknown>) => sign(claims, t.config.jwtSecret, 'HS256');
  const now = () => Math.floor(Date.now() / 1000);

  it('sub or cid not a uuid, an unknown role, no expiry', async () => {
    const { clinic, user } = await admin();
    const base = { sub: user.id, cid: clinic.id, role: 'owner', iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, iat: now(), exp: now() + 3600 };
    // The well-formed token works, so each refusal below is down to the one claim changed.
    expect((await t.request('/api-keys', { token: await signed(base) })).status).toBe(200);
    const { exp: _exp, ...noExpiry } = base;
    for (const claims of [
      { ...base, sub: 'not-a-uuid' },
      { ...base, sub: "1' or '1'='1" },
      { ...base, cid: 'not-a-uuid' },
      { ...base, sub: 42 },
      { ...base, role: 'root' },
      { ...base, role: undefined },
      noExpiry,
    ]) {
      const res = await t.request('/api-keys', { token: await signed(claims) });
      expect(res.status, JSON.stringify(claims)).toBe(401);
      expect((await res.json()).code).toBe('UNAUTHORIZED');
    }
  });
});
