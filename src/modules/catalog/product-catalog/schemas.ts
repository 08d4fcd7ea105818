import { z } from '@hono/zod-openapi';

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
    price: z
      .number()
      .nullable()
      .openapi({ description: 'Dollars: the price the clinic set (POST /tenant-products/update); null until set.' }),
    pharmacyName: z
      .string()
      .nullable()
      .openapi({ description: 'The filling pharmacy: the primary coverage, else a backup; null if uncovered.' }),
    pharmacyRole: z.enum(['primary', 'backup']).nullable().openapi({ example: 'primary' }),
    tenantProductId: z
      .string()
      .uuid()
      .openapi({ description: 'The offering (tenant product) behind this item, as POST /tenant-products/update takes it.' }),
  })
  .openapi('CatalogItem');

export type CatalogItem = z.infer<typeof catalogItem>;
