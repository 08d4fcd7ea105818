// Onboarding: status, name change, business details, signature, and the development simulator of the
// identity provider and the plan payment that completes onboarding (docs/onboarding.md).
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { clinics, goLiveRequests, onboarding, organizations, plans, platformSubscriptions } from '../../../drizzle/schema';
import { buildTestApp, type TestApp, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
let dev: TestApp;
beforeAll(() => {
  dev = buildTestApp(t.db, t.databaseUrl, { clock: t.clock });
  dev.config.devSimulator = true;
});

const DETAILS = {
  ein: '12-3456789',
  stateOfRegistration: 'de',
  address: '500 Market Street, Suite 300',
  city: 'San Francisco',
  state: 'ca',
  zipCode: '94107-1234',
  phoneNumber: '(415) 555-0123',
  businessType: 'llc',
  companyName: 'Bright Health Partners LLC',
};

/** A sandbox clinic whose go-live was requested: its onboarding row (at `step`) and its pending request. */
async function onboardingTenant(values: Partial<typeof onboarding.$inferInsert> = {}, options: { mode?: 'live' | 'sandbox' } = {}) {
  const tenant = await makeTenant(t.db, { mode: options.mode ?? 'sandbox' });
  await t.db.insert(onboarding).values({
    clinicId: tenant.clinic.id,
    signerFirstName: 'Jordan',
    signerLastName: 'Rivera',
    signerEmail: 'jordan@example.test',
    ...values,
  });
  const [request] = await t.db
    .insert(goLiveRequests)
    .values({ clinicId: tenant.clinic.id, signerFirstName: 'Jordan', signerLastName: 'Rivera', signerEmail: 'jordan@example.test' })
    .returning();
  const readKey = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'], isSandbox: tenant.clinic.mode === 'sandbox' });
  return { ...tenant, request: request!, readKey: readKey.raw };
}

async function makePlan(values: Partial<typeof plans.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(plans)
    .values({ code: `onb-${randomUUID().slice(0, 8)}`, name: 'Growth', monthlyPriceCents: 49_900, entitlements: ['affiliates'], ...values })
    .returning();
  return row!;
}

const status = (key: string) => t.request('/api/v1/onboarding/status', { key });
const saveDetails = (key: string, body: unknown) => t.request('/api/v1/onboarding/save-business-details', { key, body });
const nameChange = (key: string, body: unknown) => t.request('/api/v1/onboarding/request-name-change', { key, body });
const sign = (key: string, typedName: unknown) =>
  t.request('/api/v1/onboarding/confirm-signature-declaration', { key, body: { typedName } });
const identityVerified = (key: string, app: TestApp = dev) =>
  app.request('/api/v1/_dev/onboarding/identity-verified', { method: 'POST', key });
const planPaid = (key: string, planId: string, app: TestApp = dev) =>
  app.request('/api/v1/_dev/onboarding/plan-paid', { key, body: { planId } });

async function row(clinicId: string) {
  return (await t.db.select().from(onboarding).where(eq(onboarding.clinicId, clinicId)))[0]!;
}

async function expectCode(res: Awaited<ReturnType<typeof status>>, statusCode: number, code: string) {
  expect(res.status).toBe(statusCode);
  expect((await res.json()).code).toBe(code);
}

describe('GET /api/v1/onboarding/status', () => {
  it('shows the current step, every step, the signer and what is missing', async () => {
    const { readKey } = await onboardingTenant();
    const res = await status(readKey);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      currentStep: 'business_details',
      isComplete: false,
      completedAt: null,
      clinicMode: 'sandbox',
      steps: [
        { step: 'business_details', state: 'current', completedAt: null },
        { step: 'identity_verification', state: 'pending', completedAt: null },
        { step: 'agreement', state: 'pending', completedAt: null },
        { step: 'plan_payment', state: 'pending', completedAt: null },
      ],
      signer: { firstName: 'Jordan', lastName: 'Rivera', email: 'jordan@example.test', nameChangeUsed: false, nameChangeAvailable: true },
      missing: [
        { step: 'business_details', requirement: expect.stringContaining('save-business-details') },
        { step: 'identity_verification', requirement: expect.any(String) },
        { step: 'agreement', requirement: expect.stringContaining('confirm-signature-declaration') },
        { step: 'plan_payment', requirement: expect.any(String) },
      ],
      businessDetails: null,
    });
  });

  it('404 for a clinic without onboarding; a completed onboarding shows every step done', async () => {
    const { key } = await makeTenant(t.db);
    const res = await status(key);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, code: 'NOT_FOUND', message: 'Onboarding not found' });

    const at = new Date('2030-01-05T10:00:00.000Z');
    const done = await onboardingTenant(
      {
        currentStep: 'completed',
        businessDetailsSubmittedAt: at,
        identityVerifiedAt: at,
        signatureDeclaredAt: at,
        planPaidAt: at,
        completedAt: at,
      },
      { mode: 'live' },
    );
    const { data } = await (await status(done.key)).json();
    expect(data).toMatchObject({
      currentStep: 'completed',
      isComplete: true,
      completedAt: at.toISOString(),
      clinicMode: 'live',
      missing: [],
    });
    expect(
      data.steps.every((s: { state: string; completedAt: string }) => s.state === 'completed' && s.completedAt === at.toISOString()),
    ).toBe(true);
    expect(data.signer.nameChangeAvailable).toBe(false);
  });
});

