import { z } from '@hono/zod-openapi';
import { paginationSchema } from '../../../platform/http/pagination';
import { amount } from '../../../platform/values/money';
import { safeString, text } from '../../../platform/values/strings';

// Money out is dollars (centsToAmount); money in goes through amount(), which hands the service cents.

export const PRODUCT_SOURCES = ['clinic', 'platform'] as const;

export const pharmacyRef = z.object({ id: z.string().uuid(), name: z.string(), slug: z.string() }).openapi('PharmacyRef');

export const product = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    category: z.string().nullable().openapi({ description: 'Platform products: their first category.' }),
    categories: z.array(z.string()),
    isActive: z.boolean().openapi({ description: 'Platform products: false when discontinued.' }),
    pharmacyProvider: z
      .string()
      .nullable()
      .openapi({ description: "Platform products: the primary pharmacy's name (a backup's when none is primary)." }),
    pharmacyPrice: z.number().openapi({ description: 'Dollars. Platform products: the pharmacy base price of one pack.', example: 129 }),
    pharmacyProductId: z.string().nullable().openapi({ description: 'Always null for platform products.' }),
    brandName: z.string().nullable().openapi({ description: 'Always null for platform products.' }),
    imageUrl: z
      .string()
      .nullable()
      .openapi({ description: "Platform products: the clinic's brand image override if any, else the shared image." }),
    pharmacyCoverages: z.array(z.object({ id: z.string().uuid(), customName: z.string().nullable(), pharmacy: pharmacyRef })),
    source: z.enum(PRODUCT_SOURCES).openapi({
      description: "clinic: the clinic's own product (editable); platform: a shared global product (read-only, a write answers 404).",
    }),
  })
  .openapi('Product');
export type Product = z.infer<typeof product>;

const name = safeString().trim().min(1).max(200).openapi({ example: 'Vitamin B12 Injection' });
const description = text().trim().max(5000).nullable().openapi({ example: 'Weekly intramuscular injection.' });
const pharmacyPrice = amount().openapi({ type: 'number', description: 'Dollars, at most two decimals.', example: 39.5 });
const pharmacyProductId = safeString().trim().min(1).max(100).nullable().openapi({ example: 'NSC-B12-10ML' });
const category = safeString().trim().min(1).max(100).nullable().openapi({ example: 'longevity' });
const categories = z
  .array(safeString().trim().min(1).max(50))
  .max(20)
  .openapi({ example: ['longevity'] });
const brandName = safeString().trim().min(1).max(200).nullable().openapi({ example: 'Demo Clinic B12' });
const pharmacyProvider = safeString().trim().min(1).max(200).nullable().openapi({ example: 'Northside Compounding' });

export const createProductBody = z
  .object({
    name,
    description: description.optional(),
    pharmacyPrice,
    pharmacyProductId: pharmacyProductId.optional(),
    isActive: z.boolean().optional().openapi({ description: 'Default true.' }),
    category: category.optional(),
    categories: categories.optional(),
    brandName: brandName.optional(),
    pharmacyProvider: pharmacyProvider.optional(),
  })
  .strict()
  .openapi('CreateProductRequest');
export type CreateProductBody = z.infer<typeof createProductBody>;

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const updateProductBody = z
  .object({
    name: name.optional(),
    slug: safeString()
      .max(100)
      .regex(SLUG_PATTERN, 'must be lowercase letters, digits and single hyphens')
      .optional()
      .openapi({ description: 'Unique within the clinic (409 CONFLICT otherwise).', example: 'vitamin-b12-injection' }),
    description: description.optional(),
    pharmacyPrice: pharmacyPrice.optional(),
    pharmacyProductId: pharmacyProductId.optional(),
    isActive: z.boolean().optional(),
    category: category.optional(),
    categories: categories.optional(),
    brandName: brandName.optional(),
    pharmacyProvider: pharmacyProvider.optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must name at least one field to change' })
  .openapi('UpdateProductRequest');
export type UpdateProductBody = z.infer<typeof updateProductBody>;

export const productsPage = z.object({ products: z.array(product), pagination: paginationSchema }).openapi('ProductsPage');
