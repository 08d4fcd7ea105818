// The custom-domain state machine's four operations (docs/organization.md, "Custom domain").
import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { defineRoute } from '../../../../platform/http/route';
import { customDomain, customDomainVerification, startCustomDomainBody } from './schemas';
import { finalizeCustomDomain, removeCustomDomain, startCustomDomain, verifyCustomDomain } from './service';

const tags = ['Organization and clinic'];
const write = { auth: 'key', scope: 'write' } as const;

const providerError = {
  502: jsonContent(
    errorBody,
    'DOMAIN_PROVIDER_ERROR: the custom-hostname provider refused the request or no longer knows the hostname; nothing was changed',
  ),
  503: jsonContent(
    errorBody,
    'DOMAIN_PROVIDER_UNAVAILABLE: the provider did not answer (Retry-After: 5) or none is configured, or the database is unavailable; nothing was changed',
  ),
};
const none = jsonContent(errorBody, 'The clinic has no current custom domain');

const start = defineRoute(write, {
  method: 'post',
  path: '/api/v1/clinic/custom-domain/start',
  operationId: 'startCustomDomain',
  tags,
  summary: 'Register a custom hostname for the storefront and request its certificate',
  description:
    'Registers the hostname (status pending_verification) and answers the DNS records to publish: a CNAME to the platform and an ownership TXT record. ' +
    'The certificate is validated over HTTP once the CNAME resolves. One current domain per clinic.',
  request: { body: jsonBody(startCustomDomainBody) },
  responses: {
    200: jsonContent(successBody(customDomain), 'Registered; publish dnsRecords, then verify'),
    409: jsonContent(
      errorBody,
      'CUSTOM_DOMAIN_EXISTS: the clinic already has a current domain (remove it first); CONFLICT: another brand uses the hostname',
    ),
    ...providerError,
  },
});

const verify = defineRoute(write, {
  method: 'post',
  path: '/api/v1/clinic/custom-domain/verify',
  operationId: 'verifyCustomDomain',
  tags,
  summary: 'Check the DNS records and certificate of the custom domain',
  description:
    'Asks the provider whether ownership and the certificate validate: pending_verification -> verified when they do; otherwise verified false with the problems. ' +
    'A verified or active domain answers verified true without a new check. Development: the records count as published 60 seconds after start.',
  responses: { 200: jsonContent(successBody(customDomainVerification), 'The result of the check'), 404: none, ...providerError },
});

const finalize = defineRoute(write, {
  method: 'post',
  path: '/api/v1/clinic/custom-domain/finalize',
  operationId: 'finalizeCustomDomain',
  tags,
  summary: 'Attach the verified custom domain (verified -> active)',
  description: 'Before a successful verify: 409 CUSTOM_DOMAIN_NOT_VERIFIED. An active domain answers as it is.',
  responses: {
    200: jsonContent(successBody(customDomain), 'Active'),
    404: none,
    409: jsonContent(
      errorBody,
      'CUSTOM_DOMAIN_NOT_VERIFIED: verify has not succeeded yet, or the domain stopped validating (it is pending_verification again)',
    ),
    ...providerError,
  },
});

const remove = defineRoute(write, {
  method: 'post',
  path: '/api/v1/clinic/custom-domain/remove',
  operationId: 'removeCustomDomain',
  tags,
  summary: 'Tear the custom domain down (any state -> removed)',
  description: 'Removes the hostname and its certificate at the provider; the hostname is free again and start may be called again.',
  responses: { 200: jsonContent(successBody(customDomain), 'Removed'), 404: none, ...providerError },
});

export const customDomainRoutes = new OpenAPIHono<AppEnv>()
  .openapi(start, async (c) => {
    const domain = await startCustomDomain(handlerContext(c), c.req.valid('json').domain);
    return c.json(ok(domain, 'Custom domain registered; publish the DNS records, then verify'), 200);
  })
  .openapi(verify, async (c) => {
    const result = await verifyCustomDomain(handlerContext(c));
    return c.json(ok(result, result.verified ? 'Custom domain verified' : 'Custom domain not verified yet'), 200);
  })
  .openapi(finalize, async (c) => {
    return c.json(ok(await finalizeCustomDomain(handlerContext(c)), 'Custom domain active'), 200);
  })
  .openapi(remove, async (c) => {
    return c.json(ok(await removeCustomDomain(handlerContext(c)), 'Custom domain removed'), 200);
  });
