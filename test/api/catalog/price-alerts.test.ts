import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { globalProducts, priceChangeAlerts, programs } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makePriceChangeAlert, makeTenant } from '../../helpers/factories';

const t = useTestApp();
const LIST = '/api/v1/pharmacy-price-changes/alerts';
const ack = (id: string) => `/api/v1/pharmacy-price-changes/alerts/${id}/acknowledge`;

async function tenant() {
  const tenant = await makeTenant(t.db);
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  const [program] = await t.db.insert(programs).values({ clinicId: tenant.clinic.id, name: 'Weight loss', state: 'live' }).returning();
  return { ...tenant, readKey: readOnly.raw, program: program! };
}

async function globalProduct() {
  const slug = `product-${randomUUID().slice(0, 8)}`;
  const [row] = await t.db.insert(globalProducts).values({ name: slug, slug, pharmacyBasePriceCents: 12_900 }).returning();
  return row!;
}

describe('GET /api/v1/pharmacy-price-changes/alerts', () => {
  it('lists open alerts newest first in the alert shape, with count, in one query', async () => {
    const { clinic, readKey, program } = await tenant();
    const product = await globalProduct();
    const older = await makePriceChangeAlert(t.db, clinic.id, {
      programId: program.id,
      globalProductId: product.id,
      direction: 'increase',
      previousPharmacyPriceCents: 12_900,
      newPharmacyPriceCents: 13_900,
      currentProgramFeeCents: 9_900,
      suggestedProgramFeeCents: 10_900,
      perUnitMarginDeltaCents: -1_000,
      createdAt: new Date(Date.now() - 60_000),
    });
    const newer = await makePriceChangeAlert(t.db, clinic.id, { direction: 'decrease', perUnitMarginDeltaCents: 550 });
    await makePriceChangeAlert(t.db, clinic.id, { status: 'acknowledged', acknowledgedAt: new Date() });
    const other = await tenant();
    await makePriceChangeAlert(t.db, other.clinic.id);

    const res = await t.request(LIST, { key: readKey });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.count).toBe(2);
    expect(data.alerts.map((a: { id: string }) => a.id)).toEqual([newer.id, older.id]);
    expect(data.alerts[1]).toEqual({
      id: older.id,
      productId: null,
      programId: program.id,
      globalProductId: product.id,
      direction: 'increase',
      previousPharmacyPrice: 129,
      newPharmacyPrice: 139,
      currentProgramFee: 99,
      suggestedProgramFee: 109,
      perUnitMarginDelta: -10,
      status: 'open',
      acknowledgedAt: null,
      createdAt: older.createdAt.toISOString(),
    });
    expect(data.alerts[0]).toMatchObject({ direction: 'decrease', perUnitMarginDelta: 5.5, currentProgramFee: null });

    await t.flush();
    t.forgetKeys(); // a cold key: the key lookup is counted
    t.queries.length = 0;
    expect((await t.request(LIST, { key: readKey })).status).toBe(200);
    await t.flush();
    expect(t.queries.filter((q) => !q.includes('"request_logs"'))).toHaveLength(2);
  });

  it('filters by status (open by default, acknowledged, all) and caps the list with limit while count stays whole', async () => {
    const { clinic, key } = await tenant();
    for (let i = 0; i < 3; i++) await makePriceChangeAlert(t.db, clinic.id);
    await makePriceChangeAlert(t.db, clinic.id, { status: 'acknowledged', acknowledgedAt: new Date() });
    const get = async (query: string) => (await (await t.request(`${LIST}${query}`, { key })).json()).data;
    expect((await get('')).count).toBe(3);
    expect((await get('?status=open')).count).toBe(3);
    const acknowledged = await get('?status=acknowledged');
    expect(acknowledged.count).toBe(1);
    expect(acknowledged.alerts[0].status).toBe('acknowledged');
    expect(acknowledged.alerts[0].acknowledgedAt).not.toBeNull();
    expect((await get('?status=all')).count).toBe(4);
    const capped = await get('?status=all&limit=2');
    expect(capped.count).toBe(4);
    expect(capped.alerts).toHaveLength(2);
    const none = await tenant();
    expect((await (await t.request(LIST, { key: none.key })).json()).data).toEqual({ count: 0, alerts: [] });
  });

  it('refuses a bad status or limit with 400 naming it', async () => {
    const { key } = await tenant();
    for (const [query, field] of [
      ['?status=closed', 'query.status'],
      ['?limit=0', 'query.limit'],
      ['?limit=201', 'query.limit'],
      ['?limit=x', 'query.limit'],
    ]) {
      const res = await t.request(`${LIST}${query}`, { key });
      expect(res.status, query).toBe(400);
      expect((await res.json()).message, query).toContain(field!);
    }
  });
});

describe('POST /api/v1/pharmacy-price-changes/alerts/{alertId}/acknowledge', () => {
  it('acknowledges an open alert and stays idempotent (the first acknowledgedAt is kept)', async () => {
    const { clinic, key } = await tenant();
    const alert = await makePriceChangeAlert(t.db, clinic.id);
    const res = await t.request(ack(alert.id), { key, method: 'POST' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ id: alert.id, status: 'acknowledged' });
    const [first] = await t.db.select().from(priceChangeAlerts).where(eq(priceChangeAlerts.id, alert.id));
    expect(first!.acknowledgedAt).not.toBeNull();

    t.clock.advance(60_000);
    const again = await t.request(ack(alert.id), { key, method: 'POST' });
    expect(again.status).toBe(200);
    expect((await again.json()).data).toEqual({ id: alert.id, status: 'acknowledged' });
    const [second] = await t.db.select().from(priceChangeAlerts).where(eq(priceChangeAlerts.id, alert.id));
    expect(second!.acknowledgedAt).toEqual(first!.acknowledgedAt);

    const listed = await (await t.request(LIST, { key })).json();
    expect(listed.data.count).toBe(0);
  });

  it("answers the same 404 for another clinic's, an unknown and a malformed id, and leaves the other clinic's alert open", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await makePriceChangeAlert(t.db, other.clinic.id);
    const bodies = [];
    for (const id of [theirs.id, randomUUID(), 'not-a-uuid', '%27%3B--']) {
      const res = await t.request(ack(id), { key, method: 'POST' });
      expect(res.status, id).toBe(404);
      bodies.push(await res.json());
    }
    for (const body of bodies) expect(body).toEqual({ success: false, message: 'Price-change alert not found', code: 'NOT_FOUND' });
    const [row] = await t.db.select().from(priceChangeAlerts).where(eq(priceChangeAlerts.id, theirs.id));
    expect(row!.status).toBe('open');
  });

  it('needs the write scope', async () => {
    const { clinic, readKey } = await tenant();
    const alert = await makePriceChangeAlert(t.db, clinic.id);
    const res = await t.request(ack(alert.id), { key: readKey, method: 'POST' });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
    const [row] = await t.db.select().from(priceChangeAlerts).where(eq(priceChangeAlerts.id, alert.id));
    expect(row!.status).toBe('open');
  });
});
