// A read request may make two database round trips: the key (or token user) lookup and its query.
// The request log is written after the response and is not counted.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant, makeUser, TEST_PASSWORD } from '../../helpers/factories';
import { countStatements, statementsOf } from '../../helpers/statements';

const t = useTestApp();

const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

describe('database round trips per request', () => {
  it('GET /api/v1/me: one (the key lookup, which also brings the plan)', async () => {
    const { key } = await makeTenant(t.db);
    expect(await statements(() => t.request('/api/v1/me', { key }))).toEqual({ status: 200, count: 1 });
  });

  it('a refused request costs the key lookup at most, and a made-up key nothing', async () => {
    const { clinic } = await makeTenant(t.db);
    const { raw } = await makeKey(t.db, clinic.id, { kind: 'publishable' });
    expect(await statements(() => t.request('/api/v1/me', { key: raw }))).toEqual({ status: 403, count: 1 });
    expect(await statements(() => t.request('/api/v1/me', { key: 'svc_live_unknown' }))).toEqual({ status: 401, count: 0 });
  });

  it('GET /api-keys: two (the token user, then the page with its total)', async () => {
    const { clinic } = await makeTenant(t.db);
    const user = await makeUser(t.db, clinic.id);
    const signIn = await t.request('/auth/signin', { body: { email: user.email, password: TEST_PASSWORD } });
    const { token } = (await signIn.json()).data;
    expect(await statements(() => t.request('/api-keys', { token }))).toEqual({ status: 200, count: 2 });
  });

  it('POST /api/v1/coupons: the insert and its audit row in one transaction; with an Idempotency-Key, the claim and the answer too', async () => {
    const { key } = await makeTenant(t.db);
    // Warm: the key lookup is not counted.
    await t.request('/api/v1/me', { key });
    const body = () => ({ code: `RT${Math.random().toString(36).slice(2, 10).toUpperCase()}`, discountType: 'percent', discountValue: 10 });
    const without = await statementsOf(t, () => t.request('/api/v1/coupons', { key, body: body() }));
    expect(without.status).toBe(201);
    // Before the audit trail: 1 statement. Now begin; the coupon; its audit row; commit (docs/audit-log.md).
    const shown = (all: string[]) =>
      all.filter((q) => !q.includes('"request_logs"')).map((q) => q.trim().split(/\s+/).slice(0, 3).join(' ').toLowerCase());
    expect(shown(without.all)).toEqual(['begin', 'insert into "coupons"', 'insert into "audit_events"', 'commit']);

    const headers = { 'idempotency-key': crypto.randomUUID() };
    const first = await statementsOf(t, () => t.request('/api/v1/coupons', { key, body: body(), headers }));
    expect(first.status).toBe(201);
    const sent = first.all
      .filter((q) => !q.includes('"request_logs"'))
      .map((q) => q.trim().split(/\s+/).slice(0, 3).join(' ').toLowerCase());
    // begin; claim; the coupon; the answer with its audit row (one statement, a data-modifying WITH);
    // commit: 5 statements and 5 sequential round trips on node-postgres, as before the audit trail.
    expect(sent).toEqual(['begin', 'insert into idempotency_keys', 'insert into "coupons"', 'with audit as', 'commit']);
    expect(first.all.find((q) => q.startsWith('with audit as'))).toMatch(
      /^with audit as \(insert into "audit_events" .*\) update "idempotency_keys" set/s,
    );
  });
});
