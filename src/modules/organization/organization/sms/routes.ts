// SMS provider config, status, number activation and release (docs/organization.md, "SMS provider").
// GET /organization/sms/status and DELETE /organization/sms/release are registered before the
// {provider-path} routes of the same shape, so "status" and "release" are never taken for a provider.
import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { defineRoute } from '../../../../platform/http/route';
import { SMS_PROVIDERS, type SmsProviderName } from '../../../../platform/providers/sms';
import { notFound } from '../../../../platform/values/errors';
import { smsConfig, smsProviderParam, smsStatus, updateSmsConfigBody } from './schemas';
import { activateSmsNumber, deleteSmsConfig, getSmsConfig, getSmsStatus, putSmsConfig, releaseSmsNumber } from './service';

const tags = ['Organization and clinic'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;
const providers = SMS_PROVIDERS.join(', ');

const providerError = {
  502: jsonContent(errorBody, 'SMS_PROVIDER_ERROR: the SMS provider refused the request; nothing was changed'),
  503: jsonContent(
    errorBody,
    'SMS_PROVIDER_UNAVAILABLE: the SMS provider did not answer (Retry-After: 5), or the database is unavailable; nothing was changed',
  ),
};

/** The {provider-path} segment: a provider name this API supports, else the same 404 as an unknown path. */
function providerOf(value: string): SmsProviderName {
  const name = value.toLowerCase();
  if (!(SMS_PROVIDERS as readonly string[]).includes(name)) throw notFound('SMS provider');
  return name as SmsProviderName;
}

const status = defineRoute(read, {
  method: 'get',
  path: '/api/v1/organization/sms/status',
  operationId: 'getSmsStatus',
  tags,
  summary: "The toll-free number and this month's SMS usage against the free tier",
  description:
    'The free tier is 500 SMS per calendar month (UTC) per clinic; messagesSent counts SMS queued or sent this month (failed ones do not count). docs/organization.md.',
  responses: { 200: jsonContent(successBody(smsStatus), 'SMS status') },
});

const activate = defineRoute(write, {
  method: 'post',
  path: '/api/v1/organization/sms/activate',
  operationId: 'activateSmsNumber',
  tags,
  summary: "Provision a billable toll-free number on the clinic's SMS provider account",
  description:
    'Buys an SMS-capable US toll-free number on the stored account (configured or released -> active). Sandbox clinics always get a development number.',
  responses: {
    200: jsonContent(successBody(smsStatus), 'Active; tollFreeNumber is the new number'),
    409: jsonContent(
      errorBody,
      'SMS_NOT_CONFIGURED: no account stored (or it cannot be read); SMS_NUMBER_ACTIVE: a number is already active; SMS_CREDENTIALS_REJECTED: the provider refused the stored credentials',
    ),
    ...providerError,
  },
});

const release = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/organization/sms/release',
  operationId: 'releaseSmsNumber',
  tags,
  summary: "Release the clinic's toll-free number",
  description: 'Gives the number back to the provider (active -> released); the account stays stored and activate may be called again.',
  responses: {
    200: jsonContent(successBody(smsStatus), 'Released'),
    409: jsonContent(
      errorBody,
      'SMS_NUMBER_NOT_ACTIVE: there is no active number; SMS_CREDENTIALS_REJECTED: the provider refused the stored credentials',
    ),
    ...providerError,
  },
});

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/organization/sms/{provider}',
  operationId: 'getSmsProviderConfig',
  recordedValues: ['provider'],
  tags,
  summary: 'The stored SMS provider account (never the auth token)',
  description: `{provider} is the provider's name: ${providers}; any other name answers 404. Without a stored account: configured false, status not_configured.`,
  request: { params: smsProviderParam },
  responses: { 200: jsonContent(successBody(smsConfig), 'The config (accountSid and phoneNumber only)') },
});

const put = defineRoute(write, {
  method: 'put',
  path: '/api/v1/organization/sms/{provider}',
  operationId: 'updateSmsProviderConfig',
  recordedValues: ['provider'],
  tags,
  summary: 'Store the SMS provider account (the auth token encrypted)',
  description:
    `{provider}: ${providers}. Replaces the stored account (status configured). While a toll-free number is active only the auth token may change: ` +
    'the same accountSid and phoneNumber equal to the active number, else 409 SMS_NUMBER_ACTIVE.',
  request: { params: smsProviderParam, body: jsonBody(updateSmsConfigBody) },
  responses: {
    200: jsonContent(successBody(smsConfig), 'Stored; the token is never returned'),
    409: jsonContent(errorBody, 'SMS_NUMBER_ACTIVE: a number is active on the stored account'),
  },
});

const remove = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/organization/sms/{provider}',
  operationId: 'deleteSmsProviderConfig',
  recordedValues: ['provider'],
  tags,
  summary: 'Clear the stored SMS provider account',
  description: `{provider}: ${providers}. 404 when nothing is stored; 409 SMS_NUMBER_ACTIVE while a toll-free number is active (release it first).`,
  request: { params: smsProviderParam },
  responses: {
    200: jsonContent(successBody(smsConfig), 'Cleared (configured false)'),
    409: jsonContent(errorBody, 'SMS_NUMBER_ACTIVE: release the number first'),
  },
});

export const smsRoutes = new OpenAPIHono<AppEnv>()
  .openapi(status, async (c) => {
    return c.json(ok(await getSmsStatus(handlerContext(c))), 200);
  })
  .openapi(activate, async (c) => {
    return c.json(ok(await activateSmsNumber(handlerContext(c)), 'Toll-free number activated'), 200);
  })
  .openapi(release, async (c) => {
    return c.json(ok(await releaseSmsNumber(handlerContext(c)), 'Toll-free number released'), 200);
  })
  .openapi(get, async (c) => {
    const provider = providerOf(c.req.valid('param').provider);
    return c.json(ok(await getSmsConfig(handlerContext(c), provider)), 200);
  })
  .openapi(put, async (c) => {
    const provider = providerOf(c.req.valid('param').provider);
    return c.json(ok(await putSmsConfig(handlerContext(c), provider, c.req.valid('json')), 'SMS provider config saved'), 200);
  })
  .openapi(remove, async (c) => {
    const provider = providerOf(c.req.valid('param').provider);
    return c.json(ok(await deleteSmsConfig(handlerContext(c), provider), 'SMS provider config cleared'), 200);
  });
