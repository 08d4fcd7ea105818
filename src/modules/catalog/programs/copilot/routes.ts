import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../../platform/http/envelope';
import { defineRoute } from '../../../../platform/http/route';
import { draftProgram } from './draft';
import { draftBody, programDraft, suggestionsResult } from './schemas';
import { listSuggestions } from './service';

const tags = ['Programs'];

const getSuggestions = defineRoute(
  { auth: 'key', scope: 'read', aiConnector: true },
  {
    method: 'get',
    path: '/api/v1/programs/copilot/suggestions',
    operationId: 'getProgramCopilotSuggestions',
    tags,
    summary: "Suggestions for the clinic's programs, from its own data",
    description:
      'Computed from the clinic’s programs, products, prices and enrollments (discontinued products in use, unpriced products, programs without products, stale drafts, live programs without patients), whether or not a model is configured. docs/copilot.md.',
    responses: { 200: jsonContent(successBody(suggestionsResult), 'Suggestions, most important first (at most 50)') },
  },
);

const createDraft = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/programs/copilot/draft',
    operationId: 'draftProgramWithCopilot',
    recordedValues: ['maxProducts'],
    tags,
    summary: 'Ask the copilot for a program draft (nothing is created)',
    description:
      'The model proposes a name, a description and products from the shared catalogue for the goal. The draft is returned, not stored: create the program with POST /api/v1/programs and set its products with PUT /api/v1/programs/{id}/products. 503 COPILOT_UNAVAILABLE when no model is configured. docs/copilot.md.',
    request: { body: jsonBody(draftBody) },
    responses: {
      200: jsonContent(successBody(programDraft), 'A draft (not persisted)'),
      409: jsonContent(errorBody, 'CONFLICT: the shared catalogue has no product at all'),
      502: jsonContent(errorBody, 'COPILOT_PROVIDER_ERROR: the model failed or gave no usable draft'),
      503: jsonContent(errorBody, 'COPILOT_UNAVAILABLE: no model is configured on this deployment'),
    },
  },
);

export const programCopilotRoutes = new OpenAPIHono<AppEnv>()
  .openapi(getSuggestions, async (c) => {
    const ctx = handlerContext(c);
    const copilotAvailable = ctx.ai !== null;
    const suggestions = await listSuggestions(ctx);
    return c.json(ok({ generatedBy: 'rules' as const, copilotAvailable, suggestions }), 200);
  })
  .openapi(createDraft, async (c) => {
    const draft = await draftProgram(handlerContext(c), c.req.valid('json'));
    return c.json(ok(draft, 'Draft ready; nothing was created'), 200);
  });
