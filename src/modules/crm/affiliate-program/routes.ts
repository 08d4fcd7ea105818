import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { approvePayout, excludeCommissions, generatePayouts, listPayoutCommissions, listPayouts, markPayoutPaid } from './payouts';
import {
  affiliate,
  commission,
  createTierBody,
  deletedTier,
  docIdParam,
  excludeCommissionsBody,
  excludePayoutIdParam,
  generateResult,
  listPayoutsQuery,
  listTaxDocumentsQuery,
  marginEstimate as marginEstimateSchema,
  markPaidBody,
  membershipIdParam,
  payout,
  payoutIdParam,
  programConfig,
  programConfigBody,
  rejectTaxDocumentBody,
  taxDocument,
  tier,
  tierIdParam,
  updateAffiliateBody,
} from './schemas';
import { getProgramConfig, listAffiliates, marginEstimate, updateAffiliate, updateProgramConfig } from './service';
import { createTier, deleteTier, listTaxDocuments, rejectTaxDocument, verifyTaxDocument } from './tax-tiers';

// The affiliate program (docs/affiliates.md). Every route needs the clinic plan's Affiliates
// entitlement: 403 AFFILIATES_TIER_REQUIRED, checked after the key's scope.
const tags = ['Affiliate program'];
const read = { auth: 'key', scope: 'read', gate: 'affiliates' } as const;
const write = { auth: 'key', scope: 'write', gate: 'affiliates' } as const;
const illegal = (what: string) => jsonContent(errorBody, `ILLEGAL_TRANSITION: ${what}`);

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
  tags,
  summary: "Set or clear an affiliate's rate overrides and payout details (only the fields sent change)",
  request: { params: membershipIdParam, body: jsonBody(updateAffiliateBody) },
  responses: { 200: jsonContent(successBody(affiliate), 'The affiliate after the update') },
});

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

const listTaxDocs = defineRoute(read, {
  method: 'get',
  path: '/api/v1/affiliate-program/tax-documents',
  operationId: 'listAffiliateTaxDocuments',
  tags,
  summary: "List the affiliates' tax documents, newest submission first",
  request: { query: listTaxDocumentsQuery },
  responses: { 200: jsonContent(pagedBody(taxDocument), 'Tax documents') },
});

const verify = defineRoute(write, {
  method: 'post',
  path: '/api/v1/affiliate-program/tax-documents/{docId}/verify',
  operationId: 'verifyAffiliateTaxDocument',
  tags,
  summary: 'Verify a pending tax document',
  request: { params: docIdParam },
  responses: { 200: jsonContent(successBody(taxDocument), 'The verified document'), 409: illegal('the document is not pending') },
});

const reject = defineRoute(write, {
  method: 'post',
  path: '/api/v1/affiliate-program/tax-documents/{docId}/reject',
  operationId: 'rejectAffiliateTaxDocument',
  tags,
  summary: 'Reject a pending tax document, with a reason',
  request: { params: docIdParam, body: jsonBody(rejectTaxDocumentBody) },
  responses: { 200: jsonContent(successBody(taxDocument), 'The rejected document'), 409: illegal('the document is not pending') },
});

const createTierRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/affiliate-program/tiers',
  operationId: 'createAffiliateTier',
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

const clinicOf = (c: { get(key: 'apiKey'): { clinicId: string } }) => c.get('apiKey').clinicId;

export const affiliateRoutes = new OpenAPIHono<AppEnv>()
  .openapi(getConfig, async (c) => c.json(ok(await getProgramConfig(c.get('services').db, clinicOf(c))), 200))
  .openapi(putConfig, async (c) => {
    const { db, now } = c.get('services');
    return c.json(ok(await updateProgramConfig(db, clinicOf(c), c.req.valid('json'), now()), 'Affiliate program updated'), 200);
  })
  .openapi(margin, async (c) => c.json(ok(await marginEstimate(c.get('services').db, clinicOf(c))), 200))
  .openapi(listAffiliatesRoute, async (c) => {
    const { data, pagination } = await listAffiliates(c.get('services').db, clinicOf(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(patchAffiliate, async (c) => {
    const { db, now } = c.get('services');
    const updated = await updateAffiliate(db, clinicOf(c), c.req.valid('param').membershipId, c.req.valid('json'), now());
    return c.json(ok(updated, 'Affiliate updated'), 200);
  })
  .openapi(listPayoutsRoute, async (c) => {
    const { data, pagination } = await listPayouts(c.get('services').db, clinicOf(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(generate, async (c) => {
    const { db, now } = c.get('services');
    const result = await generatePayouts(db, clinicOf(c), now());
    return c.json(ok(result, `${result.payoutsCreated} payout(s) generated`), 200);
  })
  .openapi(commissions, async (c) => {
    const { data, pagination } = await listPayoutCommissions(
      c.get('services').db,
      clinicOf(c),
      c.req.valid('param').id,
      c.req.valid('query'),
    );
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(approve, async (c) => {
    const { db, now } = c.get('services');
    return c.json(ok(await approvePayout(db, clinicOf(c), c.req.valid('param').id, now()), 'Payout approved'), 200);
  })
  .openapi(markPaid, async (c) => {
    const { db, now } = c.get('services');
    const paid = await markPayoutPaid(db, clinicOf(c), c.req.valid('param').id, c.req.valid('json').notes, now());
    return c.json(ok(paid, 'Payout marked paid'), 200);
  })
  .openapi(exclude, async (c) => {
    const { db, now } = c.get('services');
    const result = await excludeCommissions(db, clinicOf(c), c.req.valid('param').payoutId, c.req.valid('json').commissionIds, now());
    return c.json(ok(result, 'Commissions excluded'), 200);
  })
  .openapi(listTaxDocs, async (c) => {
    const { data, pagination } = await listTaxDocuments(c.get('services').db, clinicOf(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(verify, async (c) => {
    const { db, now } = c.get('services');
    return c.json(ok(await verifyTaxDocument(db, clinicOf(c), c.req.valid('param').docId, now()), 'Tax document verified'), 200);
  })
  .openapi(reject, async (c) => {
    const { db, now } = c.get('services');
    const rejected = await rejectTaxDocument(db, clinicOf(c), c.req.valid('param').docId, c.req.valid('json').reason, now());
    return c.json(ok(rejected, 'Tax document rejected'), 200);
  })
  .openapi(createTierRoute, async (c) => {
    const { db, now } = c.get('services');
    return c.json(ok(await createTier(db, clinicOf(c), c.req.valid('json'), now()), 'Tier created'), 201);
  })
  .openapi(deleteTierRoute, async (c) => {
    return c.json(ok(await deleteTier(c.get('services').db, clinicOf(c), c.req.valid('param').tierId), 'Tier deleted'), 200);
  });
