import { z } from '@hono/zod-openapi';

export const formGlobalProduct = z
  .object({
    id: z.string().uuid().openapi({ description: 'The link itself.' }),
    formId: z.string().uuid().openapi({ description: "The form: one of the clinic's questionnaires." }),
    formName: z.string(),
    globalProductId: z.string().uuid(),
    globalProductName: z.string(),
    createdAt: z.string().datetime(),
  })
  .openapi('FormGlobalProduct');
export type FormGlobalProduct = z.infer<typeof formGlobalProduct>;

export const linkFormBody = z
  .object({
    globalProductId: z.string().uuid().openapi({ description: 'A global product of the platform.' }),
    formId: z.string().uuid().openapi({ description: "One of the clinic's questionnaires (intake forms)." }),
  })
  .strict()
  .openapi('LinkFormGlobalProductRequest');

export const unlinkFormBody = z
  .object({ formId: z.string().uuid().openapi({ description: 'The linked questionnaire of the clinic.' }) })
  .strict()
  .openapi('UnlinkFormGlobalProductRequest');

export const unlinkedForm = z
  .object({ formId: z.string().uuid(), globalProductId: z.string().uuid(), unlinked: z.literal(true) })
  .openapi('UnlinkedFormGlobalProduct');
