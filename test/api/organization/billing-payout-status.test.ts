// GET /api/v1/stripe/connect/status: the payout account, cached in payout_accounts for 5 minutes, and
// the development simulator POST /api/v1/_dev/payout-account (docs/billing.md, "Payout account").
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { payoutAccounts } from '../../../drizzle/schema';
import { type BillingProcessor, DevelopmentBillingProcessor, type PayoutAccountState } from '../../../src/platform/providers/billing';
import { processorUnavailable } from '../../../src/platform/providers/payments/types';
import { buildTestApp, type TestApp, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

let processor: CountingProcessor;
// Every request of these apps reaches the billing processor through this counting one (the providers' door).
const t = useTestApp({
  providers: (db) => {
    processor = new CountingProcessor(new DevelopmentBillingProcessor(db));
    return { billing: () => processor };
  },
});
const MINUTE = 60_000;

/** The development processor, counting its account reads per account; `fail` makes the next reads 503. */
class CountingProcessor implements BillingProcessor {
  readonly name = 'counting';
  readonly reads = new Map<string, number>();
  fail = false;
  constructor(private readonly inner: DevelopmentBillingProcessor) {}
  retrieveAccount(
    input: { clinicId: string; processorAccountId: string },
    context?: Parameters<BillingProcessor['retrieveAccount']>[1],
  ): Promise<PayoutAccountState> {
    this.reads.set(input.processorAccountId, (this.reads.get(input.processorAccountId) ?? 0) + 1);
    if (this.fail) return Promise.reject(processorUnavailable('test outage'));
    return this.inner.retrieveAccount(input, context);
  }
  changePlan: BillingProcessor['changePlan'] = (input, context) => this.inner.changePlan(input, context);
  cancelSubscription: BillingProcessor['cancelSubscription'] = (input, context) => this.inner.cancelSubscription(input, context);
}

let dev: TestApp;
beforeAll(() => {
  dev = buildTestApp(t.db, t.databaseUrl, { clock: t.clock, providers: { billing: () => processor } });
  dev.config.devSimulator = true;
});

const status = (key: string, app: TestApp = t) => app.request('/api/v1/stripe/connect/status', { key });

async function account(clinicId: string, values: Partial<typeof payoutAccounts.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(payoutAccounts)
    .values({ clinicId, processorAccountId: `acct_dev_${randomUUID().replace(/-/g, '').slice(0, 24)}`, ...values })
    .returning();
  return row!;
}

describe('GET /api/v1/stripe/connect/status', () => {
  it('a clinic without an account: not_connected, isConnected false, never checked; no processor call', async () => {
    const { key } = await makeTenant(t.db);
    const readsBefore = [...processor.reads.values()].reduce((a, b) => a + b, 0);
    const res = await status(key);
    expect(res.status).toBe(200);
    expect([...processor.reads.values()].reduce((a, b) => a + b, 0)).toBe(readsBefore);
    expect((await res.json()).data).toEqual({
      status: 'not_connected',
      chargesEnabled: false,
      payoutsEnabled: false,
      detailsSubmitted: false,
      requirementsDue: [],
      isConnected: false,
      checkedAt: null,
    });
  });

  it('reads the processor once per 5 minutes: the first call and then only after the cache is 5 minutes old', async () => {
    const start = Date.now();
    t.clock.freezeAt(start);
    const { key, clinic } = await makeTenant(t.db);
    const row = await account(clinic.id, { status: 'pending', requirementsDue: ['external_account'] });
    const reads = () => processor.reads.get(row.processorAccountId) ?? 0;

    const first = await status(key);
    expect((await first.json()).data).toEqual({
      status: 'pending',
      chargesEnabled: false,
      payoutsEnabled: false,
      detailsSubmitted: false,
      requirementsDue: ['external_account'],
      isConnected: true,
      checkedAt: new Date(start).toISOString(),
    });
    expect(reads()).toBe(1);

    t.clock.advance(MINUTE);
    expect((await (await status(key)).json()).data.checkedAt).toBe(new Date(start).toISOString());
    t.clock.advance(4 * MINUTE - 1);
    await status(key);
    expect(reads()).toBe(1);

    t.clock.advance(1); // exactly 5 minutes after the read
    expect((await (await status(key)).json()).data.checkedAt).toBe(new Date(start + 5 * MINUTE).toISOString());
    expect(reads()).toBe(2);
    const [stored] = await t.db.select().from(payoutAccounts).where(eq(payoutAccounts.clinicId, clinic.id));
    expect(stored!.statusCheckedAt!.getTime()).toBe(start + 5 * MINUTE);
  });

  it('a cached answer is one query after the key lookup', async () => {
    const { key, clinic } = await makeTenant(t.db);
    await account(clinic.id, {
      status: 'active',
      chargesEnabled: true,
      payoutsEnabled: true,
      detailsSubmitted: true,
      statusCheckedAt: new Date(),
    });
    await t.flush();
    t.queries.length = 0;
    const res = await status(key);
    await t.flush();
    expect((await res.json()).data.status).toBe('active');
    expect(t.queries.filter((q) => !q.includes('"request_logs"'))).toHaveLength(2);
  });

  it('answers the cached values when the processor is down, and reads it again on the next call', async () => {
    const start = Date.now();
    t.clock.freezeAt(start);
    const { key, clinic } = await makeTenant(t.db);
    const checkedAt = new Date(start - 10 * MINUTE);
    const row = await account(clinic.id, {
      status: 'restricted',
      chargesEnabled: true,
      detailsSubmitted: true,
      statusCheckedAt: checkedAt,
    });
    processor.fail = true;
    try {
      const res = await status(key);
      expect(res.status).toBe(200);
      expect((await res.json()).data).toMatchObject({ status: 'restricted', chargesEnabled: true, checkedAt: checkedAt.toISOString() });
    } finally {
      processor.fail = false;
    }
    expect((await (await status(key)).json()).data.checkedAt).toBe(new Date(start).toISOString());
    expect(processor.reads.get(row.processorAccountId)).toBe(2);
  });

  it("tenant isolation: each key sees its own clinic's account only", async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    await account(a.clinic.id, { status: 'active', chargesEnabled: true, payoutsEnabled: true, detailsSubmitted: true });
    expect((await (await status(a.key)).json()).data.status).toBe('active');
    expect((await (await status(b.key)).json()).data).toMatchObject({ status: 'not_connected', isConnected: false });
  });
});

