import { z } from '@hono/zod-openapi';
import { TELEFORM_REMOVAL_STATUSES } from '../../../../drizzle/schema';
import { pageQuery } from '../../../platform/http/pagination';
import { text } from '../../../platform/values/strings';

export const listTeleformRemovalsQuery = pageQuery.extend({
  status: z.enum(TELEFORM_REMOVAL_STATUSES).optional().openapi({ description: 'Only removals in this state.' }),
});
export type ListTeleformRemovalsQuery = z.infer<typeof listTeleformRemovalsQuery>;

export const cancelTeleformRemovalBody = z
  .object({
    reason: text().trim().min(1, 'must not be empty').max(1000).openapi({
      description: 'Why the removal is cancelled (required, 1-1000 characters).',
      example: 'We will keep offering this program',
    }),
  })
  .strict()
  .openapi('CancelTeleformRemovalRequest');

export const teleformRemoval = z
  .object({
    id: z.string().uuid(),
    formId: z.string().uuid().openapi({ description: "The clinic's questionnaire to be removed from its storefront." }),
    formName: z.string(),
    reason: z.string().nullable().openapi({ description: 'Why the removal was scheduled.' }),
    status: z.enum(TELEFORM_REMOVAL_STATUSES).openapi({
      description:
        'scheduled -> completed (at scheduledFor, by the scheduled sweep, which deactivates the form) or scheduled -> cancelled (POST .../cancel). completed and cancelled are final.',
    }),
    scheduledFor: z.string().datetime(),
    cancelReason: z.string().nullable(),
    cancelledAt: z.string().datetime().nullable(),
    completedAt: z.string().datetime().nullable(),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('TeleformRemoval');
export type TeleformRemoval = z.infer<typeof teleformRemoval>;
