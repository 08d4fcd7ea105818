// The production billing processor (StripeBillingProcessor: the official `stripe` client on its fetch HTTP
// client) against test/tooling/stripe-billing-stand-in.ts, a local stand-in for Stripe's accounts,
// subscriptions and prices that records every request; then the billing routes end to end on the adapter,
// and the processor choice (providersFor's billing).
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clinics, payoutAccounts, plans, platformSubscriptions } from '../../drizzle/schema';
import { ConfigError } from '../../src/config';
import { ProviderError, providerFailure } from '../../src/platform/http/provider-errors';
import { providersFor } from '../../src/platform/providers';
import { DevelopmentBillingProcessor, planLookupKey, StripeBillingProcessor } from '../../src/platform/providers/billing';
import type { ApiError } from '../../src/platform/values/errors';
import { testConfig, useTestApp } from '../helpers/app';
import { makeTenant } from '../helpers/factories';
import { type StripeBillingStandIn, startStripeBillingStandIn } from '../tooling/stripe-billing-stand-in';

// The app's billing processor is the Stripe adapter on the stand-in (through the providers' door).
const t = useTestApp({ providers: () => ({ billing: () => adapter() }) });
const DAY = 86_400_000;
let stand: StripeBillingStandIn;
beforeAll(async () => {
  stand = await startStripeBillingStandIn();
});
afterAll(() => stand?.close());

const adapter = (options: { secretKey?: string } = {}) =>
  new StripeBillingProcessor({
    secretKey: options.secretKey ?? stand.secretKey,
    host: stand.host,
    port: stand.port,
    protocol: stand.protocol,
    maxNetworkRetries: 0,
    timeoutMs: 3_000,
  });

/** The adapter's failure (a ProviderError), as the API answers it. */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return providerFailure(error as ProviderError);
}

const since = (n: number) => stand.requests.slice(n);
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Two plans with prices at the stand-in (lookup keys plan_<code>) and a subscription on the first. */
function stripePlans(
  prices: { basic?: number; growth?: number } = {},
  period = { start: new Date(Date.UTC(2030, 0, 1)), end: new Date(Date.UTC(2030, 1, 1)) },
) {
  const suffix = randomUUID().slice(0, 8);
  const basic = { id: randomUUID(), code: `basic-${suffix}`, name: 'Basic', monthlyPriceCents: 19_900 };
  const growth = { id: randomUUID(), code: `growth-${suffix}`, name: 'Growth', monthlyPriceCents: 49_900 };
  const basicPrice = stand.addPrice(planLookupKey(basic.code), prices.basic ?? basic.monthlyPriceCents);
  stand.addPrice(planLookupKey(growth.code), prices.growth ?? growth.monthlyPriceCents);
  const subscription = stand.addSubscription({ priceId: basicPrice, periodStart: period.start, periodEnd: period.end });
  return { basic, growth, subscription, start: period.start };
}

