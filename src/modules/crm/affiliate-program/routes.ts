// The affiliate program's configuration and margin estimate; its affiliates, payouts, tax documents and
// tiers are routed from their own folders.
import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { read, tags, write } from './access';
import { marginEstimate as marginEstimateSchema, programConfig, programConfigBody } from './schemas';
import { getProgramConfig, marginEstimate, updateProgramConfig } from './service';

const getConfig = defineRoute(read, {
  method: 'get',
  path: '/api/v1/affiliate-program',
  operationId: 'getAffiliateProgram',
  tags,
  summary: 'The affiliate program configuration (defaults when never saved), with its tiers',
  responses: { 200: jsonContent(successBody(programConfig), 'The configuration') },
});

const putConfig = defineRoute(write, {
  method: 'put',
  path: '/api/v1/affiliate-program',
  operationId: 'updateAffiliateProgram',
  recordedValues: [
    'affiliateProgramEnabled',
    'affiliateCommissionMode',
    'affiliateFirstOrderRate',
    'affiliateDefaultRate',
    'affiliateCommissionDurationMonths',
    'affiliateCookieWindowDays',
    'affiliateMinimumPayoutThreshold',
    'affiliatePayoutFrequency',
    'affiliateMaxCount',
  ],
  tags,
  summary: 'Update the affiliate program configuration (only the fields sent change)',
  request: { body: jsonBody(programConfigBody) },
  responses: {
    200: jsonContent(successBody(programConfig), 'The configuration after the update'),
    409: jsonContent(errorBody, 'CONFLICT: the commission mode changes while affiliates hold rate overrides'),
  },
});

const margin = defineRoute(read, {
  method: 'get',
  path: '/api/v1/affiliate-program/margin-estimate',
  operationId: 'getAffiliateMarginEstimate',
  tags,
  summary: "What a commission costs the clinic on each priced product of its programs, at the program's rates",
  responses: { 200: jsonContent(successBody(marginEstimateSchema), 'Per program and product') },
});

export const affiliateProgramRoutes = new OpenAPIHono<AppEnv>()
  .openapi(getConfig, async (c) => c.json(ok(await getProgramConfig(handlerContext(c))), 200))
  .openapi(putConfig, async (c) => {
    const updated = await updateProgramConfig(handlerContext(c), c.req.valid('json'));
    return c.json(ok(updated, 'Affiliate program updated'), 200);
  })
  .openapi(margin, async (c) => c.json(ok(await marginEstimate(handlerContext(c))), 200));
