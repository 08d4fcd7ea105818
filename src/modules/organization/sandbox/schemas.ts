import { z } from '@hono/zod-openapi';
import { safeString } from '../../../platform/values/strings';
import { emailAddress } from '../team/schemas';

const personName = (example: string) => safeString().trim().min(1).max(100).openapi({ example });

export const goLiveBody = z
  .object({
    signerFirstName: personName('Alex'),
    signerLastName: personName('Rivera'),
    signerEmail: emailAddress().openapi({
      description: 'Receives the invitation to join as admin and complete onboarding.',
      example: 'alex@brand.example',
    }),
  })
  .strict()
  .openapi('GoLiveRequest');
export type GoLiveBody = z.infer<typeof goLiveBody>;

export const goLiveStatus = z
  .object({
    status: z.literal('requested'),
    signerEmail: z
      .string()
      .openapi({ description: "The signer of the pending request (the first request's signer when one was already pending)." }),
  })
  .openapi('GoLiveStatus');
export type GoLiveStatus = z.infer<typeof goLiveStatus>;
