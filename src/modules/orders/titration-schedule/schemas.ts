import { z } from '@hono/zod-openapi';
import { TITRATION_SCHEDULE_STATUSES } from '../../../../drizzle/schema';
import { orderStatus } from '../orders/schemas';

export const heldSchedule = z
  .object({
    id: z.string().uuid(),
    currentLevel: z.number().int(),
    maxLevel: z.number().int(),
    status: z
      .enum(TITRATION_SCHEDULE_STATUSES)
      .openapi({ description: 'held: fulfilment waits for a revisit (this list shows held schedules only).', example: 'held' }),
    nextRevisitDueAt: z.string().datetime().nullable(),
    lastRevisitAt: z.string().datetime().nullable(),
    heldSince: z.string().datetime().nullable(),
    daysOverdue: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Whole days since nextRevisitDueAt (0 while not yet due); null without a due date.' }),
    order: z.object({ id: z.string().uuid(), orderNumber: z.string(), status: orderStatus }),
    user: z.object({ id: z.string().uuid(), firstName: z.string(), lastName: z.string() }).openapi({ description: 'The patient.' }),
    program: z.object({ id: z.string().uuid(), name: z.string() }).nullable(),
    titrationProtocol: z.object({ id: z.string().uuid(), name: z.string(), maxLevel: z.number().int() }),
  })
  .openapi('TitrationHeldSchedule');
export type HeldSchedule = z.infer<typeof heldSchedule>;