describe('POST /api/v1/onboarding/save-business-details', () => {
  it('validates, normalises and saves the details to the organization, and advances to identity verification', async () => {
    const { key, clinic } = await onboardingTenant();
    const res = await saveDetails(key, DETAILS);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.currentStep).toBe('identity_verification');
    expect(data.steps[0]).toMatchObject({ step: 'business_details', state: 'completed' });
    expect(data.businessDetails).toEqual({
      companyName: 'Bright Health Partners LLC',
      ein: '12-3456789',
      businessType: 'llc',
      stateOfRegistration: 'DE',
      address: '500 Market Street, Suite 300',
      city: 'San Francisco',
      state: 'CA',
      zipCode: '94107-1234',
      phoneNumber: '+14155550123',
    });
    const [org] = await t.db.select().from(organizations).where(eq(organizations.clinicId, clinic.id));
    expect(org).toMatchObject({
      legalName: 'Bright Health Partners LLC',
      ein: '12-3456789',
      addressLine1: '500 Market Street, Suite 300',
      phoneNumber: '+14155550123',
    });
    expect((await row(clinic.id)).businessDetailsSubmittedAt).not.toBeNull();
  });

  it('accepts the phone formats it documents and stores E.164', async () => {
    for (const [phone, e164] of [
      ['415-555-0123', '+14155550123'],
      ['1 415 555 0123', '+14155550123'],
      ['+1 (212) 555-0199', '+12125550199'],
      ['+44 20 7183 8750', '+442071838750'],
    ]) {
      const { key, clinic } = await onboardingTenant();
      expect((await saveDetails(key, { ...DETAILS, phoneNumber: phone })).status, phone).toBe(200);
      expect((await t.db.select().from(organizations).where(eq(organizations.clinicId, clinic.id)))[0]!.phoneNumber).toBe(e164);
    }
  });

  it('400 naming the field for each malformed value, an unknown field or a missing one', async () => {
    const { key, clinic } = await onboardingTenant();
    const cases: [Record<string, unknown>, string][] = [
      [{ ein: '123456789' }, 'body.ein'],
      [{ ein: '12-345678' }, 'body.ein'],
      [{ stateOfRegistration: 'XX' }, 'body.stateOfRegistration'],
      [{ state: 'California' }, 'body.state'],
      [{ zipCode: '9410' }, 'body.zipCode'],
      [{ zipCode: '94107-12' }, 'body.zipCode'],
      [{ phoneNumber: '555-0123' }, 'body.phoneNumber'],
      [{ phoneNumber: '(015) 555-0123' }, 'body.phoneNumber'],
      [{ businessType: 'corporation' }, 'body.businessType'],
      [{ companyName: '   ' }, 'body.companyName'],
      [{ website: 'https://x.test' }, 'website'],
    ];
    for (const [change, field] of cases) {
      const res = await saveDetails(key, { ...DETAILS, ...change });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect((await res.json()).message).toContain(field);
    }
    const { city: _city, ...withoutCity } = DETAILS;
    expect((await saveDetails(key, withoutCity)).status).toBe(400);
    expect((await row(clinic.id)).currentStep).toBe('business_details');
  });

  it('may correct the details at identity verification (the step stays), not after it (409 WRONG_ONBOARDING_STEP)', async () => {
    const { key, clinic } = await onboardingTenant({ currentStep: 'identity_verification', businessDetailsSubmittedAt: new Date() });
    const res = await saveDetails(key, { ...DETAILS, companyName: 'Corrected LLC' });
    expect((await res.json()).data).toMatchObject({
      currentStep: 'identity_verification',
      businessDetails: { companyName: 'Corrected LLC' },
    });
    await t.db
      .update(onboarding)
      .set({ currentStep: 'agreement', identityVerifiedAt: new Date() })
      .where(eq(onboarding.clinicId, clinic.id));
    await expectCode(await saveDetails(key, DETAILS), 409, 'WRONG_ONBOARDING_STEP');
  });

  it('404 without onboarding', async () => {
    const { key } = await makeTenant(t.db);
    expect((await saveDetails(key, DETAILS)).status).toBe(404);
  });
});

