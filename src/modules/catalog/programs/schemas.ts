import { z } from '@hono/zod-openapi';
import { errorBody } from '../../../platform/http/envelope';
import { pageQuery } from '../../../platform/http/pagination';
import { pathId } from '../../../platform/values/ids';
import { amount } from '../../../platform/values/money';
import { safeString, text } from '../../../platform/values/strings';
import { globalProductFields } from '../program-templates/schemas';
import { FEE_SOURCES } from './pricing';

// Programs: a Program (the spec's field list plus state, templateId, createdAt, updatedAt) and its
// bodies. Money fields without "Cents" in their name are dollars (49.99); see docs/programs.md.

export const OFFERED_STATES = ['draft', 'live', 'paused'] as const;
export const LISTED_STATES = ['draft', 'live', 'paused', 'retired'] as const;

export const programGlobalProductDetail = z
  .object({
    ...globalProductFields,
    imageUrl: z
      .string()
      .nullable()
      .openapi({ description: "The brand's image override for the product when it set one, else the shared image." }),
  })
  .openapi('ProgramGlobalProductDetail');

export const program = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    description: z.string().nullable(),
    isActive: z.boolean().openapi({ description: 'Offered to new patients. Retired programs are always inactive.' }),
    isFeatured: z.boolean(),
    nonMedicalServiceFee: z
      .number()
      .openapi({ description: 'Dollars, billed on its own line; never part of a displayPrice.', example: 49 }),
    heroImageUrl: z.string().nullable(),
    customSlug: z.string().nullable(),
    accentColor: z.string().nullable(),
    sellableProductCount: z.number().int().openapi({ description: 'Products whose isSellable is true (pricing read).' }),
    unpricedProductCount: z.number().int().openapi({ description: 'Products whose hasResolvedPrice is false (pricing read).' }),
    programGlobalProducts: z.array(
      z.object({
        id: z.string().uuid().openapi({ description: "The program product's id (the row linking the program to the global product)." }),
        displayOrder: z.number().int(),
        isPatientVisible: z.boolean(),
        globalProduct: programGlobalProductDetail,
      }),
    ),
    state: z
      .enum(LISTED_STATES)
      .openapi({ description: 'draft, live, paused; retired after a DELETE that could not remove it (docs/programs.md).' }),
    templateId: z.string().uuid().nullable().openapi({ description: 'The program template it derives from (sync), or null.' }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('Program');
export type Program = z.infer<typeof program>;

export const listProgramsQuery = pageQuery.extend({
  state: z.enum(LISTED_STATES).optional().openapi({
    description: 'Only programs in this state. Without it every program that is not retired is listed.',
  }),
});

const slug = safeString()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lowercase letters, digits and single hyphens')
  .openapi({ example: 'weight-loss' });
const color = safeString()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour like #1A2B3C')
  .openapi({ example: '#0F766E' });
const imageUrl = safeString()
  .max(2048)
  .regex(/^https:\/\/[^\s]+$/, 'must be an https URL')
  .openapi({ example: 'https://cdn.example.com/programs/hero.jpg' });

const editableFields = {
  name: safeString().trim().min(1).max(200).openapi({ example: 'Medical Weight Loss' }),
  description: text().max(5000).nullable().optional(),
  isActive: z.boolean().optional(),
  isFeatured: z.boolean().optional(),
  nonMedicalServiceFee: amount().optional().openapi({ type: 'number', description: 'Dollars.', example: 49 }),
  heroImageUrl: imageUrl.nullable().optional(),
  customSlug: slug.nullable().optional().openapi({ description: 'Unique within the clinic (409 CONFLICT otherwise).' }),
  accentColor: color.nullable().optional(),
  state: z
    .enum(OFFERED_STATES)
    .optional()
    .openapi({ description: 'draft (default), live or paused. A program is retired only by DELETE.' }),
};

export const createProgramBody = z
  .object({
    ...editableFields,
    templateId: safeString().uuid().optional().openapi({
      description:
        'Derive the program from this program template: its products and base fees, and its nonMedicalServiceFee unless one is given.',
    }),
  })
  .strict()
  .openapi('CreateProgramRequest');
export type CreateProgramBody = z.infer<typeof createProgramBody>;

export const MAX_PRICING_ENTRIES = 200;

export const updateProgramBody = z
  .object({
    ...editableFields,
    name: editableFields.name.optional(),
    productPricing: z
      .record(
        safeString().max(64),
        z
          .object({
            programFee: amount()
              .nullable()
              .openapi({ type: 'number', description: 'Dollars; null clears the clinic override.', example: 99 }),
          })
          .strict(),
      )
      .optional()
      .openapi({
        description:
          'Clinic fee overrides keyed by global product id (each a product of this program; any other id is a 400 naming it). programFee null removes the override.',
        example: { '00000000-0000-4000-8002-000000000001': { programFee: 99 } },
      }),
  })
  .strict()
  .refine((body) => Object.keys(body.productPricing ?? {}).length <= MAX_PRICING_ENTRIES, {
    message: `at most ${MAX_PRICING_ENTRIES} productPricing entries`,
    path: ['productPricing'],
  })
  .openapi('UpdateProgramRequest');
export type UpdateProgramBody = z.infer<typeof updateProgramBody>;

export const programAndProductParams = z.object({ id: pathId('id'), productId: pathId('productId') });
export const programAndAttachmentParams = z.object({ id: pathId('id'), attachmentId: pathId('attachmentId') });

export const windDownConflict = errorBody
  .extend({
    code: z.literal('WINDDOWN_CONSENT_REQUIRED'),
    data: z.object({ patients: z.number().int().openapi({ description: 'Patients with an active enrollment on the program.' }) }),
  })
  .openapi('WindDownConsentRequiredError');

export const overview = z
  .object({
    stats: z.object({
      livePrograms: z.number().int(),
      draftPrograms: z.number().int(),
      pausedPrograms: z.number().int(),
      totalPatients: z
        .number()
        .int()
        .openapi({ description: 'Distinct patients with an active enrollment on a program that is not retired.' }),
      estBilledMonthlyCents: z.number().int(),
      estNetMonthlyCents: z.number().int(),
    }),
    perProgram: z.array(
      z.object({
        programId: z.string().uuid(),
        patients: z.number().int(),
        estBilledMonthlyCents: z.number().int(),
        estNetMonthlyCents: z.number().int(),
      }),
    ),
    attention: z.array(
      z.object({
        type: z.enum(['unpriced_products', 'discontinued_product_in_use', 'pharmacy_price_increase']),
        programId: z.string().uuid(),
        programName: z.string(),
        headline: z.string(),
        detail: z.string(),
        estValueCents: z
          .number()
          .int()
          .nullable()
          .openapi({ description: 'Monthly cents at stake, when it can be estimated (docs/programs.md).' }),
        action: z.enum(['set_product_pricing', 'replace_discontinued_product', 'review_program_fee']),
      }),
    ),
  })
  .openapi('ProgramsOverview');
export type Overview = z.infer<typeof overview>;

export const feeSource = z.enum(FEE_SOURCES);

// Template sync (/programs/{id}/sync, /programs/sync-all, /programs/{id}/sync-status).
export const syncStatus = z
  .object({
    programId: z.string().uuid(),
    templateId: z.string().uuid().nullable(),
    templateVersion: z.number().int().nullable().openapi({ description: 'The template version the program last applied.' }),
    latestTemplateVersion: z.number().int().nullable().openapi({ description: "The template's current version." }),
    isBehind: z.boolean().openapi({ description: 'templateVersion < latestTemplateVersion (a program never synced is behind).' }),
  })
  .openapi('ProgramSyncStatus');

export const syncResult = syncStatus
  .extend({
    addedProducts: z.number().int(),
    updatedProducts: z.number().int(),
    removedProducts: z.number().int(),
  })
  .openapi('ProgramSyncResult');

export type SyncResult = z.infer<typeof syncResult>;

export const syncAllResult = z.object({ synced: z.number().int(), programs: z.array(syncResult) }).openapi('ProgramSyncAllResult');
