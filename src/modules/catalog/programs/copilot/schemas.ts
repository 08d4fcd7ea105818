import { z } from '@hono/zod-openapi';
import { safeString, text } from '../../../../platform/values/strings';

export const SUGGESTION_TYPES = [
  'discontinued_product_in_use',
  'unpriced_products',
  'program_without_products',
  'stale_draft',
  'live_program_without_patients',
] as const;
export type SuggestionType = (typeof SUGGESTION_TYPES)[number];

export const SUGGESTION_ACTIONS = ['replace_product', 'set_prices', 'add_products', 'publish_or_delete', 'promote_or_pause'] as const;
export type SuggestionAction = (typeof SUGGESTION_ACTIONS)[number];

export const suggestion = z
  .object({
    type: z.enum(SUGGESTION_TYPES),
    priority: z.enum(['high', 'medium', 'low']),
    programId: z.string().uuid(),
    programName: z.string(),
    globalProductId: z.string().uuid().nullable().openapi({ description: 'discontinued_product_in_use: the product; else null.' }),
    productName: z.string().nullable(),
    count: z.number().int().openapi({ description: 'unpriced_products: products without a fee; stale_draft: days in draft; else 1.' }),
    headline: z.string(),
    detail: z.string(),
    action: z.enum(SUGGESTION_ACTIONS),
  })
  .openapi('CopilotSuggestion');
export type Suggestion = z.infer<typeof suggestion>;

export const suggestionsResult = z
  .object({
    generatedBy: z
      .literal('rules')
      .openapi({ description: "Always rules: suggestions come from the clinic's own data, with or without a model." }),
    copilotAvailable: z
      .boolean()
      .openapi({ description: 'Whether POST /api/v1/programs/copilot/draft has a model (else it answers 503 COPILOT_UNAVAILABLE).' }),
    suggestions: z.array(suggestion),
  })
  .openapi('CopilotSuggestions');
export type SuggestionsResult = z.infer<typeof suggestionsResult>;

export const MAX_DRAFT_PRODUCTS = 10;

export const draftBody = z
  .object({
    goal: text().trim().min(3).max(1000).openapi({
      example: 'A GLP-1 weight-loss program for busy professionals with monthly check-ins',
      description: 'What the program should achieve, in your words (3 to 1000 characters).',
    }),
    category: safeString().trim().min(1).max(50).optional().openapi({
      example: 'weight_loss',
      description: 'Only consider catalogue products with this category (e.g. weight_loss, hormone, hair, skin, longevity).',
    }),
    maxProducts: z
      .number()
      .int()
      .min(1)
      .max(MAX_DRAFT_PRODUCTS)
      .default(5)
      .openapi({ description: `At most this many suggested products (1 to ${MAX_DRAFT_PRODUCTS}, default 5).` }),
  })
  .strict()
  .openapi('CopilotDraftRequest');
export type DraftBody = z.infer<typeof draftBody>;

export const programDraft = z
  .object({
    name: z.string(),
    description: z.string(),
    rationale: z.string().openapi({ description: 'Why these products, for the clinic (not for patients).' }),
    products: z.array(
      z.object({
        globalProductId: z.string().uuid(),
        name: z.string(),
        categories: z.array(z.string()),
        pharmacyBasePrice: z.number().openapi({ description: 'US dollars per pack.' }),
        packDurationMonths: z.number().int(),
        reason: z.string(),
      }),
    ),
    persisted: z.literal(false).openapi({
      description: 'Nothing was created: POST /api/v1/programs and PUT /api/v1/programs/{id}/products turn a draft into a program.',
    }),
    provider: z.string().openapi({ example: 'workers-ai' }),
    model: z.string().openapi({ example: '@cf/meta/llama-3.3-70b-instruct-fp8-fast' }),
  })
  .openapi('ProgramDraft');
export type ProgramDraft = z.infer<typeof programDraft>;
