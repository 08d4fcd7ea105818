// Email-domain authentication and the sender settings (docs/organization.md, "Email domain and sender").
import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { defineRoute } from '../../../../platform/http/route';
import {
  emailDomain,
  emailDomainStatus,
  emailDomainVerification,
  emailSender,
  startEmailDomainBody,
  updateEmailSenderBody,
} from './schemas';
import { getEmailDomainStatus, removeEmailDomain, startEmailDomain, updateEmailSender, verifyEmailDomain } from './service';

const tags = ['Organization and clinic'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;

const providerError = {
  502: jsonContent(
    errorBody,
    'DOMAIN_PROVIDER_ERROR: the email provider refused the request or no longer knows the domain; nothing was changed',
  ),
  503: jsonContent(
    errorBody,
    'DOMAIN_PROVIDER_UNAVAILABLE: the email provider did not answer (Retry-After: 5) or none is configured, or the database is unavailable; nothing was changed',
  ),
};
const none = jsonContent(errorBody, 'The clinic has no current email domain');

const status = defineRoute(read, {
  method: 'get',
  path: '/api/v1/clinic/email-domain',
  operationId: 'getEmailDomain',
  tags,
  summary: 'Email-domain authentication status, its DNS records and the sender settings',
  responses: { 200: jsonContent(successBody(emailDomainStatus), 'status none when the clinic has no current email domain') },
});

const sender = defineRoute(write, {
  method: 'put',
  path: '/api/v1/clinic/email-sender',
  operationId: 'updateEmailSender',
  tags,
  summary: "Set the reply-to address (and optionally the sender name) of the clinic's emails",
  request: { body: jsonBody(updateEmailSenderBody) },
  responses: { 200: jsonContent(successBody(emailSender), 'The sender settings now') },
});

const start = defineRoute(write, {
  method: 'post',
  path: '/api/v1/clinic/email-domain/start',
  operationId: 'startEmailDomain',
  tags,
  summary: "Register a domain to send the clinic's emails from; answers the DNS records to add",
  description:
    'Registers the domain (status pending) and answers the records to publish: SPF, DKIM and the return-path MX. fromLocalPart is saved: emails go out from ' +
    '<fromLocalPart>@<domain> once verified. One current email domain per clinic.',
  request: { body: jsonBody(startEmailDomainBody) },
  responses: {
    200: jsonContent(successBody(emailDomain), 'Registered; publish dnsRecords, then verify'),
    409: jsonContent(
      errorBody,
      'EMAIL_DOMAIN_EXISTS: the clinic already has a current email domain (remove it first); CONFLICT: another brand uses the domain',
    ),
    ...providerError,
  },
});

const verify = defineRoute(write, {
  method: 'post',
  path: '/api/v1/clinic/email-domain/verify',
  operationId: 'verifyEmailDomain',
  tags,
  summary: "Check the email domain's DNS records (pending -> verified)",
  description:
    'Asks the provider to check the records now. Not yet: verified false with the problems. Development: the records count as published 60 seconds after start.',
  responses: { 200: jsonContent(successBody(emailDomainVerification), 'The result of the check'), 404: none, ...providerError },
});

const remove = defineRoute(write, {
  method: 'post',
  path: '/api/v1/clinic/email-domain/remove',
  operationId: 'removeEmailDomain',
  tags,
  summary: 'Remove the email domain (pending or verified -> removed)',
  description: "Emails go out from the platform's sender again; start may be called again.",
  responses: { 200: jsonContent(successBody(emailDomain), 'Removed'), 404: none, ...providerError },
});

export const emailDomainRoutes = new OpenAPIHono<AppEnv>()
  .openapi(status, async (c) => {
    return c.json(ok(await getEmailDomainStatus(handlerContext(c))), 200);
  })
  .openapi(sender, async (c) => {
    return c.json(ok(await updateEmailSender(handlerContext(c), c.req.valid('json')), 'Sender settings saved'), 200);
  })
  .openapi(start, async (c) => {
    const domain = await startEmailDomain(handlerContext(c), c.req.valid('json'));
    return c.json(ok(domain, 'Email domain registered; publish the DNS records, then verify'), 200);
  })
  .openapi(verify, async (c) => {
    const result = await verifyEmailDomain(handlerContext(c));
    return c.json(ok(result, result.verified ? 'Email domain verified' : 'Email domain not verified yet'), 200);
  })
  .openapi(remove, async (c) => {
    return c.json(ok(await removeEmailDomain(handlerContext(c)), 'Email domain removed'), 200);
  });
