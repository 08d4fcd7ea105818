import { z } from '@hono/zod-openapi';
import { safeString } from '../../../../platform/values/strings';
import { feeSource, programGlobalProductDetail } from '../schemas';

// A program's products (pricing read, product set, activation, visibility, the pool of global
// products), its template sync and its titration attachments. Money in dollars unless *Cents.

/** A money field of an answer: dollars. */
export const money = (description: string) => z.number().openapi({ description, example: 99 });
const moneyOrNull = (description: string) => z.number().nullable().openapi({ description, example: 99 });

export const pricedProduct = z
  .object({
    globalProductId: z.string().uuid(),
    name: z.string(),
    displayOrder: z.number().int(),
    linkSource: z
      .enum(['program', 'template'])
      .openapi({ description: 'template: came from the program template (sync); program: added to the program.' }),
    isPatientVisible: z.boolean(),
    displayPrice: moneyOrNull(
      'What the patient pays for one pack: pharmacyBasePrice + facilitationFee + effectiveProgramFee. Never times months, never with nonMedicalServiceFee. null when hasResolvedPrice is false.',
    ),
    effectiveProgramFee: moneyOrNull(
      'The resolved fee (clinic override, else program base fee, else tenant placeholder); null when none is set.',
    ),
    feeSource,
    clinicProgramFee: moneyOrNull("The clinic's override (productPricing), or null."),
    programBaseFee: moneyOrNull("The program's base fee (from its template, or set on the program), or null."),
    placeholderPrice: moneyOrNull("The tenant placeholder fee of the clinic's tenant product, or null."),
    pharmacyBasePrice: money('Pharmacy cost of one pack.'),
    facilitationFee: money("The clinic's tenant-product facilitation fee (0 without a tenant product); part of displayPrice."),
    packDurationMonths: z.number().int(),
    vialsPerPack: z.number().int(),
    supplyDays: z.number().int(),
    allowPrepay: z.boolean(),
    isSellable: z.boolean().openapi({ description: 'hasResolvedPrice and isCostBacked, active in the program and not discontinued.' }),
    isCostBacked: z.boolean().openapi({ description: 'A pharmacy cost resolves and a pharmacy fills the product.' }),
    hasResolvedPrice: z.boolean().openapi({ description: 'A fee and a pharmacy cost both resolve. Not an activation gate.' }),
  })
  .openapi('ProgramPricedProduct');

export const pricingRead = z
  .object({
    programId: z.string().uuid(),
    nonMedicalServiceFee: money('Billed on its own line.'),
    nonMedicalServiceFeeIncludedInDisplayPrice: z.boolean().openapi({ description: 'Always false: displayPrice never includes it.' }),
    products: z.array(pricedProduct),
  })
  .openapi('ProgramPricing');
export type PricingRead = z.infer<typeof pricingRead>;

export const MAX_PROGRAM_PRODUCTS = 100;

export const replaceProductsBody = z
  .object({
    products: z
      .array(z.object({ productId: safeString().uuid().openapi({ description: 'A global product id.' }) }).strict())
      .max(MAX_PROGRAM_PRODUCTS)
      .openapi({ description: `The whole product set, in display order (at most ${MAX_PROGRAM_PRODUCTS}).` }),
  })
  .strict()
  .openapi('ReplaceProgramProductsRequest');

export const poolProduct = programGlobalProductDetail
  .extend({
    inProgram: z.boolean(),
    feeSource,
    effectiveProgramFee: moneyOrNull('The fee the product has (in the program) or would have (added now: the tenant placeholder).'),
    facilitationFee: money('Part of displayPrice.'),
    displayPrice: moneyOrNull('Price of one pack with that fee; null when no fee resolves.'),
    hasResolvedPrice: z.boolean(),
  })
  .openapi('ProgramPoolProduct');

export const productActivation = z
  .object({
    globalProductId: z.string().uuid(),
    name: z.string(),
    isActive: z.boolean(),
    isDiscontinued: z.boolean(),
    hasResolvedPrice: z.boolean(),
    isSellable: z.boolean(),
  })
  .openapi('ProgramProductActivation');

export const productVisibility = z
  .object({ globalProductId: z.string().uuid(), name: z.string(), isPatientVisible: z.boolean() })
  .openapi('ProgramProductVisibility');

export const activationStatus = z
  .object({ programId: z.string().uuid(), products: z.array(productActivation) })
  .openapi('ProgramActivationStatus');
export const visibilityStatus = z
  .object({ programId: z.string().uuid(), products: z.array(productVisibility) })
  .openapi('ProgramVisibilityStatus');

export const activateBody = z.object({ isActive: z.boolean() }).strict().openapi('ProgramProductActivateRequest');
export const visibilityBody = z.object({ isPatientVisible: z.boolean() }).strict().openapi('ProgramProductVisibilityRequest');