describe('POST /api/v1/_dev/payout-account (development simulator)', () => {
  const simulate = (app: TestApp, key: string, body: unknown) => app.request('/api/v1/_dev/payout-account', { method: 'POST', key, body });

  it('does not exist without DEV_SIMULATOR', async () => {
    const { key } = await makeTenant(t.db);
    const res = await simulate(t, key, { status: 'active' });
    expect(res.status).toBe(404);
    expect((await res.json()).message).toBe('No route for POST /api/v1/_dev/payout-account');
  });

  it('creates a development account, then moves it; the status route shows what it set', async () => {
    const { key, clinic } = await makeTenant(t.db);
    const created = await simulate(dev, key, { status: 'pending' });
    expect(created.status).toBe(200);
    const { data } = await created.json();
    expect(data.processorAccountId).toMatch(/^acct_dev_[A-Za-z0-9]{24}$/);
    expect((await (await status(key, dev)).json()).data).toMatchObject({ status: 'pending', detailsSubmitted: false, isConnected: true });

    t.clock.advance(6 * MINUTE);
    expect((await simulate(dev, key, { status: 'active' })).status).toBe(200);
    t.clock.advance(6 * MINUTE);
    expect((await (await status(key, dev)).json()).data).toMatchObject({
      status: 'active',
      chargesEnabled: true,
      payoutsEnabled: true,
      requirementsDue: [],
    });
    const rows = await t.db.select().from(payoutAccounts).where(eq(payoutAccounts.clinicId, clinic.id));
    expect(rows.map((r) => r.processorAccountId)).toEqual([data.processorAccountId]);
  });

  it('400 for an unknown status; 403 for a read-only key', async () => {
    const { key } = await makeTenant(t.db);
    expect((await simulate(dev, key, { status: 'verified' })).status).toBe(400);
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await simulate(dev, readOnly.raw, { status: 'active' })).status).toBe(403);
  });
});
