// The billing and onboarding demo data (scripts/seed/organization.ts): idempotent, and what it shows
// through the API for the live clinics and the sandbox clinic mid-onboarding.
import { eq, inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { clinicFeeConfigs, onboarding, organizations, payoutAccounts, platformSubscriptions } from '../../../drizzle/schema';
import { seedDemoData } from '../../../scripts/seed';
import { DEMO } from '../../../scripts/seed/ids';
import { useTestApp } from '../../helpers/app';
import { makeKey } from '../../helpers/factories';

const t = useTestApp();
const keys: Record<'demo' | 'harbor' | 'sandbox', string> = { demo: '', harbor: '', sandbox: '' };

beforeAll(async () => {
  await seedDemoData(t.db);
  keys.demo = (await makeKey(t.db, DEMO.clinics.demo)).raw;
  keys.harbor = (await makeKey(t.db, DEMO.clinics.harbor)).raw;
  keys.sandbox = (await makeKey(t.db, DEMO.clinics.sandbox, { isSandbox: true })).raw;
});

const get = async (key: string, path: string) => (await t.request(path, { key })).json();
const ALL = [DEMO.clinics.demo, DEMO.clinics.harbor, DEMO.clinics.sandbox];

describe('billing demo data', () => {
  it('seeds again over itself without new rows', async () => {
    const counts = async () =>
      Promise.all(
        [organizations, clinicFeeConfigs, platformSubscriptions, payoutAccounts, onboarding].map((table) =>
          t.db
            .select({ n: sql<number>`count(*)::int` })
            .from(table)
            .where(inArray(table.clinicId, ALL))
            .then((r) => r[0]!.n),
        ),
      );
    const first = await counts();
    await seedDemoData(t.db);
    expect(await counts()).toEqual(first);
    expect(first).toEqual([3, 3, 2, 2, 3]);
  });

  it('Demo Clinic: Growth, an active subscription whose period holds now, an active payout account, onboarding completed', async () => {
    const info = (await get(keys.demo, '/api/v1/billing/basic-info')).data;
    expect(info).toMatchObject({
      status: 'live',
      plan: { code: 'growth' },
      subscription: { status: 'active', planId: DEMO.plans.growth },
      payoutAccount: { status: 'active' },
      onboarding: { currentStep: 'completed' },
    });
    const now = Date.now();
    expect(Date.parse(info.subscription.currentPeriodStart)).toBeLessThan(now);
    expect(Date.parse(info.subscription.currentPeriodEnd)).toBeGreaterThan(now);
    const plans = await get(keys.demo, '/api/v1/billing/plans');
    expect(plans.plans.map((p: { code: string }) => p.code)).toEqual(expect.arrayContaining(['basic', 'growth']));
    expect(plans.plans.map((p: { code: string }) => p.code)).not.toContain('sandbox');
    const preview = await t.request('/api/v1/billing/preview-upgrade', { key: keys.demo, body: { newPlanId: DEMO.plans.basic } });
    expect((await preview.json()).data).toMatchObject({ direction: 'downgrade', amountDueCents: 0 });
  });

  it('Harbor Clinic: a pending payout account with requirements due', async () => {
    const { data } = await get(keys.harbor, '/api/v1/stripe/connect/status');
    expect(data).toMatchObject({
      status: 'pending',
      isConnected: true,
      payoutsEnabled: false,
      requirementsDue: ['external_account', 'representative.verification.document'],
    });
  });

  it('Sandbox Clinic: business details saved, identity verification pending, no subscription', async () => {
    const { data } = await get(keys.sandbox, '/api/v1/onboarding/status');
    expect(data).toMatchObject({
      currentStep: 'identity_verification',
      clinicMode: 'sandbox',
      signer: { firstName: 'Jordan', lastName: 'Rivera', nameChangeAvailable: true },
      businessDetails: { companyName: 'Sandbox Health Inc', ein: '27-1122334' },
    });
    expect((await get(keys.sandbox, '/api/v1/billing/basic-info')).data).toMatchObject({ subscription: null, plan: { code: 'sandbox' } });
    const [sub] = await t.db.select().from(platformSubscriptions).where(eq(platformSubscriptions.clinicId, DEMO.clinics.sandbox));
    expect(sub).toBeUndefined();
  });
});
