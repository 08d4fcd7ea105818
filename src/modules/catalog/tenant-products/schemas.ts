import { z } from '@hono/zod-openapi';
import { errorBody } from '../../../platform/http/envelope';
import { amount } from '../../../platform/values/money';
import { safeString } from '../../../platform/values/strings';

/** Stripe's largest unit_amount (eight digits): $999,999.99. */
export const MAX_PRICE_CENTS = 99_999_999;
/** Rows one update-selection may carry. */
export const MAX_SELECTION_ROWS = 500;

/** An id in a body: any short string, so a malformed id is refused exactly like an unknown one. */
const bodyId = (description: string) =>
  safeString().max(100).openapi({ format: 'uuid', description, example: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10' });

export const updatePriceBody = z
  .object({
    tenantProductId: bodyId(
      "One of the clinic's tenant products (GET /api/v1/tenant-products). Unknown, malformed and other clinics' ids answer the same 404.",
    ),
    price: amount({ positive: true })
      .refine((cents) => cents <= MAX_PRICE_CENTS, { message: 'must be at most 999999.99' })
      .openapi({
        type: 'number',
        example: 249.99,
        description:
          "US dollars, at most two decimals, greater than 0, at most 999999.99; at least the product's pharmacy cost plus its facilitation fee, and at most the plan's maxProductPriceCents.",
      }),
  })
  .strict()
  .openapi('UpdateTenantProductPriceRequest');
export type UpdatePriceBody = z.infer<typeof updatePriceBody>;

export const updateSelectionBody = z
  .object({
    products: z
      .array(
        z
          .object({
            productId: bodyId('A tenant product id of the clinic (not a global product id).'),
            questionnaireId: bodyId("One of the clinic's questionnaires."),
          })
          .strict(),
      )
      .max(MAX_SELECTION_ROWS)
      .openapi({
        description: `The whole new selection (replaces the old one; [] clears it). At most ${MAX_SELECTION_ROWS} rows; repeated pairs count once.`,
      }),
  })
  .strict()
  .openapi('UpdateTenantProductSelectionRequest');
export type UpdateSelectionBody = z.infer<typeof updateSelectionBody>;

export const selectionResult = z
  .object({
    selections: z.array(
      z.object({
        productId: z.string().uuid().openapi({ description: 'The tenant product id.' }),
        globalProductId: z.string().uuid(),
        questionnaireId: z.string().uuid(),
      }),
    ),
    selectedProducts: z.number().int().openapi({ description: 'Distinct tenant products now selected (what the plan limit counts).' }),
    maxSelectedProducts: z.number().int().nullable().openapi({ description: "The plan's limit; null: unlimited." }),
  })
  .openapi('TenantProductSelection');
export type SelectionResult = z.infer<typeof selectionResult>;

/** 403 for the plan's limits, with what was refused in data. */
export const planLimitError = errorBody
  .extend({
    data: z
      .object({
        limit: z.number().int().optional().openapi({ description: 'PLAN_LIMIT_REACHED: the plan’s maxSelectedProducts.' }),
        requested: z.number().int().optional().openapi({ description: 'PLAN_LIMIT_REACHED: distinct tenant products in the request.' }),
        maxPriceCents: z.number().int().optional().openapi({ description: 'PLAN_PRICE_CAP_EXCEEDED: the plan’s cap, integer cents.' }),
        tenantProductIds: z
          .array(z.string().uuid())
          .optional()
          .openapi({ description: 'PLAN_PRICE_CAP_EXCEEDED: the tenant products above the cap.' }),
      })
      .optional(),
  })
  .openapi('PlanLimitError');

export const tenantProduct = z
  .object({
    id: z.string().uuid(),
    globalProductId: z.string().uuid(),
    facilitationFee: z.number(),
    price: z.number().nullable().openapi({ description: 'Dollars; null until the clinic sets one.' }),
    placeholderFee: z.number().nullable().openapi({ description: 'Dollars: the tenant placeholder fee, last in the fee resolution.' }),
    processorPriceId: z.string().nullable().openapi({ description: "The payment processor's price for `price`." }),
    isActive: z.boolean(),
    questionnaireIds: z.array(z.string().uuid()).openapi({ description: 'Questionnaires offering this product (update-selection).' }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
    globalProduct: z.object({
      id: z.string().uuid(),
      name: z.string(),
      slug: z.string(),
      categories: z.array(z.string()),
      imageUrl: z.string().nullable(),
      pharmacyBasePrice: z.number(),
      packDurationMonths: z.number().int(),
      requiresCooler: z.boolean(),
      isDiscontinued: z.boolean(),
    }),
  })
  .openapi('TenantProduct');

export type TenantProduct = z.infer<typeof tenantProduct>;
