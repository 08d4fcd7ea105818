// The audit trail over HTTP (docs/audit-log.md): writes by a key or a brand-admin token recorded in
// their own transaction, patient-data reads recorded after the answer, the list, the chain check and
// the CSV export, each clinic seeing only its own.
import { describe, expect, it } from 'vitest';
import { appendAuditEvents } from '../../../src/platform/audit/trail';
import { useTestApp } from '../../helpers/app';
import { tamperAuditRow } from '../../helpers/audit-tamper';
import { makeClinic, makeKey, makeTenant, makeUser, TEST_PASSWORD } from '../../helpers/factories';
import { makeOrder } from '../../helpers/order-fixtures';
import { statementsOf } from '../../helpers/statements';

const t = useTestApp();

const events = async (key: string, query = '') => {
  const res = await t.request(`/api/v1/audit-events${query}`, { key });
  expect(res.status).toBe(200);
  return res.json();
};

describe('writes are audited', () => {
  it('a coupon created and updated by a key: actions, target, actor, changed values', async () => {
    const { key, keyRow } = await makeTenant(t.db);
    const created = await t.request('/api/v1/coupons', {
      key,
      body: { code: 'WELCOME10', discountType: 'percent', discountValue: 10 },
      headers: { 'user-agent': 'integration/1.0', 'cf-connecting-ip': '203.0.113.9' },
    });
    expect(created.status).toBe(201);
    const couponId = (await created.json()).data.id;
    const updated = await t.request(`/api/v1/coupons/${couponId}`, {
      method: 'PUT',
      key,
      body: { discountValue: 15 },
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
    expect(updated.status).toBe(200);
    const { data, pagination } = await events(key);
    expect(pagination.total).toBe(2);
    expect(data[0]).toMatchObject({
      seq: 2,
      action: 'coupon.updated',
      targetType: 'coupon',
      targetId: couponId,
      route: '/api/v1/coupons/{id}',
      actor: { kind: 'key', id: keyRow.id, label: keyRow.keyPrefix },
      changes: { discountValue: { old: 10, new: 15 } },
    });
    expect(data[1]).toMatchObject({
      seq: 1,
      action: 'coupon.created',
      targetId: couponId,
      ip: '203.0.113.9',
      userAgent: 'integration/1.0',
      // The values the route declares (recordedValues); the code is text, named only (docs/audit-log.md).
      changes: { code: { redacted: true }, discountType: { new: 'percent' }, discountValue: { new: 10 } },
    });
    expect(data[1].requestId).toBe(created.headers.get('x-request-id'));
    expect(data[0].prevHash).toBe(data[1].hash);
  });

  it('a refused write leaves no audit row and none of its writes', async () => {
    const { key } = await makeTenant(t.db);
    const res = await t.request('/api/v1/coupons', { key, body: { code: '', discountType: 'percent', discountValue: 10 } });
    expect(res.status).toBe(400);
    expect((await events(key)).pagination.total).toBe(0);
  });

  it('a brand admin token write is audited with the user and their email; free text by name only', async () => {
    const clinic = await makeClinic(t.db);
    const user = await makeUser(t.db, clinic.id, { role: 'owner' });
    const signin = await t.request('/auth/signin', { body: { email: user.email, password: TEST_PASSWORD } });
    const token = (await signin.json()).data.token as string;
    const res = await t.request('/api-keys', { token, body: { name: 'server', scopes: ['read', 'write'] } });
    expect(res.status).toBe(201);
    const reader = await makeKey(t.db, clinic.id);
    const { data } = await events(reader.raw);
    expect(data[0]).toMatchObject({ action: 'api_key.created', actor: { kind: 'user', id: user.id, label: user.email } });
    expect(data[0].changes).toEqual({ name: { redacted: true }, kind: { new: 'secret' }, scopes: { new: ['read', 'write'] } });
    // Nothing of a raw key or secret reaches the trail.
    expect(JSON.stringify(data)).not.toContain('sk_');
  });

  it('adds no statement to a write with an Idempotency-Key (the row rides the kept answer), and BEGIN, INSERT, COMMIT without one', async () => {
    const { key } = await makeTenant(t.db);
    const plain = await statementsOf(t, () =>
      t.request('/api/v1/coupons', { key, body: { code: 'SAVEA001', discountType: 'percent', discountValue: 5 } }),
    );
    const keyed = await statementsOf(t, () =>
      t.request('/api/v1/coupons', {
        key,
        body: { code: 'SAVEA002', discountType: 'percent', discountValue: 5 },
        headers: { 'Idempotency-Key': 'k-1' },
      }),
    );
    const audit = (all: string[]) => all.filter((s) => s.includes('insert into "audit_events"')).length;
    expect([plain.status, keyed.status]).toEqual([201, 201]);
    expect([audit(plain.all), audit(keyed.all)]).toEqual([1, 1]);
    // Measured: without a key 2 -> 5 statements (the key lookup, BEGIN, the coupon, the audit row, COMMIT);
    // with one (key cached) 5 -> 5 (BEGIN, the claim, the coupon, the kept answer with the audit row, COMMIT).
    const shown = (all: string[]) =>
      all.filter((s) => !s.includes('"request_logs"')).map((s) => s.trim().split(/\s+/).slice(0, 3).join(' '));
    expect(shown(plain.all)).toEqual([
      'select "api_keys"."id", "api_keys"."clinic_id",',
      'begin',
      'insert into "coupons"',
      'insert into "audit_events"',
      'commit',
    ]);
    expect(shown(keyed.all)).toEqual(['begin', 'insert into idempotency_keys', 'insert into "coupons"', 'with audit as', 'commit']);
    expect((await events(key, '?action=coupon.created')).pagination.total).toBe(2);
  });
});

describe('patient-data reads are audited', () => {
  it('order detail: one patient_data.read row naming the order, written after the answer', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id);
    expect((await t.request(`/api/v1/orders/${order.id}`, { key })).status).toBe(200);
    await t.flush();
    const { data } = await events(key, '?action=patient_data.read');
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ targetType: 'order', targetId: order.id, route: '/api/v1/orders/{id}', changes: {} });
  });
});

