import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../../../drizzle/schema';
import { readToken } from '../../../src/platform/auth/jwt';
import { SIGN_IN_ACCOUNT, SIGN_IN_ATTEMPTS } from '../../../src/platform/rate-limit/policy';
import { useTestApp } from '../../helpers/app';
import { makeClinic, makeUser, TEST_PASSWORD } from '../../helpers/factories';

const t = useTestApp();

describe('POST /auth/signin', () => {
  it('returns a brand-admin token, its expiry and the user', async () => {
    const clinic = await makeClinic(t.db);
    const user = await makeUser(t.db, clinic.id, { role: 'owner' });
    const res = await t.request('/auth/signin', { body: { email: user.email.toUpperCase(), password: TEST_PASSWORD } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.success).toBe(true);
    expect(body.data.user).toEqual({
      id: user.id,
      clinicId: clinic.id,
      email: user.email,
      firstName: 'Test',
      lastName: 'User',
      role: 'owner',
    });
    expect(new Date(body.data.expiresAt).getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);
    expect(await readToken(body.data.token, t.config.jwtSecret)).toEqual({ userId: user.id, clinicId: clinic.id, role: 'owner' });
    expect(body.data.user).not.toHaveProperty('passwordHash');
    await t.flush();
    const [row] = await t.db.select().from(users).where(eq(users.id, user.id));
    expect(row!.lastSignInAt).not.toBeNull();
  });

  it('answers the same 401 for an unknown email, a wrong password and a deactivated user', async () => {
    const clinic = await makeClinic(t.db);
    const user = await makeUser(t.db, clinic.id);
    const inactive = await makeUser(t.db, clinic.id, { isActive: false });
    const attempts = [
      { email: 'nobody@example.test', password: TEST_PASSWORD },
      { email: user.email, password: 'wrong password' },
      { email: inactive.email, password: TEST_PASSWORD },
      { email: 'not an email', password: 'x' },
    ];
    const bodies = new Set<string>();
    for (const attempt of attempts) {
      const res = await t.request('/auth/signin', { body: attempt, headers: { 'cf-connecting-ip': '198.51.100.7' } });
      expect(res.status).toBe(401);
      bodies.add(await res.text());
    }
    expect(bodies.size).toBe(1);
    expect([...bodies][0]).toContain('"code":"UNAUTHORIZED"');
  });

  it('answers 400 naming the field for a malformed body, and 400 for bad JSON', async () => {
    const res = await t.request('/auth/signin', { body: { email: 'a@b.test' } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.message).toContain('body.password');
    const bad = await t.request('/auth/signin', { body: '{"email":' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).code).toBe('INVALID_JSON');
  });

  it('throttles repeated attempts for one email from one address', async () => {
    t.clock.freezeAtWindowStart(900);
    const headers = { 'cf-connecting-ip': '203.0.113.99' };
    const body = { email: 'target@example.test', password: 'guess' };
    for (let i = 0; i < 10; i++) expect((await t.request('/auth/signin', { body, headers })).status).toBe(401);
    const res = await t.request('/auth/signin', { body, headers });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await res.json()).code).toBe('RATE_LIMIT_EXCEEDED');
    // Another address is not affected.
    expect((await t.request('/auth/signin', { body, headers: { 'cf-connecting-ip': '203.0.113.100' } })).status).toBe(401);
  });
});

describe('sign-in limits across addresses', () => {
  it('caps attempts per account from any number of addresses, and reports the tighter limit in the headers', async () => {
    t.clock.freezeAtWindowStart(900);
    const body = { email: `spread-${crypto.randomUUID()}@example.test`, password: 'guess' };
    // 30 attempts from 10 addresses, 3 each: under the per-address-and-account limit (10) everywhere.
    for (let i = 0; i < SIGN_IN_ACCOUNT.limit; i++) {
      const res = await t.request('/auth/signin', { body, headers: { 'cf-connecting-ip': `203.0.113.${i % 10}` } });
      expect(res.status, `attempt ${i}`).toBe(401);
      if (i === 0) {
        // First attempt from an address: 9 left there, 29 left for the account; the address's 9 bind.
        expect(res.headers.get('ratelimit-remaining')).toBe(String(SIGN_IN_ATTEMPTS.limit - 1));
        expect(res.headers.get('ratelimit-policy')).toBe('120;w=60, 10;w=900, 30;w=900');
      }
      if (i === SIGN_IN_ACCOUNT.limit - 1) {
        // The account's budget is now the tighter one: 0 left, although this address has 7 left.
        expect(res.headers.get('ratelimit-limit')).toBe(String(SIGN_IN_ACCOUNT.limit));
        expect(res.headers.get('ratelimit-remaining')).toBe('0');
      }
    }
    const fresh = await t.request('/auth/signin', { body, headers: { 'cf-connecting-ip': '203.0.113.200' } });
    expect(fresh.status).toBe(429);
    expect((await fresh.json()).code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(fresh.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another account from the same addresses is unaffected.
    const other = await t.request('/auth/signin', {
      body: { ...body, email: 'someone-else@example.test' },
      headers: { 'cf-connecting-ip': '203.0.113.1' },
    });
    expect(other.status).toBe(401);
  });
});