describe('POST /api/v1/onboarding/request-name-change', () => {
  it('changes the signer once; a second change is 409 NAME_CHANGE_ALREADY_USED', async () => {
    const { key, clinic } = await onboardingTenant();
    const res = await nameChange(key, { firstName: '  Jordan ', lastName: 'Rivera-Lopez' });
    expect(res.status).toBe(200);
    expect((await res.json()).data.signer).toEqual({
      firstName: 'Jordan',
      lastName: 'Rivera-Lopez',
      email: 'jordan@example.test',
      nameChangeUsed: true,
      nameChangeAvailable: false,
    });
    expect((await row(clinic.id)).nameChangeRequestedAt).not.toBeNull();
    await expectCode(await nameChange(key, { firstName: 'Jo', lastName: 'Rivera' }), 409, 'NAME_CHANGE_ALREADY_USED');
    expect((await row(clinic.id)).signerLastName).toBe('Rivera-Lopez');
  });

  it('is refused once identity is verified (409 IDENTITY_ALREADY_VERIFIED), even if unused', async () => {
    const { key } = await onboardingTenant({
      currentStep: 'agreement',
      businessDetailsSubmittedAt: new Date(),
      identityVerifiedAt: new Date(),
    });
    await expectCode(await nameChange(key, { firstName: 'Jo', lastName: 'Rivera' }), 409, 'IDENTITY_ALREADY_VERIFIED');
  });

  it('400 for the current name (the one change is not used up), a name with digits, or a missing field; 404 without onboarding', async () => {
    const { key, clinic } = await onboardingTenant();
    await expectCode(await nameChange(key, { firstName: 'Jordan', lastName: ' Rivera ' }), 400, 'NAME_UNCHANGED');
    expect((await row(clinic.id)).nameChangeRequestedAt).toBeNull();
    expect((await nameChange(key, { firstName: 'R2D2', lastName: 'Rivera' })).status).toBe(400);
    expect((await nameChange(key, { firstName: 'Jo' })).status).toBe(400);
    const other = await makeTenant(t.db);
    expect((await nameChange(other.key, { firstName: 'Jo', lastName: 'Rivera' })).status).toBe(404);
  });
});

describe('POST /api/v1/onboarding/confirm-signature-declaration', () => {
  const atAgreement = () =>
    onboardingTenant({ currentStep: 'agreement', businessDetailsSubmittedAt: new Date(), identityVerifiedAt: new Date() });

  it("accepts the signer's name ignoring case and surrounding spaces, and advances to plan payment", async () => {
    const { key, clinic } = await atAgreement();
    const res = await sign(key, '  jORDAN   rivera ');
    expect(res.status).toBe(200);
    expect((await res.json()).data.currentStep).toBe('plan_payment');
    const stored = await row(clinic.id);
    expect([stored.signatureTypedName, stored.signatureDeclaredAt !== null]).toEqual(['jORDAN   rivera', true]);
  });

  it('400 SIGNATURE_NAME_MISMATCH for another name; 409 WRONG_ONBOARDING_STEP before or after the agreement step', async () => {
    const { key, clinic } = await atAgreement();
    await expectCode(await sign(key, 'Jordan Riviera'), 400, 'SIGNATURE_NAME_MISMATCH');
    await expectCode(await sign(key, 'Rivera Jordan'), 400, 'SIGNATURE_NAME_MISMATCH');
    expect((await row(clinic.id)).currentStep).toBe('agreement');
    const early = await onboardingTenant();
    await expectCode(await sign(early.key, 'Jordan Rivera'), 409, 'WRONG_ONBOARDING_STEP');
    expect((await sign(key, 'Jordan Rivera')).status).toBe(200);
    await expectCode(await sign(key, 'Jordan Rivera'), 409, 'WRONG_ONBOARDING_STEP');
  });

  it('after a name change the signature must be the new name', async () => {
    const { key, clinic } = await onboardingTenant();
    expect((await nameChange(key, { firstName: 'Jordan', lastName: 'Lopez' })).status).toBe(200);
    await t.db
      .update(onboarding)
      .set({ currentStep: 'agreement', identityVerifiedAt: new Date() })
      .where(eq(onboarding.clinicId, clinic.id));
    await expectCode(await sign(key, 'Jordan Rivera'), 400, 'SIGNATURE_NAME_MISMATCH');
    expect((await sign(key, 'jordan lopez')).status).toBe(200);
  });
});

