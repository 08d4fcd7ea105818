// Development simulator of what reaches onboarding from outside (DEV_SIMULATOR="true" only; src/app.ts
// answers every /api/v1/_dev path with the generic 404 otherwise). Plain Hono, not API operations: they
// are not in the OpenAPI document (docs/onboarding.md, "Development simulator").
//   POST /api/v1/_dev/onboarding/identity-verified   the identity provider verified the signer
//   POST /api/v1/_dev/onboarding/plan-paid { planId } the processor reports the plan paid (a sub_dev_
//                                                     subscription for one month from now); completes onboarding

import { z } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import { announceKeyChanges } from '../../../platform/auth/key-cache';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { devSimulatorBody } from '../../../platform/http/dev-simulator';
import { ok } from '../../../platform/http/envelope';
import { validationError } from '../../../platform/http/error-handler';
import { checkKeyAccess } from '../../../platform/http/route';
import { developmentBillingId } from '../../../platform/providers/billing';
import { safeString } from '../../../platform/values/strings';
import { addMonthUtc } from '../billing/sweeps';
import { recordIdentityVerified, recordPlanPaid } from './service';

const planPaidBody = z.object({ planId: safeString().trim().min(1).max(100) }).strict();

export function registerOnboardingSimulator(app: Hono<AppEnv>) {
  app.post('/api/v1/_dev/onboarding/identity-verified', async (c) => {
    // Plain Hono: the access check defineRoute would make, on the raw key.
    checkKeyAccess(c.get('apiKey'), { auth: 'key', scope: 'write' }, c.req.path);
    await devSimulatorBody(c, { optional: true });
    const ctx = handlerContext(c);
    const at = ctx.now();
    const status = await ctx.db.transaction((tx) => recordIdentityVerified(tx, ctx.clinicId, at));
    return c.json(ok(status, 'Identity verified'), 200);
  });

  app.post('/api/v1/_dev/onboarding/plan-paid', async (c) => {
    // Plain Hono: the access check defineRoute would make, on the raw key.
    checkKeyAccess(c.get('apiKey'), { auth: 'key', scope: 'write' }, c.req.path);
    const parsed = planPaidBody.safeParse(await devSimulatorBody(c));
    if (!parsed.success) throw validationError(parsed.error, 'json');
    const ctx = handlerContext(c);
    const at = ctx.now();
    const payment = {
      planId: parsed.data.planId,
      processorSubscriptionId: developmentBillingId('sub'),
      currentPeriodStart: at,
      currentPeriodEnd: addMonthUtc(at),
    };
    const status = await ctx.db.transaction((tx) => recordPlanPaid(tx, ctx.clinicId, payment, at));
    await announceKeyChanges(ctx, [], [ctx.clinicId]); // the clinic's plan (entitlements) changed
    return c.json(ok(status, 'Plan paid; onboarding completed'), 200);
  });
}
