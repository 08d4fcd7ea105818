import { z } from '@hono/zod-openapi';

export const titrationProtocol = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    description: z.string().nullable(),
    levels: z.array(z.object({ level: z.number().int(), dose: z.string(), weeks: z.number().int() })).openapi({
      description: 'Dose steps in order; weeks is how long the step lasts (0 on the maintenance step).',
    }),
    maxLevel: z.number().int(),
    createdAt: z.string().datetime(),
  })
  .openapi('SharedTitrationProtocol');

export type TitrationProtocol = z.infer<typeof titrationProtocol>;
