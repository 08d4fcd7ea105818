import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { defineRoute } from '../../../../platform/http/route';
import { tags, write } from '../access';
import { tier } from '../schemas';
import { createTierBody, deletedTier, tierIdParam } from './schemas';
import { createTier, deleteTier } from './service';

const createTierRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/affiliate-program/tiers',
  operationId: 'createAffiliateTier',
  recordedValues: ['minActiveReferrals', 'percentage'],
  tags,
  summary: 'Add a referral tier',
  request: { body: jsonBody(createTierBody) },
  responses: {
    201: jsonContent(successBody(tier), 'Created'),
    409: jsonContent(errorBody, 'CONFLICT: a tier with this minActiveReferrals exists, or the program has the most tiers allowed'),
  },
});

const deleteTierRoute = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/affiliate-program/tiers/{tierId}',
  operationId: 'deleteAffiliateTier',
  tags,
  summary: 'Delete a referral tier',
  request: { params: tierIdParam },
  responses: { 200: jsonContent(successBody(deletedTier), 'Deleted') },
});

export const tierRoutes = new OpenAPIHono<AppEnv>()
  .openapi(createTierRoute, async (c) => c.json(ok(await createTier(handlerContext(c), c.req.valid('json')), 'Tier created'), 201))
  .openapi(deleteTierRoute, async (c) => c.json(ok(await deleteTier(handlerContext(c), c.req.valid('param').tierId), 'Tier deleted'), 200));
