import { z } from '@hono/zod-openapi';
import { pageQuery } from '../../../platform/http/pagination';
import { safeString } from '../../../platform/values/strings';

// A Customer is a patient of the clinic with totals over their orders (docs/orders.md).

export const customer = z
  .object({
    id: z.string().uuid(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    phoneNumber: z.string().nullable(),
    createdAt: z.string().datetime(),
    orderCount: z.number().int().openapi({ description: 'All orders of the patient, any status.' }),
    totalRevenue: z
      .number()
      .openapi({ description: 'Dollars: totals of the paid orders minus what was refunded of them.', example: 249.5 }),
    categories: z.array(z.string()).openapi({ description: 'Distinct categories of the global products the patient ordered, sorted.' }),
    hasActiveSubscription: z.boolean().openapi({ description: 'The patient has an active enrollment on a program.' }),
  })
  .openapi('Customer');
export type Customer = z.infer<typeof customer>;

export const listCustomersQuery = pageQuery.extend({
  search: safeString().trim().max(200).optional().openapi({
    description: 'Case-insensitive substring of the first name, last name, full name ("Ada Lovelace") or email.',
    example: 'ada',
  }),
  q: safeString().trim().max(200).optional().openapi({
    description: 'The same text search as `search` (the name used by the other lists); with both, a customer matches both.',
    example: 'ada',
  }),
  email: safeString().trim().max(320).optional().openapi({
    description: 'Only the customer with this email, compared ignoring case (emails are unique in the clinic ignoring case).',
    example: 'ada@example.com',
  }),
});
export type ListCustomersQuery = z.infer<typeof listCustomersQuery>;
