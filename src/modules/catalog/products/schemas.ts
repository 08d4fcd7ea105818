import { z } from '@hono/zod-openapi';
import { amount } from '../../../platform/http/money';
import { paginationSchema } from '../../../platform/http/pagination';
import { safeString, text } from '../../../platform/http/strings';

// Money out is dollars (centsToAmount); money in goes through amount(), which hands the service cents.

export const PRODUCT_SOURCES = ['clinic', 'platform'] as const;

const pharmacyRef = z.object({ id: z.string().uuid(), name: z.string(), slug: z.string() }).openapi('PharmacyRef');

export const product = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    category: z.string().nullable().openapi({ description: 'Platform products: their first category.' }),
    categories: z.array(z.string()),
    isActive: z.boolean().openapi({ description: 'Platform products: false when discontinued.' }),
    pharmacyProvider: z.string().nullable().openapi({ description: "Platform products: the primary pharmacy's name (a backup's when none is primary)." }),
    pharmacyPrice: z.number().openapi({ description: 'Dollars. Platform products: the pharmacy base price of one pack.', example: 129 }),
    pharmacyProductId: z.string().nullable().openapi({ description: 'Always null for platform products.' }),
    brandName: z.string().nullable().openapi({ description: 'Always null for platform products.' }),
    imageUrl: z.string().nullable().openapi({ description: "Platform products: the clinic's brand image override if any, else the shared image." }),
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
const categories = z.array(safeString().trim().min(1).max(50)).max(20).openapi({ example: ['longevity'] });
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
    slug: safeString().max(100).regex(SLUG_PATTERN, 'must be lowercase letters, digits and single hyphens').optional()
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

export const catalogItem = z
  .object({
    id: z.string().uuid().openapi({ description: 'The global product id.' }),
    name: z.string(),
    slug: z.string(),
    categories: z.array(z.string()),
    imageUrl: z.string().nullable().openapi({ description: "The clinic's brand image override if any, else the shared image." }),
    description: z.string().nullable(),
    requiresCooler: z.boolean(),
    pharmacyPrice: z.number().openapi({ description: 'Dollars: the pharmacy base price of one pack.' }),
    facilitationFee: z.number().openapi({ description: "Dollars: the clinic's facilitation fee (tenant product)." }),
    price: z.number().nullable().openapi({ description: 'Dollars: the price the clinic set (POST /tenant-products/update); null until set.' }),
    pharmacyName: z.string().nullable().openapi({ description: 'The filling pharmacy: the primary coverage, else a backup; null if uncovered.' }),
    pharmacyRole: z.enum(['primary', 'backup']).nullable().openapi({ example: 'primary' }),
    tenantProductId: z.string().uuid().openapi({ description: 'The offering (tenant product) behind this item, as POST /tenant-products/update takes it.' }),
  })
  .openapi('CatalogItem');
export type CatalogItem = z.infer<typeof catalogItem>;

export const pharmacyCoverage = z
  .object({
    id: z.string().uuid(),
    customName: z.string().nullable(),
    role: z.string().openapi({ example: 'primary' }),
    price: z.number().openapi({ description: 'Dollars: what this pharmacy charges for one pack.' }),
    pharmacy: pharmacyRef,
  })
  .openapi('PharmacyCoverage');
export type PharmacyCoverage = z.infer<typeof pharmacyCoverage>;

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

export const discontinuedInUse = z
  .object({
    globalProductId: z.string().uuid(),
    name: z.string(),
    slug: z.string(),
    programs: z.array(z.object({ id: z.string().uuid(), name: z.string(), state: z.string().openapi({ example: 'live' }) })),
  })
  .openapi('DiscontinuedProductInUse');
export type DiscontinuedInUse = z.infer<typeof discontinuedInUse>;
