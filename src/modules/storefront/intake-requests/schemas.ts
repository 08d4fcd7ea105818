import { z } from '@hono/zod-openapi';
import { INTAKE_REQUEST_STATUSES } from '../../../../drizzle/schema';
import { safeString, text } from '../../../platform/values/strings';

export const createIntakeRequestBody = z
  .object({
    treatmentName: safeString()
      .trim()
      .min(1)
      .max(200)
      .openapi({ description: 'The treatment the form is for, 1-200 characters.', example: 'Peptide therapy' }),
    notes: text()
      .trim()
      .max(5000)
      .nullable()
      .default(null)
      .openapi({ description: 'What the form should cover; at most 5000 characters.', example: 'Include a contraindications screen' }),
  })
  .strict()
  .openapi('CreateIntakeRequestRequest');
export type CreateIntakeRequestBody = z.infer<typeof createIntakeRequestBody>;

export const intakeRequest = z
  .object({
    id: z.string().uuid(),
    treatmentName: z.string(),
    notes: z.string().nullable(),
    status: z.enum(INTAKE_REQUEST_STATUSES).openapi({
      description: 'pending (new) -> in_review -> completed or declined; the platform team moves it, the API only creates and reads.',
    }),
    requestedByUserId: z
      .string()
      .uuid()
      .nullable()
      .openapi({ description: 'The staff user who asked in the portal; null when made with an API key.' }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('IntakeRequest');
export type IntakeRequest = z.infer<typeof intakeRequest>;
