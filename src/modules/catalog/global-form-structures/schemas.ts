import { z } from '@hono/zod-openapi';

export const formStructure = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    slug: z.string(),
    category: z.string().openapi({ example: 'intake' }),
    structure: z.record(z.string(), z.unknown()).openapi({ description: "The form builder's structure document, as stored." }),
    createdAt: z.string().datetime(),
  })
  .openapi('GlobalFormStructure');

export type FormStructure = z.infer<typeof formStructure>;
