import { z } from '@hono/zod-openapi';
import { CUSTOM_DOMAIN_STATUSES } from '../../../../../drizzle/schema';
import { timestamp } from '../../../../platform/values/fields';
import { hostnameSchema } from '../../organization/validation';
import { dnsRecord } from '../schemas';

// ---------------------------------------------------------------------------------------------------
// Custom domain

export const customDomain = z
  .object({
    id: z.string().uuid(),
    hostname: z.string().openapi({ example: 'shop.example-brand.com' }),
    status: z.enum(CUSTOM_DOMAIN_STATUSES).openapi({
      description:
        'pending_verification (start) -> verified (verify, once DNS and the certificate validate) -> active (finalize); any -> removed (remove).',
    }),
    dnsRecords: z
      .array(dnsRecord)
      .openapi({ description: "What to publish at the brand's DNS host: the CNAME (routing) and the ownership TXT record." }),
    verifiedAt: timestamp().nullable(),
    activatedAt: timestamp().nullable(),
    removedAt: timestamp().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .openapi('CustomDomain');

export type CustomDomainView = z.infer<typeof customDomain>;

export const customDomainVerification = z
  .object({
    domain: customDomain,
    verified: z.boolean().openapi({ description: 'The domain is verified (or already active) after this check.' }),
    problems: z.array(z.string()).openapi({ description: 'What is still missing, in order; empty when verified.' }),
  })
  .openapi('CustomDomainVerification');

export const startCustomDomainBody = z
  .object({ domain: hostnameSchema('shop.example-brand.com') })
  .strict()
  .openapi('StartCustomDomainRequest');
