import { OpenAPIHono } from '@hono/zod-openapi';
import { announceKeyChanges } from '../../../platform/auth/key-cache';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { basicInfo } from './basic-info';
import { registerPayoutAccountSimulator } from './dev-routes';
import { payoutAccountStatus } from './payout-account';
import { cancelSubscription, changePlan, previewPlanChange } from './plan-change';
import { listPlans } from './plans';
import {
  basicInfo as basicInfoSchema,
  cancellationResult,
  currentSubscriptionResponse,
  payoutAccountStatus as payoutStatusSchema,
  planChangeBody,
  planChangeResult,
  plansResponse,
  prorationPreview,
} from './schemas';

const tags = ['Billing and payout account'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;

const unknownPlan =
  'NOT_FOUND: the plan id is unknown or malformed, or the clinic has no current subscription (message "Subscription not found")';
const refusedPlan =
  'PLAN_INVITE_ONLY: the plan is by invitation only; ALREADY_ON_PLAN: the subscription is already on it; VALIDATION_ERROR: the body is invalid';
const syncRequired =
  'SUBSCRIPTION_SYNC_REQUIRED: the subscription is expired, flagged needsSync, or its period is over; it must be synced with the processor first';
const processorErrors = {
  502: jsonContent(errorBody, 'PAYMENT_PROCESSOR_ERROR: the payment processor refused the request; nothing was changed'),
  503: jsonContent(
    errorBody,
    'PAYMENT_PROCESSOR_UNAVAILABLE: the payment processor did not answer (Retry-After: 5); or SERVICE_UNAVAILABLE: the change could not be announced to the key caches (docs/api-keys.md); nothing was changed',
  ),
};

const connectStatus = defineRoute(read, {
  method: 'get',
  path: '/api/v1/stripe/connect/status',
  operationId: 'getPayoutAccountStatus',
  tags,
  summary: "The clinic's payout-account status at the payment processor (read from it at most every 5 minutes)",
  description:
    'The literal segment stripe names the payment processor. A clinic without an account answers status not_connected and isConnected false.',
  responses: { 200: jsonContent(successBody(payoutStatusSchema), 'The payout account') },
});

const listPlansRoute = defineRoute(read, {
  method: 'get',
  path: '/api/v1/billing/plans',
  operationId: 'listBillingPlans',
  tags,
  summary: 'The plans a clinic may choose (invite-only plans hidden), cheapest first',
  description: 'The payload is at top level (plans), not in data.',
  responses: { 200: jsonContent(plansResponse, 'The plans') },
});

const current = defineRoute(read, {
  method: 'get',
  path: '/api/v1/billing/current',
  operationId: 'getCurrentSubscription',
  tags,
  summary: 'Kept for compatibility: subscription is always null (the subscription is in GET /api/v1/billing/basic-info)',
  responses: { 200: jsonContent(currentSubscriptionResponse, 'subscription: null, at top level') },
});

const basicInfoRoute = defineRoute(read, {
  method: 'get',
  path: '/api/v1/billing/basic-info',
  operationId: 'getBillingBasicInfo',
  tags,
  summary: 'Status, plan, subscription, payout account, onboarding and the getting-started checklist',
  responses: { 200: jsonContent(successBody(basicInfoSchema), 'The summary') },
});

const preview = defineRoute(write, {
  method: 'post',
  path: '/api/v1/billing/preview-upgrade',
  operationId: 'previewPlanChange',
  tags,
  summary: 'Proration of a move to another plan, from the current period (writes nothing)',
  request: { body: jsonBody(planChangeBody) },
  responses: {
    200: jsonContent(successBody(prorationPreview), 'The preview'),
    400: jsonContent(errorBody, refusedPlan),
    404: jsonContent(errorBody, unknownPlan),
    409: jsonContent(errorBody, syncRequired),
  },
});

const change = defineRoute(write, {
  method: 'post',
  path: '/api/v1/billing/change',
  operationId: 'changePlan',
  tags,
  summary:
    'Upgrade or downgrade: the processor first, then the subscription and the clinic plan (and so its entitlements) in one transaction',
  request: { body: jsonBody(planChangeBody) },
  responses: {
    200: jsonContent(successBody(planChangeResult), 'Changed; the prorated difference is invoiced now (a downgrade leaves a credit)'),
    400: jsonContent(errorBody, refusedPlan),
    404: jsonContent(errorBody, unknownPlan),
    409: jsonContent(errorBody, syncRequired),
    ...processorErrors,
  },
});

const cancel = defineRoute(write, {
  method: 'post',
  path: '/api/v1/billing/cancel',
  operationId: 'cancelSubscription',
  tags,
  summary: 'Cancels the subscription now and deactivates the clinic: every key of the clinic answers 401 afterwards',
  description: 'Only platform support can reactivate a cancelled clinic (docs/billing.md, "Cancellation").',
  responses: {
    200: jsonContent(successBody(cancellationResult), 'Cancelled; the clinic is deactivated'),
    404: jsonContent(errorBody, 'NOT_FOUND: the clinic has no current subscription'),
    ...processorErrors,
  },
});

export const billingRoutes = new OpenAPIHono<AppEnv>()
  .openapi(connectStatus, async (c) => {
    return c.json(ok(await payoutAccountStatus(handlerContext(c))), 200);
  })
  .openapi(listPlansRoute, async (c) => {
    const plans = await listPlans(handlerContext(c));
    return c.json({ success: true as const, message: 'OK', plans }, 200);
  })
  .openapi(current, (c) => c.json({ success: true as const, message: 'OK', subscription: null }, 200))
  .openapi(basicInfoRoute, async (c) => {
    return c.json(ok(await basicInfo(handlerContext(c))), 200);
  })
  .openapi(preview, async (c) => {
    return c.json(ok(await previewPlanChange(handlerContext(c), c.req.valid('json').newPlanId)), 200);
  })
  .openapi(change, async (c) => {
    const ctx = handlerContext(c);
    // The plan brings the entitlements cached keys carry: announced before (refused if it cannot be) and after.
    await announceKeyChanges(ctx, [], [ctx.clinicId]);
    const result = await changePlan(ctx, c.req.valid('json').newPlanId);
    ctx.background(announceKeyChanges(ctx, [], [ctx.clinicId]).catch(() => {}));
    return c.json(ok(result, `Plan changed to ${result.plan.name}`), 200);
  })
  .openapi(cancel, async (c) => {
    const ctx = handlerContext(c);
    // Every key of the clinic stops: cached keys learn it from the clinic's marker.
    await announceKeyChanges(ctx, [], [ctx.clinicId]);
    const result = await cancelSubscription(ctx);
    ctx.background(announceKeyChanges(ctx, [], [ctx.clinicId]).catch(() => {}));
    return c.json(ok(result, 'Subscription cancelled; the clinic is deactivated'), 200);
  });

registerPayoutAccountSimulator(billingRoutes);