describe('GET /api/v1/audit-events', () => {
  it('filters, pages, and shows another clinic nothing', async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    const base = { actorKind: 'key' as const, actorId: 'k1', targetType: 'coupon' };
    await appendAuditEvents(t.db, [
      { ...base, clinicId: a.clinic.id, action: 'coupon.created', targetId: 'c1', createdAt: new Date('2030-01-01T00:00:00Z') },
      { ...base, clinicId: a.clinic.id, action: 'coupon.updated', targetId: 'c1', createdAt: new Date('2030-01-02T00:00:00Z') },
      {
        ...base,
        clinicId: a.clinic.id,
        action: 'coupon.updated',
        targetId: 'c2',
        actorId: 'k2',
        createdAt: new Date('2030-01-03T00:00:00Z'),
      },
      { ...base, clinicId: b.clinic.id, action: 'coupon.updated', targetId: 'c1', createdAt: new Date('2030-01-02T00:00:00Z') },
    ]);
    expect((await events(a.key, '?targetId=c1')).data.map((e: { action: string }) => e.action)).toEqual([
      'coupon.updated',
      'coupon.created',
    ]);
    expect((await events(a.key, '?actorId=k2')).pagination.total).toBe(1);
    expect((await events(a.key, '?action=coupon.updated&limit=1')).pagination).toMatchObject({ total: 2, totalPages: 2 });
    expect((await events(a.key, '?createdGte=2030-01-02T00:00:00Z&createdLte=2030-01-02T23:00:00Z')).pagination.total).toBe(1);
    expect((await events(b.key)).pagination.total).toBe(1);
  });

  it("numbers each clinic's events on their own (list, verify, export): another clinic's writes leave no gap", async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    // Interleaved through the API: a, b, b, a, b, a.
    for (const [n, tenant] of [a, b, b, a, b, a].entries()) {
      const res = await t.request('/api/v1/tags', { key: tenant.key, body: { name: `Tag ${n}`, color: '#112233' } });
      expect(res.status).toBe(201);
    }
    const ids = async (key: string) => (await events(key)).data.map((e: { id: string; seq: number }) => [e.id, e.seq]);
    expect(await ids(a.key)).toEqual([
      ['3', 3],
      ['2', 2],
      ['1', 1],
    ]);
    expect(await ids(b.key)).toEqual([
      ['3', 3],
      ['2', 2],
      ['1', 1],
    ]);
    const csv = await (await t.request('/api/v1/audit-events/export', { key: a.key })).text();
    expect(
      csv
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',')[0]),
    ).toEqual(['"1"', '"2"', '"3"']);
  });

  it('refuses bad filters naming the field; a sandbox key sees its own clinic', async () => {
    const { key } = await makeTenant(t.db);
    const res = await t.request('/api/v1/audit-events?createdGte=yesterday', { key });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain('createdGte');
    const sandbox = await makeTenant(t.db, { mode: 'sandbox' });
    expect((await t.request('/api/v1/audit-events', { key: sandbox.key })).status).toBe(200);
    expect((await t.request('/api/v1/audit-events')).status).toBe(401);
  });
});

