import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { jsonBody, jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../../platform/http/pagination';
import { defineRoute } from '../../../../platform/http/route';
import { read, tags, write } from '../access';
import { affiliate, membershipIdParam, updateAffiliateBody } from './schemas';
import { listAffiliates, updateAffiliate } from './service';

const listAffiliatesRoute = defineRoute(read, {
  method: 'get',
  path: '/api/v1/affiliate-program/affiliates',
  operationId: 'listAffiliates',
  tags,
  summary: 'List the affiliates, newest first, with referral counts, tier and commission totals',
  request: { query: pageQuery },
  responses: { 200: jsonContent(pagedBody(affiliate), 'Affiliates') },
});

const patchAffiliate = defineRoute(write, {
  method: 'patch',
  path: '/api/v1/affiliate-program/affiliates/{membershipId}',
  operationId: 'updateAffiliate',
  recordedValues: ['firstOrderRate', 'commissionRate'],
  tags,
  summary: "Set or clear an affiliate's rate overrides and payout details (only the fields sent change)",
  request: { params: membershipIdParam, body: jsonBody(updateAffiliateBody) },
  responses: { 200: jsonContent(successBody(affiliate), 'The affiliate after the update') },
});

export const affiliateRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listAffiliatesRoute, async (c) => {
    const { data, pagination } = await listAffiliates(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(patchAffiliate, async (c) => {
    const updated = await updateAffiliate(handlerContext(c), c.req.valid('param').membershipId, c.req.valid('json'));
    return c.json(ok(updated, 'Affiliate updated'), 200);
  });
