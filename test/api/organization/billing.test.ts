// Billing: plans, current, basic-info, preview-upgrade (proration), change and cancel (docs/billing.md).
import { randomUUID } from 'node:crypto';
import { and, eq, ne } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  clinics,
  type Entitlement,
  goLiveRequests,
  onboarding,
  payoutAccounts,
  plans,
  platformSubscriptions,
  programs,
} from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeClinic, makeKey, makeTenant } from '../../helpers/factories';
import { addProbeRoute } from '../../helpers/probe-routes';

const t = useTestApp();
const DAY = 86_400_000;

beforeAll(() => {
  // A route behind the Affiliates gate, to watch a plan change move the key's entitlements.
  addProbeRoute(t.app, { auth: 'key', scope: 'read', gate: 'affiliates' }, 'get', '/api/v1/probe/billing-affiliates');
});

async function makePlan(values: { priceCents: number; entitlements?: Entitlement[]; isInviteOnly?: boolean; name?: string }) {
  const suffix = randomUUID().slice(0, 8);
  const [row] = await t.db
    .insert(plans)
    .values({
      code: `bill-${suffix}`,
      name: values.name ?? `Plan ${suffix}`,
      monthlyPriceCents: values.priceCents,
      entitlements: values.entitlements ?? [],
      isInviteOnly: values.isInviteOnly ?? false,
      maxSelectedProducts: 10,
      maxProductPriceCents: 100_000,
    })
    .returning();
  return row!;
}

/** Today at 00:00 UTC: the tests' frozen "now". */
const today = () => Math.floor(Date.now() / DAY) * DAY;

/**
 * A live clinic on `basic` ($199, no entitlements) with a subscription whose period began 10 days
 * before today and ends 20 days after; `growth` ($499, affiliates) to move to.
 */
