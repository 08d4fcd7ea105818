import { z } from '@hono/zod-openapi';
import { COVERAGE_ROLES } from '../../../../../drizzle/schema';
import { pharmacyRef } from '../schemas';

export const pharmacyCoverage = z
  .object({
    id: z.string().uuid(),
    customName: z.string().nullable(),
    role: z.enum(COVERAGE_ROLES).openapi({ example: 'primary' }),
    price: z.number().openapi({ description: 'Dollars: what this pharmacy charges for one pack.' }),
    pharmacy: pharmacyRef,
  })
  .openapi('PharmacyCoverage');

export type PharmacyCoverage = z.infer<typeof pharmacyCoverage>;