describe('GET /api/v1/audit-events/verify', () => {
  it('answers intact, then the first row edited behind the API', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const base = { clinicId: clinic.id, actorKind: 'key' as const, actorId: 'k1', targetType: 'coupon', action: 'coupon.updated' };
    await appendAuditEvents(
      t.db,
      [1, 2, 3].map((n) => ({ ...base, targetId: `c${n}`, changes: { discountValue: { new: n } } })),
    );
    const intact = await t.request('/api/v1/audit-events/verify', { key });
    expect((await intact.json()).data).toEqual({ intact: true, checked: 3, brokenAt: null });
    const secondId = await tamperAuditRow(t.db, clinic.id, 2, { discountValue: { 'new': 99 } });
    const broken = await t.request('/api/v1/audit-events/verify', { key });
    expect((await broken.json()).data).toEqual({ intact: false, checked: 2, brokenAt: { id: secondId, seq: 2 } });
  });
});

describe('GET /api/v1/audit-events/export', () => {
  it('answers CSV of the range, every text cell quoted and formula cells neutralised', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await appendAuditEvents(t.db, [
      {
        clinicId: clinic.id,
        actorKind: 'key',
        actorId: 'k1',
        targetType: 'coupon',
        action: 'coupon.created',
        targetId: '=HYPERLINK("x")',
        // The issue 37 review's User-Agent: formula cells where ; is the list separator.
        userAgent: 'Mozilla/5.0;=1+1;@SUM(A1:A9)',
      },
    ]);
    const res = await t.request('/api/v1/audit-events/export?createdGte=2000-01-01T00:00:00Z', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const text = await res.text();
    expect(text.split('\r\n')[0]).toBe(
      '"id","seq","createdAt","actorKind","actorId","actorLabel","ip","userAgent","requestId","action","route","targetType","targetId","changes","prevHash","hash"',
    );
    expect(text).toContain(`"Mozilla/5.0;'=1+1;'@SUM(A1:A9)"`);
    expect(text).toContain(`"'=HYPERLINK(""x"")"`);
    // A spreadsheet splitting rows at ; (or ,) whatever the quoting says finds no cell it would run.
    const cells = text.split('\r\n').flatMap((line) => line.split(/[;,]/));
    expect(cells.filter((cell) => /^[ "]*[=+\-@]/.test(cell))).toEqual([]);
  });
});
