import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../../platform/http/pagination';
import { defineRoute } from '../../../../platform/http/route';
import { illegal, read, tags, write } from '../access';
import { generateAffiliatePayouts } from './generate';
import { listPayoutCommissions, listPayouts } from './list';
import {
  commission,
  excludeCommissionsBody,
  excludePayoutIdParam,
  generateResult,
  listPayoutsQuery,
  markPaidBody,
  payout,
  payoutIdParam,
} from './schemas';
import { approvePayout, excludeCommissions, markPayoutPaid } from './transitions';

const listPayoutsRoute = defineRoute(read, {
  method: 'get',
  path: '/api/v1/affiliate-program/payouts',
  operationId: 'listAffiliatePayouts',
  tags,
  summary: 'List the affiliate payouts, newest first',
  request: { query: listPayoutsQuery },
  responses: { 200: jsonContent(pagedBody(payout), 'Payouts') },
});

const generate = defineRoute(write, {
  method: 'post',
  path: '/api/v1/affiliate-program/payouts/generate',
  operationId: 'generateAffiliatePayouts',
  tags,
  summary: 'Compute commissions from referred orders and create the payouts of the last complete period (idempotent per period)',
  responses: {
    200: jsonContent(successBody(generateResult), 'What this call created'),
    409: jsonContent(errorBody, 'CONFLICT: the affiliate program is not enabled'),
  },
});

const commissions = defineRoute(read, {
  method: 'get',
  path: '/api/v1/affiliate-program/payouts/{id}/commissions',
  operationId: 'listAffiliatePayoutCommissions',
  tags,
  summary: 'The commissions of a payout (included, excluded or paid), oldest first',
  request: { params: payoutIdParam, query: pageQuery },
  responses: { 200: jsonContent(pagedBody(commission), 'Commissions') },
});

const approve = defineRoute(write, {
  method: 'post',
  path: '/api/v1/affiliate-program/payouts/{id}/approve',
  operationId: 'approveAffiliatePayout',
  tags,
  summary: 'Approve a pending payout',
  request: { params: payoutIdParam },
  responses: { 200: jsonContent(successBody(payout), 'The approved payout'), 409: illegal('the payout is not pending') },
});

const markPaid = defineRoute(write, {
  method: 'post',
  path: '/api/v1/affiliate-program/payouts/{id}/mark-paid',
  operationId: 'markAffiliatePayoutPaid',
  tags,
  summary: 'Record that an approved payout was paid (its commissions become paid)',
  request: { params: payoutIdParam, body: jsonBody(markPaidBody) },
  responses: { 200: jsonContent(successBody(payout), 'The paid payout'), 409: illegal('the payout is not approved') },
});

const exclude = defineRoute(write, {
  method: 'post',
  path: '/api/v1/affiliate-program/payouts/{payoutId}/exclude-commissions',
  operationId: 'excludeAffiliatePayoutCommissions',
  tags,
  summary: 'Exclude commissions from a pending payout; its amount is recomputed',
  description:
    'Every id must be a commission of this payout, else 400 naming the others (nothing changes). Excluded commissions are never paid.',
  request: { params: excludePayoutIdParam, body: jsonBody(excludeCommissionsBody) },
  responses: { 200: jsonContent(successBody(payout), 'The payout after the exclusion'), 409: illegal('the payout is not pending') },
});

export const payoutRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listPayoutsRoute, async (c) => {
    const { data, pagination } = await listPayouts(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(generate, async (c) => {
    const result = await generateAffiliatePayouts(handlerContext(c));
    return c.json(ok(result, `${result.payoutsCreated} payout(s) generated`), 200);
  })
  .openapi(commissions, async (c) => {
    const { data, pagination } = await listPayoutCommissions(handlerContext(c), c.req.valid('param').id, c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(approve, async (c) => c.json(ok(await approvePayout(handlerContext(c), c.req.valid('param').id), 'Payout approved'), 200))
  .openapi(markPaid, async (c) => {
    const paid = await markPayoutPaid(handlerContext(c), c.req.valid('param').id, c.req.valid('json').notes);
    return c.json(ok(paid, 'Payout marked paid'), 200);
  })
  .openapi(exclude, async (c) => {
    const result = await excludeCommissions(handlerContext(c), c.req.valid('param').payoutId, c.req.valid('json').commissionIds);
    return c.json(ok(result, 'Commissions excluded'), 200);
  });