describe('StripeBillingProcessor against the stand-in', () => {
  it('retrieveAccount: GET /v1/accounts/{id}, mapped to the payout_accounts status set', async () => {
    const active = stand.addAccount({ charges_enabled: true, payouts_enabled: true, details_submitted: true });
    const pending = stand.addAccount({ currentlyDue: ['external_account', 'business_profile.url'], pastDue: ['external_account'] });
    const restricted = stand.addAccount({ charges_enabled: true, details_submitted: true, currentlyDue: ['individual.id_number'] });
    const before = stand.requests.length;
    expect(await adapter().retrieveAccount({ clinicId: randomUUID(), processorAccountId: active.id })).toEqual({
      status: 'active',
      chargesEnabled: true,
      payoutsEnabled: true,
      detailsSubmitted: true,
      requirementsDue: [],
    });
    expect(await adapter().retrieveAccount({ clinicId: randomUUID(), processorAccountId: pending.id })).toEqual({
      status: 'pending',
      chargesEnabled: false,
      payoutsEnabled: false,
      detailsSubmitted: false,
      requirementsDue: ['external_account', 'business_profile.url'],
    });
    expect((await adapter().retrieveAccount({ clinicId: randomUUID(), processorAccountId: restricted.id })).status).toBe('restricted');
    const sent = since(before);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/accounts/${active.id}`,
      `GET /v1/accounts/${pending.id}`,
      `GET /v1/accounts/${restricted.id}`,
    ]);
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${stand.secretKey}`);
  });

  it('retrieveAccount: an account Stripe does not know is not_connected; a bad key is 502, an outage 503', async () => {
    expect(await adapter().retrieveAccount({ clinicId: randomUUID(), processorAccountId: 'acct_gone' })).toMatchObject({
      status: 'not_connected',
      detailsSubmitted: false,
    });
    const account = stand.addAccount();
    expect(
      (await failure(adapter({ secretKey: 'sk_test_wrong' }).retrieveAccount({ clinicId: randomUUID(), processorAccountId: account.id })))
        .status,
    ).toBe(502);
    stand.failNext(500, { type: 'api_error', message: 'boom' });
    const down = await failure(adapter().retrieveAccount({ clinicId: randomUUID(), processorAccountId: account.id }));
    expect([down.status, down.code]).toEqual([503, 'PAYMENT_PROCESSOR_UNAVAILABLE']);
  });

  it('changePlan: the item moves to the plan price found by lookup key, prorated now and invoiced at once, idempotently', async () => {
    const { growth, subscription, start } = stripePlans();
    const clinicId = randomUUID();
    const input = {
      clinicId,
      processorSubscriptionId: subscription.id,
      plan: growth,
      prorationDate: new Date(Date.UTC(2030, 0, 11, 12, 0, 0, 700)),
      idempotencyKey: `plan-change:${randomUUID()}`,
    };
    const before = stand.requests.length;
    const state = await adapter().changePlan(input);
    expect(state).toEqual({
      processorSubscriptionId: subscription.id,
      status: 'active',
      currentPeriodStart: start,
      currentPeriodEnd: new Date(Date.UTC(2030, 1, 1)),
    });
    const sent = since(before);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/subscriptions/${subscription.id}`,
      'GET /v1/prices',
      `POST /v1/subscriptions/${subscription.id}`,
    ]);
    expect(Object.values(sent[1]!.query)).toContain(planLookupKey(growth.code));
    expect(sent[2]!.form).toEqual({
      'items[0][id]': subscription.itemId,
      'items[0][price]': stand.subscriptions.get(subscription.id)!.priceId,
      proration_behavior: 'always_invoice',
      proration_date: String(seconds(input.prorationDate)),
      'metadata[clinic_id]': clinicId,
      'metadata[plan_code]': growth.code,
    });
    expect(sent[2]!.headers['idempotency-key']).toBe(input.idempotencyKey);

    // The same key again: Stripe replays the first answer and changes nothing.
    const firstUpdate = stand.subscriptions.get(subscription.id)!.lastUpdate;
    expect(await adapter().changePlan(input)).toEqual(state);
    expect(stand.subscriptions.get(subscription.id)!.lastUpdate).toBe(firstUpdate);
    expect(stand.requests.at(-1)!.headers['idempotency-key']).toBe(input.idempotencyKey);
    // Another key with other parameters would be a new change; the same key with other parameters is refused.
    const other = await failure(adapter().changePlan({ ...input, prorationDate: new Date(Date.UTC(2030, 0, 12)) }));
    expect(other.status).toBe(502);
  });

  it('changePlan refuses (502) a plan without a price, a price that differs from the plan, and a cancelled subscription; 503 on an outage', async () => {
    const { growth, subscription } = stripePlans({ growth: 45_000 });
    const base = {
      clinicId: randomUUID(),
      processorSubscriptionId: subscription.id,
      prorationDate: new Date(),
      idempotencyKey: randomUUID(),
    };
    const noPrice = await failure(adapter().changePlan({ ...base, plan: { ...growth, code: 'nothing-here' } }));
    expect([noPrice.status, noPrice.code]).toEqual([502, 'PAYMENT_PROCESSOR_ERROR']);
    expect(noPrice.message).toContain('plan_nothing-here');
    expect((await failure(adapter().changePlan({ ...base, plan: growth }))).message).toContain('45000 cents');

    const cancelled = stripePlans();
    stand.subscriptions.get(cancelled.subscription.id)!.status = 'canceled';
    expect(
      (await failure(adapter().changePlan({ ...base, processorSubscriptionId: cancelled.subscription.id, plan: cancelled.growth }))).status,
    ).toBe(502);
    expect((await failure(adapter().changePlan({ ...base, processorSubscriptionId: 'sub_unknown', plan: growth }))).status).toBe(502);

    stand.failNext(503, { type: 'api_error', message: 'down' });
    expect((await failure(adapter().changePlan({ ...base, plan: growth }))).code).toBe('PAYMENT_PROCESSOR_UNAVAILABLE');
  });

  it('cancelSubscription: DELETE /v1/subscriptions/{id}; an already cancelled one is answered without a second DELETE', async () => {
    const { subscription } = stripePlans();
    const input = { clinicId: randomUUID(), processorSubscriptionId: subscription.id, idempotencyKey: `cancel:${randomUUID()}` };
    const before = stand.requests.length;
    expect((await adapter().cancelSubscription(input)).status).toBe('cancelled');
    expect((await adapter().cancelSubscription(input)).status).toBe('cancelled');
    expect(since(before).map((r) => r.method)).toEqual(['GET', 'DELETE', 'GET']);
    expect(stand.subscriptions.get(subscription.id)!.status).toBe('canceled');
  });
});

describe('the billing routes on the Stripe adapter', () => {
  /** A clinic on basic whose subscription is the stand-in's, its period around the test clock. */
  async function stripeTenant() {
    const start = new Date(Math.floor(Date.now() / DAY) * DAY - 10 * DAY);
    const end = new Date(start.getTime() + 30 * DAY);
    const { basic, growth, subscription } = stripePlans({}, { start, end });
    await t.db.insert(plans).values([
      { ...basic, entitlements: [] },
      { ...growth, entitlements: ['affiliates'] },
    ]);
    const tenant = await makeTenant(t.db);
    await t.db.update(clinics).set({ planId: basic.id }).where(eq(clinics.id, tenant.clinic.id));
    const [row] = await t.db
      .insert(platformSubscriptions)
      .values({
        clinicId: tenant.clinic.id,
        planId: basic.id,
        currentPeriodStart: start,
        currentPeriodEnd: end,
        processorSubscriptionId: subscription.id,
      })
      .returning();
    return { ...tenant, basic, growth, subscription, row: row! };
  }

  it('POST /billing/change calls Stripe, then records the plan on the subscription and the clinic', async () => {
    const { key, clinic, growth, subscription, row } = await stripeTenant();
    const res = await t.request('/api/v1/billing/change', { key, body: { newPlanId: growth.id } });
    expect(res.status).toBe(200);
    expect((await res.json()).data.entitlements).toEqual(['affiliates']);
    const updated = stand.subscriptions.get(subscription.id)!;
    expect(updated.metadata).toEqual({ clinic_id: clinic.id, plan_code: growth.code });
    expect(updated.lastUpdate!.proration_behavior).toBe('always_invoice');
    const [stored] = await t.db.select().from(platformSubscriptions).where(eq(platformSubscriptions.id, row.id));
    expect(stored!.planId).toBe(growth.id);
    expect((await t.db.select().from(clinics).where(eq(clinics.id, clinic.id)))[0]!.planId).toBe(growth.id);
  });

  it('a processor refusal answers 502 and writes nothing; an outage 503 with Retry-After', async () => {
    const { key, clinic, growth, basic, row } = await stripeTenant();
    stand.failNext(400, { type: 'invalid_request_error', message: 'card declined', code: 'card_declined' });
    const refused = await t.request('/api/v1/billing/change', { key, body: { newPlanId: growth.id } });
    expect([refused.status, (await refused.json()).code]).toEqual([502, 'PAYMENT_PROCESSOR_ERROR']);
    stand.failNext(500, { type: 'api_error', message: 'down' });
    const down = await t.request('/api/v1/billing/cancel', { key, method: 'POST' });
    expect([down.status, down.headers.get('retry-after')]).toEqual([503, '5']);
    const [stored] = await t.db.select().from(platformSubscriptions).where(eq(platformSubscriptions.id, row.id));
    expect([stored!.planId, stored!.status, stored!.needsSync]).toEqual([basic.id, 'active', false]);
    expect((await t.db.select().from(clinics).where(eq(clinics.id, clinic.id)))[0]).toMatchObject({ planId: basic.id, isActive: true });
  });

  it('POST /billing/cancel cancels at Stripe, then deactivates the clinic', async () => {
    const { key, clinic, subscription } = await stripeTenant();
    expect((await t.request('/api/v1/billing/cancel', { key, method: 'POST' })).status).toBe(200);
    expect(stand.subscriptions.get(subscription.id)!.status).toBe('canceled');
    expect((await t.db.select().from(clinics).where(eq(clinics.id, clinic.id)))[0]!.isActive).toBe(false);
    expect((await t.request('/api/v1/me', { key })).status).toBe(401);
  });

  it('GET /stripe/connect/status asks Stripe once per 5 minutes', async () => {
    const now = Date.now();
    t.clock.freezeAt(now);
    const { key, clinic } = await makeTenant(t.db);
    const remote = stand.addAccount({ currentlyDue: ['external_account'] });
    await t.db.insert(payoutAccounts).values({ clinicId: clinic.id, processorAccountId: remote.id });
    const calls = () => stand.requests.filter((r) => r.path === `/v1/accounts/${remote.id}`).length;

    expect((await (await t.request('/api/v1/stripe/connect/status', { key })).json()).data).toMatchObject({
      status: 'pending',
      requirementsDue: ['external_account'],
    });
    Object.assign(remote, {
      charges_enabled: true,
      payouts_enabled: true,
      details_submitted: true,
      requirements: { currently_due: [], past_due: [], disabled_reason: null },
    });
    t.clock.advance(4 * 60_000);
    expect((await (await t.request('/api/v1/stripe/connect/status', { key })).json()).data.status).toBe('pending');
    expect(calls()).toBe(1);
    t.clock.advance(60_000);
    expect((await (await t.request('/api/v1/stripe/connect/status', { key })).json()).data).toMatchObject({
      status: 'active',
      isConnected: true,
      requirementsDue: [],
    });
    expect(calls()).toBe(2);
  });
});

describe("the providers' billing choice", () => {
  const billingFor = (config: Partial<ReturnType<typeof testConfig>>, choice: { recordId: string }) =>
    providersFor({ ...testConfig(t.databaseUrl), ...config }, {}, t.db).billing(choice);

  it('development records (acct_dev_, sub_dev_) never reach Stripe; other records use Stripe when a key is set', () => {
    const withStripe = { stripe: { secretKey: 'sk_test_abc' } };
    expect(billingFor(withStripe, { recordId: 'sub_dev_abc' })).toBeInstanceOf(DevelopmentBillingProcessor);
    expect(billingFor(withStripe, { recordId: 'sub_live123' })).toBeInstanceOf(StripeBillingProcessor);
    expect(billingFor({}, { recordId: 'sub_live123' })).toBeInstanceOf(DevelopmentBillingProcessor);
  });

  it('production without STRIPE_SECRET_KEY is a configuration error', () => {
    expect(() => billingFor({ environment: 'production' }, { recordId: 'acct_123' })).toThrow(ConfigError);
  });
});