describe('the whole state machine, from a sandbox key', () => {
  it('business details -> identity -> agreement -> plan paid: the sandbox clinic becomes live on the paid plan', async () => {
    const { key, clinic, request } = await onboardingTenant();
    const plan = await makePlan();
    expect(clinic.mode).toBe('sandbox');

    await expectCode(await identityVerified(key), 409, 'WRONG_ONBOARDING_STEP');
    expect((await saveDetails(key, DETAILS)).status).toBe(200);
    await expectCode(await planPaid(key, plan.id), 409, 'WRONG_ONBOARDING_STEP');
    const verified = await identityVerified(key);
    expect([verified.status, (await verified.json()).data.currentStep]).toEqual([200, 'agreement']);
    await expectCode(await nameChange(key, { firstName: 'Jo', lastName: 'Rivera' }), 409, 'IDENTITY_ALREADY_VERIFIED');
    expect((await sign(key, 'Jordan Rivera')).status).toBe(200);

    const invite = await makePlan({ isInviteOnly: true });
    await expectCode(await planPaid(key, invite.id), 400, 'PLAN_INVITE_ONLY');
    expect((await planPaid(key, randomUUID())).status).toBe(404);
    expect((await t.db.select().from(clinics).where(eq(clinics.id, clinic.id)))[0]!.mode).toBe('sandbox');

    const paid = await planPaid(key, plan.id);
    expect(paid.status).toBe(200);
    const { data } = await paid.json();
    expect(data).toMatchObject({ currentStep: 'completed', isComplete: true, clinicMode: 'live', missing: [] });

    const [after] = await t.db.select().from(clinics).where(eq(clinics.id, clinic.id));
    expect([after!.mode, after!.planId]).toEqual(['live', plan.id]);
    const [goLive] = await t.db.select().from(goLiveRequests).where(eq(goLiveRequests.id, request.id));
    expect(goLive!.status).toBe('completed');
    expect(goLive!.completedAt).not.toBeNull();
    const subs = await t.db.select().from(platformSubscriptions).where(eq(platformSubscriptions.clinicId, clinic.id));
    expect(subs).toHaveLength(1);
    expect(subs[0]).toMatchObject({ planId: plan.id, status: 'active', needsSync: false });
    expect(subs[0]!.processorSubscriptionId).toMatch(/^sub_dev_[A-Za-z0-9]{24}$/);
    expect(subs[0]!.currentPeriodEnd.getTime()).toBeGreaterThan(subs[0]!.currentPeriodStart.getTime());

    const info = (await (await t.request('/api/v1/billing/basic-info', { key })).json()).data;
    expect(info).toMatchObject({
      status: 'live',
      plan: { id: plan.id },
      subscription: { id: subs[0]!.id },
      onboarding: { currentStep: 'completed' },
    });
    // The completed onboarding takes no further step.
    await expectCode(await planPaid(key, plan.id), 409, 'WRONG_ONBOARDING_STEP');
  });

  it('the simulator does not exist without DEV_SIMULATOR', async () => {
    const { key } = await onboardingTenant({ currentStep: 'identity_verification', businessDetailsSubmittedAt: new Date() });
    const res = await identityVerified(key, t);
    expect(res.status).toBe(404);
    expect((await res.json()).message).toBe('No route for POST /api/v1/_dev/onboarding/identity-verified');
  });

  it('the simulator needs the write scope', async () => {
    const { readKey } = await onboardingTenant({ currentStep: 'identity_verification', businessDetailsSubmittedAt: new Date() });
    await expectCode(await identityVerified(readKey), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('tenant isolation', () => {
  it("one clinic's onboarding calls never read or move another's", async () => {
    const a = await onboardingTenant();
    const b = await onboardingTenant();
    expect((await saveDetails(a.key, DETAILS)).status).toBe(200);
    expect((await nameChange(a.key, { firstName: 'Alex', lastName: 'Rivera' })).status).toBe(200);
    const bStatus = (await (await status(b.key)).json()).data;
    expect(bStatus).toMatchObject({
      currentStep: 'business_details',
      businessDetails: null,
      signer: { firstName: 'Jordan', nameChangeUsed: false },
    });
    expect(await t.db.select().from(organizations).where(eq(organizations.clinicId, b.clinic.id))).toEqual([]);
    const none = await makeTenant(t.db);
    expect((await status(none.key)).status).toBe(404);
  });
});
