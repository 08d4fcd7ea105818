import { z } from '@hono/zod-openapi';
import { timestamp } from '../../../../platform/values/fields';
import { safeString } from '../../../../platform/values/strings';
import { emailSchema, hostnameSchema } from '../../organization/validation';
import { dnsRecord } from '../schemas';

// ---------------------------------------------------------------------------------------------------
// Email domain and sender

export const EMAIL_DOMAIN_VIEW_STATUSES = ['none', 'pending', 'verified'] as const;

export const emailDomain = z
  .object({
    id: z.string().uuid(),
    domain: z.string().openapi({ example: 'mail.example-brand.com' }),
    // Named: inline, generators would call it EmailDomainStatus, the name of GET /clinic/email-domain's answer.
    status: z
      .enum(['pending', 'verified', 'removed'])
      .openapi('EmailDomainState', { description: 'pending (start) -> verified (verify); pending or verified -> removed (remove).' }),
    dnsRecords: z.array(dnsRecord).openapi({ description: 'What to publish: SPF, DKIM and the return-path MX.' }),
    verifiedAt: timestamp().nullable(),
    removedAt: timestamp().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .openapi('EmailDomain');

export type EmailDomainView = z.infer<typeof emailDomain>;

export const emailSender = z
  .object({
    senderName: z
      .string()
      .nullable()
      .openapi({ description: "Display name of the clinic's emails; null: the clinic's name.", example: 'Demo Clinic' }),
    fromLocalPart: z
      .string()
      .nullable()
      .openapi({ description: "The part before @ on the clinic's email domain (set by email-domain start).", example: 'care' }),
    fromAddress: z.string().nullable().openapi({
      description:
        "The address the clinic's emails are sent from: fromLocalPart@domain once the email domain is verified; null while the platform's own sender is used.",
      example: 'care@mail.example-brand.com',
    }),
    replyTo: z.string().nullable().openapi({ description: 'Where replies go; null: to the sender.', example: 'support@example-brand.com' }),
    domain: z.string().nullable().openapi({ description: 'The current email domain (pending or verified); null when none.' }),
    domainStatus: z.enum(EMAIL_DOMAIN_VIEW_STATUSES),
  })
  .openapi('EmailSender');

export type EmailSenderView = z.infer<typeof emailSender>;

export const emailDomainStatus = z
  .object({
    status: z.enum(EMAIL_DOMAIN_VIEW_STATUSES).openapi({ description: 'none: no current email domain.' }),
    domain: emailDomain.nullable(),
    sender: emailSender,
  })
  .openapi('EmailDomainStatus');

export const emailDomainVerification = z
  .object({
    domain: emailDomain,
    verified: z.boolean(),
    problems: z.array(z.string()).openapi({ description: 'What is still missing; empty when verified.' }),
  })
  .openapi('EmailDomainVerification');

/** A mailbox name: letters, digits and . _ + - (not first or last), at most 64; stored lower-cased. */
export const LOCAL_PART = /^[a-z0-9](?:[a-z0-9._+-]{0,62}[a-z0-9])?$/;

export const startEmailDomainBody = z
  .object({
    domain: hostnameSchema('mail.example-brand.com'),
    fromLocalPart: safeString()
      .trim()
      .toLowerCase()
      .max(64)
      .regex(LOCAL_PART, 'must be a mailbox name: letters, digits and . _ + - (not first or last), at most 64')
      .openapi({ description: 'Emails are sent from `<fromLocalPart>@<domain>` once verified.', example: 'care' }),
  })
  .strict()
  .openapi('StartEmailDomainRequest');

export const updateEmailSenderBody = z
  .object({
    replyTo: emailSchema()
      .nullable()
      .openapi({ description: 'Where replies go; null: to the sender.', example: 'support@example-brand.com' }),
    senderName: safeString()
      .trim()
      .min(1)
      .max(100)
      .nullable()
      .optional()
      .openapi({ description: "Display name; null: the clinic's name. Unchanged when absent.", example: 'Demo Clinic' }),
  })
  .strict()
  .openapi('UpdateEmailSenderRequest');