async function subscribedTenant(
  options: { status?: 'active' | 'past_due' | 'expired'; needsSync?: boolean; start?: Date; end?: Date } = {},
) {
  const basic = await makePlan({ priceCents: 19_900, name: 'Basic' });
  const growth = await makePlan({ priceCents: 49_900, entitlements: ['affiliates', 'crm_connect'], name: 'Growth' });
  const invite = await makePlan({ priceCents: 99_900, entitlements: ['affiliates'], isInviteOnly: true });
  const tenant = await makeTenant(t.db);
  await t.db.update(clinics).set({ planId: basic.id }).where(eq(clinics.id, tenant.clinic.id));
  const [subscription] = await t.db
    .insert(platformSubscriptions)
    .values({
      clinicId: tenant.clinic.id,
      planId: basic.id,
      status: options.status ?? 'active',
      needsSync: options.needsSync ?? false,
      currentPeriodStart: options.start ?? new Date(today() - 10 * DAY),
      currentPeriodEnd: options.end ?? new Date(today() + 20 * DAY),
      processorSubscriptionId: `sub_dev_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    })
    .returning();
  const readKey = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, basic, growth, invite, subscription: subscription!, readKey: readKey.raw };
}

const preview = (key: string, body: unknown) => t.request('/api/v1/billing/preview-upgrade', { key, body });
const change = (key: string, body: unknown) => t.request('/api/v1/billing/change', { key, body });
const cancel = (key: string) => t.request('/api/v1/billing/cancel', { key, method: 'POST' });

async function clinicState(clinicId: string) {
  const [clinic] = await t.db.select().from(clinics).where(eq(clinics.id, clinicId));
  const subs = await t.db.select().from(platformSubscriptions).where(eq(platformSubscriptions.clinicId, clinicId));
  return { clinic, subs };
}

/** Statements other than SELECTs sent for one request (the request log written after it excluded). */
async function writesOf(send: () => Promise<{ status: number }>) {
  await t.flush();
  t.queries.length = 0;
  const res = await send();
  await t.flush();
  const writes = t.queries.filter((q) => !q.includes('"request_logs"') && !/^\s*select\b/i.test(q));
  return { status: res.status, writes };
}

describe('GET /api/v1/billing/plans', () => {
  it('answers { success, message, plans } at top level, cheapest first, invite-only plans hidden, the current one marked', async () => {
    const { key, basic, growth, invite } = await subscribedTenant();
    const res = await t.request('/api/v1/billing/plans', { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['message', 'plans', 'success']);
    expect(body.success).toBe(true);
    const ids = body.plans.map((p: { id: string }) => p.id);
    expect(ids).toContain(basic.id);
    expect(ids).toContain(growth.id);
    expect(ids).not.toContain(invite.id);
    expect(body.plans.every((p: { code: string }) => p.code !== 'sandbox')).toBe(true);
    const prices = body.plans.map((p: { monthlyPriceCents: number }) => p.monthlyPriceCents);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(body.plans.find((p: { id: string }) => p.id === growth.id)).toEqual({
      id: growth.id,
      code: growth.code,
      name: 'Growth',
      monthlyPrice: 499,
      monthlyPriceCents: 49_900,
      entitlements: ['affiliates', 'crm_connect'],
      features: ['Affiliate program', 'CRM Connect'],
      limits: { maxSelectedProducts: 10, maxProductPrice: 1000, maxProductPriceCents: 100_000 },
      isCurrent: false,
    });
    expect(body.plans.filter((p: { isCurrent: boolean }) => p.isCurrent).map((p: { id: string }) => p.id)).toEqual([basic.id]);
  });
});

describe('GET /api/v1/billing/current', () => {
  it('answers subscription null at top level, even for a clinic with a subscription', async () => {
    const { key } = await subscribedTenant();
    const res = await t.request('/api/v1/billing/current', { key });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, message: 'OK', subscription: null });
  });
});

describe('GET /api/v1/billing/basic-info', () => {
  it('summarises a live clinic: plan, subscription, payout account, onboarding and the checklist', async () => {
    const { key, clinic, basic, subscription } = await subscribedTenant();
    await t.db.insert(payoutAccounts).values({
      clinicId: clinic.id,
      processorAccountId: `acct_dev_${randomUUID()}`,
      status: 'active',
      chargesEnabled: true,
      payoutsEnabled: true,
      detailsSubmitted: true,
    });
    await t.db.insert(onboarding).values({
      clinicId: clinic.id,
      currentStep: 'completed',
      completedAt: new Date(today() - 30 * DAY),
      businessDetailsSubmittedAt: new Date(today() - 32 * DAY),
    });
    await t.db.insert(programs).values({ clinicId: clinic.id, name: 'Weight care', state: 'live' });
    const res = await t.request('/api/v1/billing/basic-info', { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toEqual({
      status: 'live',
      clinic: { id: clinic.id, name: clinic.name, mode: 'live', isActive: true },
      sandbox: null,
      plan: { id: basic.id, code: basic.code, name: 'Basic', monthlyPrice: 199, monthlyPriceCents: 19_900, entitlements: [] },
      subscription: {
        id: subscription.id,
        planId: basic.id,
        status: 'active',
        currentPeriodStart: subscription.currentPeriodStart.toISOString(),
        currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
        needsSync: false,
        cancelledAt: null,
      },
      payoutAccount: { status: 'active', isConnected: true, checkedAt: null },
      onboarding: { currentStep: 'completed', isComplete: true, completedAt: new Date(today() - 30 * DAY).toISOString() },
      tutorial: {
        steps: [
          { key: 'business_details', title: expect.any(String), done: true },
          { key: 'payout_account', title: expect.any(String), done: true },
          { key: 'first_program', title: expect.any(String), done: true },
          { key: 'go_live', title: expect.any(String), done: true },
        ],
        completedCount: 4,
        totalCount: 4,
        isComplete: true,
      },
    });
  });

  it('summarises a sandbox clinic: its window, no subscription, not connected, go_live_requested once asked', async () => {
    t.clock.freezeAt(today() + 12 * 3_600_000);
    const expires = new Date(today() + 12 * 3_600_000 + 10 * DAY + 1);
    const { clinic, key } = await makeTenant(t.db, { mode: 'sandbox', sandboxExpiresAt: expires });
    let { data } = await (await t.request('/api/v1/billing/basic-info', { key })).json();
    expect(data.status).toBe('sandbox');
    expect(data.sandbox).toEqual({ expiresAt: expires.toISOString(), isOpen: true, daysRemaining: 11, goLiveRequestedAt: null });
    expect(data.subscription).toBeNull();
    expect(data.onboarding).toBeNull();
    expect(data.payoutAccount).toEqual({ status: 'not_connected', isConnected: false, checkedAt: null });
    expect(data.tutorial.completedCount).toBe(0);

    await t.db
      .insert(goLiveRequests)
      .values({ clinicId: clinic.id, signerFirstName: 'Jo', signerLastName: 'Doe', signerEmail: 'jo@example.test' });
    ({ data } = await (await t.request('/api/v1/billing/basic-info', { key })).json());
    expect(data.status).toBe('go_live_requested');
  });

  it('is one query after the key lookup', async () => {
    const { key } = await subscribedTenant();
    await t.flush();
    t.queries.length = 0;
    expect((await t.request('/api/v1/billing/basic-info', { key })).status).toBe(200);
    await t.flush();
    expect(t.queries.filter((q) => !q.includes('"request_logs"'))).toHaveLength(2);
  });
});

describe('POST /api/v1/billing/preview-upgrade', () => {
  it('prorates from the current period to the cent: 20 of 30 days left, $199 -> $499', async () => {
    t.clock.freezeAt(today());
    const { key, basic, growth, subscription } = await subscribedTenant();
    const res = await preview(key, { newPlanId: growth.id });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toEqual({
      subscriptionId: subscription.id,
      currentPlan: { id: basic.id, code: basic.code, name: 'Basic', monthlyPrice: 199, monthlyPriceCents: 19_900, entitlements: [] },
      newPlan: {
        id: growth.id,
        code: growth.code,
        name: 'Growth',
        monthlyPrice: 499,
        monthlyPriceCents: 49_900,
        entitlements: ['affiliates', 'crm_connect'],
      },
      direction: 'upgrade',
      prorationDate: new Date(today()).toISOString(),
      currentPeriodStart: new Date(today() - 10 * DAY).toISOString(),
      currentPeriodEnd: new Date(today() + 20 * DAY).toISOString(),
      periodSeconds: 2_592_000,
      remainingSeconds: 1_728_000,
      // 19 900 x 20/30 = 13 266.67 -> 13 267; 49 900 x 20/30 = 33 266.67 -> 33 267
      unusedTimeCredit: 132.67,
      unusedTimeCreditCents: 13_267,
      remainingTimeCharge: 332.67,
      remainingTimeChargeCents: 33_267,
      amountDue: 200,
      amountDueCents: 20_000,
      creditToBalance: 0,
      creditToBalanceCents: 0,
      nextPeriodAmount: 499,
      nextPeriodAmountCents: 49_900,
      entitlementsGained: ['affiliates', 'crm_connect'],
      entitlementsLost: [],
    });
  });

  it('rounds each line half up on its own at an odd instant (17 d 5 h 23 min 11 s left)', async () => {
    const remaining = ((17 * 24 + 5) * 60 + 23) * 60 + 11;
    t.clock.freezeAt(today() + 20 * DAY - remaining * 1000 + 250); // the instant is truncated to the second
    const { key, growth } = await subscribedTenant();
    const { data } = await (await preview(key, { newPlanId: growth.id })).json();
    expect(data.remainingSeconds).toBe(remaining);
    expect(data.prorationDate).toBe(new Date(today() + 20 * DAY - remaining * 1000).toISOString());
    // 19 900 x 1 488 191 / 2 592 000 = 11 425.54 -> 11 426; 49 900 x ... = 28 649.97 -> 28 650
    expect([data.unusedTimeCreditCents, data.remainingTimeChargeCents, data.amountDueCents]).toEqual([11_426, 28_650, 17_224]);
    expect(data.amountDue).toBe(172.24);
  });

  it('a downgrade owes nothing now and leaves a credit', async () => {
    t.clock.freezeAt(today());
    const { key, growth, clinic } = await subscribedTenant();
    const cheap = await makePlan({ priceCents: 4_900 });
    // Move the subscription to growth first (directly), then preview the way down.
    await t.db.update(platformSubscriptions).set({ planId: growth.id }).where(eq(platformSubscriptions.clinicId, clinic.id));
    const { data } = await (await preview(key, { newPlanId: cheap.id })).json();
    expect(data.direction).toBe('downgrade');
    expect([data.unusedTimeCreditCents, data.remainingTimeChargeCents]).toEqual([33_267, 3_267]);
    expect([data.amountDueCents, data.creditToBalanceCents, data.creditToBalance]).toEqual([0, 30_000, 300]);
    expect(data.entitlementsLost).toEqual(['affiliates', 'crm_connect']);
  });

  it('writes nothing: no statement but SELECTs, every row as it was', async () => {
    const { key, growth, clinic } = await subscribedTenant();
    const before = await clinicState(clinic.id);
    const { status, writes } = await writesOf(() => preview(key, { newPlanId: growth.id }));
    expect(status).toBe(200);
    expect(writes).toEqual([]);
    expect(await clinicState(clinic.id)).toEqual(before);
  });

  it('404 for an unknown or malformed plan id, with one body for both', async () => {
    const { key } = await subscribedTenant();
    const unknown = await preview(key, { newPlanId: randomUUID() });
    const malformed = await preview(key, { newPlanId: 'not-a-plan' });
    expect(unknown.status).toBe(404);
    expect(malformed.status).toBe(404);
    const body = await unknown.json();
    expect(body).toEqual({ success: false, code: 'NOT_FOUND', message: 'Plan not found' });
    expect(await malformed.json()).toEqual(body);
  });

  it('400 PLAN_INVITE_ONLY for an invite-only plan, 400 ALREADY_ON_PLAN for the current one', async () => {
    const { key, invite, basic } = await subscribedTenant();
    const inviteOnly = await preview(key, { newPlanId: invite.id });
    expect(inviteOnly.status).toBe(400);
    expect((await inviteOnly.json()).code).toBe('PLAN_INVITE_ONLY');
    const same = await preview(key, { newPlanId: basic.id });
    expect(same.status).toBe(400);
    expect((await same.json()).code).toBe('ALREADY_ON_PLAN');
  });

  it('409 SUBSCRIPTION_SYNC_REQUIRED when the subscription is expired, flagged needsSync, or its period is over', async () => {
    for (const options of [
      { status: 'expired' as const },
      { needsSync: true },
      { start: new Date(today() - 40 * DAY), end: new Date(today() - 10 * DAY) },
    ]) {
      const { key, growth } = await subscribedTenant(options);
      const res = await preview(key, { newPlanId: growth.id });
      expect(res.status, JSON.stringify(options)).toBe(409);
      expect((await res.json()).code).toBe('SUBSCRIPTION_SYNC_REQUIRED');
    }
    const pastDue = await subscribedTenant({ status: 'past_due' });
    expect((await preview(pastDue.key, { newPlanId: pastDue.growth.id })).status).toBe(200);
  });

  it('404 Subscription not found when the clinic has no current subscription', async () => {
    const { key } = await makeTenant(t.db);
    const growth = await makePlan({ priceCents: 49_900 });
    const res = await preview(key, { newPlanId: growth.id });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, code: 'NOT_FOUND', message: 'Subscription not found' });
  });

  it('400 for a missing newPlanId or an unknown field; 403 INSUFFICIENT_SCOPE for a read-only key', async () => {
    const { key, readKey, growth } = await subscribedTenant();
    const missing = await preview(key, {});
    expect(missing.status).toBe(400);
    expect((await missing.json()).message).toContain('body.newPlanId');
    const extra = await preview(key, { newPlanId: growth.id, coupon: 'X' });
    expect(extra.status).toBe(400);
    const readOnly = await preview(readKey, { newPlanId: growth.id });
    expect(readOnly.status).toBe(403);
    expect((await readOnly.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('POST /api/v1/billing/change', () => {
  it("moves the subscription and the clinic's plan in one go, and the key's entitlements follow (403 -> 200 -> 403)", async () => {
    t.clock.freezeAt(today());
    const { key, clinic, basic, growth, subscription } = await subscribedTenant();
    const gated = () => t.request('/api/v1/probe/billing-affiliates', { key });
    const before = await gated();
    expect(before.status).toBe(403);
    expect((await before.json()).code).toBe('AFFILIATES_TIER_REQUIRED');

    const res = await change(key, { newPlanId: growth.id });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.message).toBe('Plan changed to Growth');
    expect(body.data).toMatchObject({
      previousPlan: { id: basic.id },
      plan: { id: growth.id },
      entitlements: ['affiliates', 'crm_connect'],
      subscription: {
        id: subscription.id,
        planId: growth.id,
        status: 'active',
        currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
      },
      proration: { amountDueCents: 20_000, unusedTimeCreditCents: 13_267, remainingTimeChargeCents: 33_267 },
    });
    const { clinic: after, subs } = await clinicState(clinic.id);
    expect(after!.planId).toBe(growth.id);
    expect(subs.map((s) => [s.id, s.planId])).toEqual([[subscription.id, growth.id]]);
    expect((await gated()).status).toBe(200);

    expect((await change(key, { newPlanId: basic.id })).status).toBe(200);
    expect((await gated()).status).toBe(403);
  });

  it('400 for the same plan or an invite-only one, 404 for an unknown plan, 409 for an expired subscription; nothing changes', async () => {
    const { key, clinic, basic, invite } = await subscribedTenant();
    const before = await clinicState(clinic.id);
    expect((await change(key, { newPlanId: basic.id })).status).toBe(400);
    const inviteOnly = await change(key, { newPlanId: invite.id });
    expect([inviteOnly.status, (await inviteOnly.json()).code]).toEqual([400, 'PLAN_INVITE_ONLY']);
    expect((await change(key, { newPlanId: randomUUID() })).status).toBe(404);
    expect((await change(key, { newPlanId: 'x' })).status).toBe(404);
    expect(await clinicState(clinic.id)).toEqual(before);

    const expired = await subscribedTenant({ status: 'expired' });
    const res = await change(expired.key, { newPlanId: expired.growth.id });
    expect([res.status, (await res.json()).code]).toEqual([409, 'SUBSCRIPTION_SYNC_REQUIRED']);
  });

  it('404 without a current subscription', async () => {
    const { key } = await makeTenant(t.db);
    const plan = await makePlan({ priceCents: 1_000 });
    expect((await change(key, { newPlanId: plan.id })).status).toBe(404);
  });
});

describe('POST /api/v1/billing/cancel', () => {
  it('cancels the subscription and deactivates the clinic; every key of the clinic then answers 401', async () => {
    t.clock.freezeAt(today() + 3_600_000);
    const { key, readKey, clinic, subscription } = await subscribedTenant();
    expect((await t.request('/api/v1/me', { key: readKey })).status).toBe(200);
    const res = await cancel(key);
    expect(res.status).toBe(200);
    const at = new Date(today() + 3_600_000).toISOString();
    expect((await res.json()).data).toEqual({
      subscription: {
        id: subscription.id,
        planId: subscription.planId,
        status: 'cancelled',
        currentPeriodStart: subscription.currentPeriodStart.toISOString(),
        currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
        needsSync: false,
        cancelledAt: at,
      },
      clinic: { id: clinic.id, isActive: false, deactivatedReason: 'cancelled', deactivatedAt: at },
    });
    const { clinic: after, subs } = await clinicState(clinic.id);
    expect([after!.isActive, after!.deactivatedReason, after!.deactivatedAt?.toISOString()]).toEqual([false, 'cancelled', at]);
    expect(subs.map((s) => s.status)).toEqual(['cancelled']);
    for (const k of [key, readKey]) {
      const me = await t.request('/api/v1/me', { key: k });
      expect(me.status).toBe(401);
      expect((await me.json()).code).toBe('UNAUTHORIZED');
    }
    expect((await cancel(key)).status).toBe(401);
  });

  it('404 when the clinic has no current subscription (none, or only a cancelled one)', async () => {
    const { key, clinic } = await makeTenant(t.db);
    expect((await cancel(key)).status).toBe(404);
    const plan = await makePlan({ priceCents: 1_000 });
    await t.db.insert(platformSubscriptions).values({
      clinicId: clinic.id,
      planId: plan.id,
      status: 'cancelled',
      currentPeriodStart: new Date(today() - DAY),
      currentPeriodEnd: new Date(today() + DAY),
    });
    const res = await cancel(key);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, code: 'NOT_FOUND', message: 'Subscription not found' });
    expect((await t.db.select().from(clinics).where(eq(clinics.id, clinic.id)))[0]!.isActive).toBe(true);
  });

  it('keys of a clinic deactivated any way answer 401 (the key lookup checks clinics.is_active)', async () => {
    const { key } = await makeTenant(t.db, { isActive: false });
    expect((await t.request('/api/v1/billing/plans', { key })).status).toBe(401);
  });
});

describe('tenant isolation', () => {
  it("one clinic's change and cancel never touch another's subscription, plan or keys", async () => {
    const a = await subscribedTenant();
    const b = await subscribedTenant();
    const bBefore = await clinicState(b.clinic.id);
    expect((await change(a.key, { newPlanId: a.growth.id })).status).toBe(200);
    expect((await cancel(a.key)).status).toBe(200);
    expect(await clinicState(b.clinic.id)).toEqual(bBefore);
    expect((await t.request('/api/v1/me', { key: b.key })).status).toBe(200);
    const info = (await (await t.request('/api/v1/billing/basic-info', { key: b.key })).json()).data;
    expect([info.clinic.id, info.subscription.id]).toEqual([b.clinic.id, b.subscription.id]);
  });

  it("a clinic's preview reads only its own subscription", async () => {
    const a = await subscribedTenant({ status: 'expired' });
    const other = await makeClinic(t.db);
    const { raw } = await makeKey(t.db, other.id);
    // The other clinic has no subscription: 404, whatever clinic a has.
    expect((await preview(raw, { newPlanId: a.growth.id })).status).toBe(404);
    const current = await t.db
      .select()
      .from(platformSubscriptions)
      .where(and(eq(platformSubscriptions.clinicId, other.id), ne(platformSubscriptions.status, 'cancelled')));
    expect(current).toEqual([]);
  });
});

describe('the subscriptions sweep', () => {
  it('renews a development subscription period by period; flags a processor one lapsed over 3 days expired and needsSync', async () => {
    const { sweepPlatformSubscriptions } = await import('../../../src/modules/organization/billing/sweeps');
    const now = new Date(today() + 3_600_000);
    const dev = await subscribedTenant({ start: new Date(today() - 70 * DAY), end: new Date(today() - 40 * DAY) });
    const lapsed = await subscribedTenant({ start: new Date(today() - 34 * DAY), end: new Date(today() - 4 * DAY) });
    const recent = await subscribedTenant({ start: new Date(today() - 31 * DAY), end: new Date(today() - DAY) });
    await t.db
      .update(platformSubscriptions)
      .set({ processorSubscriptionId: `sub_LiveLapsed${randomUUID().slice(0, 8)}` })
      .where(eq(platformSubscriptions.id, lapsed.subscription.id));
    await t.db
      .update(platformSubscriptions)
      .set({ processorSubscriptionId: `sub_LiveRecent${randomUUID().slice(0, 8)}` })
      .where(eq(platformSubscriptions.id, recent.subscription.id));

    await sweepPlatformSubscriptions(t.db, now);
    const read = async (id: string) => (await t.db.select().from(platformSubscriptions).where(eq(platformSubscriptions.id, id)))[0]!;
    const renewed = await read(dev.subscription.id);
    expect(renewed.status).toBe('active');
    expect(renewed.currentPeriodStart.getTime()).toBeLessThanOrEqual(now.getTime());
    expect(renewed.currentPeriodEnd.getTime()).toBeGreaterThan(now.getTime());
    expect(await read(lapsed.subscription.id)).toMatchObject({ status: 'expired', needsSync: true });
    expect(await read(recent.subscription.id)).toMatchObject({ status: 'active', needsSync: false });
    const res = await preview(lapsed.key, { newPlanId: lapsed.growth.id });
    expect(res.status).toBe(409);
  });
});
