import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { intakeDevRoutes, intakePlatformRoutes } from './dev-routes';
import {
  formFunnel as formFunnelSchema,
  formIdParam,
  formsAnalyticsQuery,
  formsAnalytics as formsSchema,
  likeCountsBody,
  likeCounts as likeCountsSchema,
  likesAnalyticsQuery,
  likesAnalytics as likesSchema,
  pagedFunnelBody,
  programFunnel as programFunnelSchema,
  programIdParam,
  sessionsQuery,
  tenantProductIdParam,
} from './schemas';
import { formFunnel, formsAnalytics, likeCounts, likesAnalytics, programFunnel } from './service';

// Intake-form analytics and product-like analytics (docs/analytics.md). The clinic is always the
// key's (a clinicId query parameter is accepted and ignored); one SQL statement per read.

const tags = ['Dashboard and analytics'];
const read = { auth: 'key', scope: 'read' } as const;
/** Aggregates without any patient or session row: on the AI-connector allowlist (docs/api-keys.md). */
const aggregate = { ...read, aiConnector: true } as const;

const forms = defineRoute(aggregate, {
  method: 'get',
  path: '/api/v1/analytics/forms',
  operationId: 'getFormsAnalytics',
  tags,
  summary: "Session figures of each of the clinic's intake forms: started, completed, abandoned, rates, steps reached",
  request: { query: formsAnalyticsQuery },
  responses: { 200: jsonContent(successBody(formsSchema), 'Per form and in total (default: every session)') },
});

const formSessions = defineRoute(read, {
  method: 'get',
  path: '/api/v1/analytics/forms/{formId}/sessions',
  operationId: 'getFormFunnelSessions',
  tags,
  summary: 'The funnel of one intake form (sessions reaching each step) and a page of its sessions, without patient data',
  request: { params: formIdParam, query: sessionsQuery },
  responses: { 200: jsonContent(pagedFunnelBody(formFunnelSchema), 'The funnel and the page of sessions') },
});

const programSessions = defineRoute(read, {
  method: 'get',
  path: '/api/v1/analytics/programs/{questionnaireId}/sessions',
  operationId: 'getProgramFunnelSessions',
  tags,
  summary: "The funnel of one program's intake sessions (across its forms) and a page of them, without patient data",
  description: "The path parameter is named questionnaireId in the specification; it is the id of one of the clinic's programs.",
  request: { params: programIdParam, query: sessionsQuery },
  responses: { 200: jsonContent(pagedFunnelBody(programFunnelSchema), 'The funnel, the forms and the page of sessions') },
});

const likesOfProduct = defineRoute(aggregate, {
  method: 'get',
  path: '/api/v1/likes/admin/analytics/{tenantProductId}',
  operationId: 'getTenantProductLikesAnalytics',
  tags,
  summary: "Likes of one of the clinic's tenant products: totals, unique patients and a series over a window",
  request: { params: tenantProductIdParam, query: likesAnalyticsQuery },
  responses: { 200: jsonContent(successBody(likesSchema), 'The analytics (default window: the last 30 days)') },
});

const counts = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/likes/admin/counts',
    operationId: 'countTenantProductLikes',
    tags,
    summary: "Like counts of many tenant products at once (mutates nothing; ids that are not the clinic's count 0)",
    request: { body: jsonBody(likeCountsBody) },
    responses: { 200: jsonContent(successBody(likeCountsSchema), 'The counts, in the order sent') },
  },
);

export const analyticsRoutes = new OpenAPIHono<AppEnv>()
  .openapi(forms, async (c) => {
    return c.json(ok(await formsAnalytics(handlerContext(c), c.req.valid('query'))), 200);
  })
  .openapi(formSessions, async (c) => {
    const { data, pagination } = await formFunnel(handlerContext(c), c.req.valid('param').formId, c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(programSessions, async (c) => {
    const { data, pagination } = await programFunnel(handlerContext(c), c.req.valid('param').questionnaireId, c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(likesOfProduct, async (c) => {
    return c.json(ok(await likesAnalytics(handlerContext(c), c.req.valid('param').tenantProductId, c.req.valid('query'))), 200);
  })
  .openapi(counts, async (c) => {
    return c.json(ok(await likeCounts(handlerContext(c), c.req.valid('json').tenantProductIds)), 200);
  })
  // POST /_dev/intake/sessions and /_dev/intake/sessions/{id}/progress (development simulator only).
  .route('/', intakeDevRoutes)
  .route('/', intakePlatformRoutes);
