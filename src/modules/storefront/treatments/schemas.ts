import { z } from '@hono/zod-openapi';
import { amount } from '../../../platform/values/money';
import { plainLine, plainText, safeString } from '../../../platform/values/strings';
import { storedImage } from '../../catalog';

/** #rgb or #rrggbb (docs/treatments.md). */
export const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

const treatmentFields = {
  name: plainLine()
    .trim()
    .min(1)
    .max(120)
    .openapi({ description: '1-120 characters of plain text (no HTML markup or template expressions).', example: 'Medical Weight Loss' }),
  description: plainText().trim().max(2000).nullable().openapi({
    description: 'At most 2000 characters of plain text (no HTML markup or template expressions); null: none.',
    example: 'GLP-1 programs with monthly check-ins',
  }),
  brandColor: safeString()
    .trim()
    .regex(HEX_COLOR, 'must be a hex color (#rgb or #rrggbb)')
    .nullable()
    .openapi({ description: "The treatment's accent color, #rgb or #rrggbb; null: none.", example: '#2F6FED' }),
  productsPrice: amount().nullable().openapi({
    type: 'number',
    description: "Price of the treatment's products together, US dollars (at most two decimals); null: not priced.",
    example: 199,
  }),
  isActive: z.boolean().openapi({ description: 'An inactive treatment stays listed but is not offered.' }),
};

export const createTreatmentBody = z
  .object({
    name: treatmentFields.name,
    description: treatmentFields.description.default(null),
    brandColor: treatmentFields.brandColor.default(null),
    productsPrice: treatmentFields.productsPrice.default(null),
    isActive: treatmentFields.isActive.default(true),
  })
  .strict()
  .openapi('CreateTreatmentRequest');
export type CreateTreatmentBody = z.infer<typeof createTreatmentBody>;

export const updateTreatmentBody = z
  .object(treatmentFields)
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must contain at least one field' })
  .openapi('UpdateTreatmentRequest', { description: 'A partial update: only the fields sent change. The slug never changes.' });
export type UpdateTreatmentBody = z.infer<typeof updateTreatmentBody>;

export const treatment = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    slug: z.string().openapi({
      description: 'From the name at creation, unique in the clinic (-2, -3... on a collision); never changes.',
      example: 'medical-weight-loss',
    }),
    description: z.string().nullable(),
    selected: z
      .boolean()
      .openapi({ description: 'The brand offers it: an active brand treatment exists for it (POST /brand-treatments).' }),
    brandColor: z.string().nullable(),
    brandLogo: z.string().nullable().openapi({ description: "The treatment's logo URL (POST /treatment/{id}/upload-logo); null: none." }),
    clinicSlug: z.string().openapi({ description: "The clinic's slug.", example: 'demo-clinic' }),
    productsPrice: z.number().nullable().openapi({ description: 'US dollars; null: not priced.' }),
    isActive: z.boolean(),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('Treatment');
export type Treatment = z.infer<typeof treatment>;

export const brandTreatment = z
  .object({
    id: z.string().uuid().openapi({ description: 'The brand treatment (the selection) itself.' }),
    treatmentId: z.string().uuid(),
    name: z.string().openapi({ description: "The treatment's name." }),
    treatmentLogo: z.string().nullable().openapi({ description: "The treatment's logo URL; null: none." }),
    active: z.boolean().openapi({ description: 'The treatment itself is active (Treatment.isActive).' }),
    selected: z.boolean().openapi({ description: 'The selection is active (what Treatment.selected reports).' }),
    brandLogo: z.string().nullable().openapi({ description: "The brand's (clinic's) logo URL; null: none." }),
    brandColor: z.string().nullable().openapi({ description: "The treatment's brand color; null: none." }),
    clinicSlug: z.string(),
    createdAt: z.string().datetime(),
  })
  .openapi('BrandTreatment');
export type BrandTreatment = z.infer<typeof brandTreatment>;

export const brandTreatmentBody = z
  .object({ treatmentId: z.string().uuid().openapi({ description: "One of the clinic's treatments." }) })
  .strict()
  .openapi('BrandTreatmentRequest');

export const removedBrandTreatment = z
  .object({ treatmentId: z.string().uuid(), removed: z.literal(true) })
  .openapi('RemovedBrandTreatment');

const logoFile = z
  .custom<File>((value) => value instanceof Blob, { message: 'must be one file (multipart field logo)' })
  .openapi({
    type: 'string',
    format: 'binary',
    description: 'The logo: PNG, JPEG, WebP or GIF (read from the bytes; SVG refused), at most 5 MiB.',
  });

/** "true" / "false" as a form field or query value. */
const flag = z.enum(['true', 'false']).openapi({ description: 'true clears the logo (send no logo with it).' });

export const logoUploadForm = z.object({ logo: logoFile.optional(), removeLogo: flag.optional() }).strict().openapi('TreatmentLogoForm');

export const logoUploadQuery = z.object({ removeLogo: flag.optional() });

export const treatmentLogoResult = z
  .object({
    treatmentId: z.string().uuid(),
    logoUrl: z.string().nullable().openapi({ description: "The treatment's logo URL now (brandLogo); null after removeLogo." }),
    upload: z.union([storedImage, z.null()]).openapi({ description: 'The stored file; null after removeLogo.' }),
  })
  .openapi('TreatmentLogoResult');
