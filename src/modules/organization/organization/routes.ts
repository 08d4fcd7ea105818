// The organization profile and notification settings, and the fee configuration (docs/organization.md).
import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { feeConfig, organizationSettings, updateOrganizationBody } from './schemas';
import { getFeeConfig, getOrganization, updateOrganization } from './service';

const tags = ['Organization and clinic'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/organization',
  operationId: 'getOrganization',
  tags,
  summary: 'The organization profile and its notification settings (email sender, SMS)',
  responses: { 200: jsonContent(successBody(organizationSettings), 'The organization') },
});

const update = defineRoute(write, {
  method: 'put',
  path: '/api/v1/organization/update',
  operationId: 'updateOrganization',
  tags,
  summary: 'Update the organization profile (only the fields sent change)',
  description:
    'A customDomain different from the current one starts the custom-domain flow (as POST /api/v1/clinic/custom-domain/start) in the same transaction as the profile: ' +
    "the answer's customDomain carries the DNS records to publish. The legal details from onboarding (ein, businessType, stateOfRegistration, phoneNumber) are read-only here.",
  request: { body: jsonBody(updateOrganizationBody) },
  responses: {
    200: jsonContent(successBody(organizationSettings), 'Updated'),
    409: jsonContent(
      errorBody,
      'customDomain: CUSTOM_DOMAIN_EXISTS (the clinic has another current domain; remove it first) or CONFLICT (another brand uses the hostname)',
    ),
    502: jsonContent(errorBody, 'DOMAIN_PROVIDER_ERROR: the custom-hostname provider refused customDomain; nothing was changed'),
    503: jsonContent(errorBody, 'DOMAIN_PROVIDER_UNAVAILABLE (Retry-After: 5) or the database is unavailable; nothing was changed'),
  },
});

const fees = defineRoute(read, {
  method: 'get',
  path: '/api/v1/config/fees',
  operationId: 'getFeeConfig',
  tags,
  summary: 'The fees the platform takes: pharmacy (per product), doctor, processor and merchant fees',
  description:
    "The clinic's own fee configuration, or the platform defaults (source default): processor 2.9% + 30 cents, doctor $15.00 per order, merchant fee 0%.",
  responses: { 200: jsonContent(successBody(feeConfig), 'The fee configuration') },
});

export const organizationSettingsRoutes = new OpenAPIHono<AppEnv>()
  .openapi(get, async (c) => {
    return c.json(ok(await getOrganization(handlerContext(c))), 200);
  })
  .openapi(update, async (c) => {
    return c.json(ok(await updateOrganization(handlerContext(c), c.req.valid('json')), 'Organization updated'), 200);
  })
  .openapi(fees, async (c) => {
    return c.json(ok(await getFeeConfig(handlerContext(c))), 200);
  });
