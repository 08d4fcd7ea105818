import { z } from '@hono/zod-openapi';

export const heldSchedule = z
  .object({
    id: z.string().uuid(),
    currentLevel: z.number().int(),
    maxLevel: z.number().int(),
    status: z.string().openapi({ example: 'held' }),
    nextRevisitDueAt: z.string().datetime().nullable(),
    lastRevisitAt: z.string().datetime().nullable(),
    heldSince: z.string().datetime().nullable(),
    daysOverdue: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Whole days since nextRevisitDueAt (0 while not yet due); null without a due date.' }),
    order: z.object({ id: z.string().uuid(), orderNumber: z.string(), status: z.string() }),
    user: z.object({ id: z.string().uuid(), firstName: z.string(), lastName: z.string() }).openapi({ description: 'The patient.' }),
    program: z.object({ id: z.string().uuid(), name: z.string() }).nullable(),
    titrationProtocol: z.object({ id: z.string().uuid(), name: z.string(), maxLevel: z.number().int() }),
  })
  .openapi('TitrationHeldSchedule');
export type HeldSchedule = z.infer<typeof heldSchedule>;
