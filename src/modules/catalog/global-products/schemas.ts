import { z } from '@hono/zod-openapi';
import { PROGRAM_STATES } from '../../../../drizzle/schema';

export const discontinuedInUse = z
  .object({
    globalProductId: z.string().uuid(),
    name: z.string(),
    slug: z.string(),
    programs: z.array(z.object({ id: z.string().uuid(), name: z.string(), state: z.enum(PROGRAM_STATES).openapi({ example: 'live' }) })),
  })
  .openapi('DiscontinuedProductInUse');

export type DiscontinuedInUse = z.infer<typeof discontinuedInUse>;
