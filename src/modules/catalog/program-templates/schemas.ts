import { z } from '@hono/zod-openapi';

// Shared platform catalogues: the same for every clinic, no patient data. Money in dollars.

const templateFields = {
  id: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  nonMedicalServiceFee: z.number().openapi({ description: 'Dollars; copied to programs derived from the template.', example: 49 }),
  version: z.number().int().openapi({ description: 'Moves when the template changes; programs compare their synced version with it.' }),
  productCount: z.number().int(),
  createdAt: z.string().datetime(),
  updatedAt: z.string().datetime(),
};

export const programTemplate = z.object(templateFields).openapi('ProgramTemplate');
export type ProgramTemplate = z.infer<typeof programTemplate>;

export const programTemplateDetail = z
  .object({
    ...templateFields,
    products: z.array(
      z.object({
        globalProductId: z.string().uuid(),
        name: z.string(),
        displayOrder: z.number().int(),
        isPatientVisible: z.boolean(),
        programBaseFee: z.number().nullable().openapi({ description: "The template's fee for the product (dollars); null: none set." }),
      }),
    ),
  })
  .openapi('ProgramTemplateDetail');
export type ProgramTemplateDetail = z.infer<typeof programTemplateDetail>;

/** The fields of a global product every area shows the same way (imageUrl's meaning differs, so it is set per use). */
export const globalProductFields = {
  id: z.string().uuid().openapi({ description: 'The global product id.' }),
  name: z.string(),
  slug: z.string(),
  categories: z.array(z.string()),
  description: z.string().nullable(),
  pharmacyBasePrice: z.number().openapi({ description: 'What the pharmacy charges for one pack, dollars.', example: 129 }),
  packDurationMonths: z.number().int(),
  vialsPerPack: z.number().int(),
  supplyDays: z.number().int(),
  requiresCooler: z.boolean(),
  allowPrepay: z.boolean(),
  isDiscontinued: z.boolean(),
};

export const templateGlobalProduct = z
  .object({
    ...globalProductFields,
    imageUrl: z.string().nullable().openapi({ description: "The shared product's image (no brand override here)." }),
    displayOrder: z.number().int(),
    isPatientVisible: z.boolean(),
    programBaseFee: z.number().nullable(),
  })
  .openapi('ProgramTemplateGlobalProduct');
export type TemplateGlobalProduct = z.infer<typeof templateGlobalProduct>;
