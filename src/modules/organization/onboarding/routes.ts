import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { registerOnboardingSimulator } from './dev-routes';
import { businessDetailsBody, nameChangeBody, onboardingStatus, signatureBody } from './schemas';
import { confirmSignatureDeclaration, getOnboardingStatus, requestNameChange, saveBusinessDetails } from './service';

const tags = ['Onboarding'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;
const noOnboarding = jsonContent(errorBody, 'NOT_FOUND: the clinic has no onboarding (it starts with POST /api/v1/sandbox/go-live)');
const statusAfter = (what: string) => jsonContent(successBody(onboardingStatus), `${what}; the onboarding status as it is now`);

const status = defineRoute(read, {
  method: 'get',
  path: '/api/v1/onboarding/status',
  operationId: 'getOnboardingStatus',
  tags,
  summary: 'Where onboarding is: the current step, every step, the signer, what is missing',
  responses: { 200: jsonContent(successBody(onboardingStatus), 'The status'), 404: noOnboarding },
});

const nameChange = defineRoute(write, {
  method: 'post',
  path: '/api/v1/onboarding/request-name-change',
  operationId: 'requestOnboardingNameChange',
  tags,
  summary: "Corrects the signer's name: once, and only before identity verification",
  request: { body: jsonBody(nameChangeBody) },
  responses: {
    200: statusAfter('Changed'),
    400: jsonContent(errorBody, 'VALIDATION_ERROR: a name is missing or invalid; NAME_UNCHANGED: it is the current name'),
    404: noOnboarding,
    409: jsonContent(errorBody, 'NAME_CHANGE_ALREADY_USED: the one change was made; IDENTITY_ALREADY_VERIFIED: too late'),
  },
});

const signature = defineRoute(write, {
  method: 'post',
  path: '/api/v1/onboarding/confirm-signature-declaration',
  operationId: 'confirmOnboardingSignatureDeclaration',
  tags,
  summary: "Signs the agreement by typing the signer's full name; advances to plan payment",
  request: { body: jsonBody(signatureBody) },
  responses: {
    200: statusAfter('Signed'),
    400: jsonContent(errorBody, "SIGNATURE_NAME_MISMATCH: typedName is not the signer's name; VALIDATION_ERROR: invalid body"),
    404: noOnboarding,
    409: jsonContent(errorBody, 'WRONG_ONBOARDING_STEP: onboarding is not at the agreement step; SIGNER_MISSING: there is no signer'),
  },
});

const business = defineRoute(write, {
  method: 'post',
  path: '/api/v1/onboarding/save-business-details',
  operationId: 'saveOnboardingBusinessDetails',
  recordedValues: ['businessType'],
  tags,
  summary: "Saves the business's legal details (validated) and advances to identity verification",
  request: { body: jsonBody(businessDetailsBody) },
  responses: {
    200: statusAfter('Saved'),
    404: noOnboarding,
    409: jsonContent(errorBody, "WRONG_ONBOARDING_STEP: the signer's identity is already verified, the details can no longer change"),
  },
});

export const onboardingRoutes = new OpenAPIHono<AppEnv>()
  .openapi(status, async (c) => c.json(ok(await getOnboardingStatus(handlerContext(c))), 200))
  .openapi(nameChange, async (c) => {
    return c.json(ok(await requestNameChange(handlerContext(c), c.req.valid('json')), "Signer's name changed"), 200);
  })
  .openapi(signature, async (c) => {
    return c.json(
      ok(await confirmSignatureDeclaration(handlerContext(c), c.req.valid('json').typedName), 'Signature declaration confirmed'),
      200,
    );
  })
  .openapi(business, async (c) => {
    return c.json(ok(await saveBusinessDetails(handlerContext(c), c.req.valid('json')), 'Business details saved'), 200);
  });

registerOnboardingSimulator(onboardingRoutes);
