// Request and response shapes of the organization and clinic settings (docs/organization.md).
import { z } from '@hono/zod-openapi';
import { SMS_PROVIDERS } from '../../../platform/providers/sms';
import { atLeastOneField, timestamp } from '../../../platform/values/fields';
import { safeString } from '../../../platform/values/strings';
import { customDomain } from '../clinic/custom-domain/schemas';
import { EMAIL_DOMAIN_VIEW_STATUSES } from '../clinic/email-domain/schemas';
import { BUSINESS_TYPES } from '../onboarding/validation';
import { SMS_VIEW_STATUSES } from './sms/schemas';
import { emailSchema, hostnameSchema, isIanaTimeZone, phoneSchema, stateSchema, zipSchema } from './validation';

// ---------------------------------------------------------------------------------------------------
// Organization

export const organizationSettings = z
  .object({
    clinicId: z.string().uuid(),
    legalName: z.string().nullable(),
    doingBusinessAs: z.string().nullable(),
    ein: z.string().nullable().openapi({ description: 'Set by onboarding (save-business-details); read-only here.' }),
    businessType: z.enum(BUSINESS_TYPES).nullable().openapi({ description: 'Set by onboarding; read-only here.' }),
    stateOfRegistration: z.string().nullable().openapi({ description: 'Set by onboarding; read-only here.' }),
    phoneNumber: z.string().nullable().openapi({ description: 'The business phone from onboarding; read-only here.' }),
    websiteUrl: z.string().nullable(),
    supportEmail: z.string().nullable(),
    supportPhone: z.string().nullable(),
    address: z.object({
      line1: z.string().nullable(),
      line2: z.string().nullable(),
      city: z.string().nullable(),
      state: z.string().nullable(),
      zipCode: z.string().nullable(),
    }),
    timezone: z.string().openapi({ example: 'America/New_York' }),
    customDomain: customDomain
      .nullable()
      .openapi({ description: 'The current custom domain (not removed), with its DNS records; null when none.' }),
    notifications: z.object({
      email: z.object({
        senderName: z.string().openapi({ description: "The display name emails carry (the clinic's name unless set)." }),
        fromAddress: z
          .string()
          .nullable()
          .openapi({ description: "The clinic's own address once its email domain is verified; null: the platform's sender." }),
        replyTo: z.string().nullable(),
        domain: z.string().nullable(),
        domainStatus: z.enum(EMAIL_DOMAIN_VIEW_STATUSES),
      }),
      sms: z.object({
        enabled: z
          .boolean()
          .openapi({ description: "SMS go out from the clinic's own number (a provisioned toll-free number is active)." }),
        provider: z.enum(SMS_PROVIDERS).nullable(),
        status: z.enum(SMS_VIEW_STATUSES),
        fromNumber: z.string().nullable(),
      }),
    }),
    updatedAt: timestamp().nullable().openapi({ description: 'Last change of the profile; null when it was never saved.' }),
  })
  .openapi('OrganizationSettings');
export type OrganizationSettingsView = z.infer<typeof organizationSettings>;

const nullableText = (max: number, example?: string) =>
  safeString()
    .trim()
    .min(1)
    .max(max)
    .nullable()
    .openapi(example ? { example } : {});

export const updateOrganizationBody = z
  .object({
    legalName: nullableText(200, 'Example Brand Health LLC'),
    doingBusinessAs: nullableText(200, 'Example Brand'),
    websiteUrl: safeString()
      .trim()
      .max(2048)
      .url('must be an http(s) URL')
      .refine((v) => /^https?:\/\//i.test(v), { message: 'must be an http(s) URL' })
      .nullable()
      .openapi({ example: 'https://example-brand.com' }),
    supportEmail: emailSchema().nullable().openapi({ example: 'support@example-brand.com' }),
    supportPhone: phoneSchema()
      .nullable()
      .openapi({ type: ['string', 'null'] }),
    addressLine1: nullableText(200, '500 Market Street'),
    addressLine2: nullableText(200, 'Suite 300'),
    city: nullableText(100, 'San Francisco'),
    state: stateSchema()
      .nullable()
      .openapi({ type: ['string', 'null'] }),
    zipCode: zipSchema().nullable(),
    timezone: safeString()
      .trim()
      .max(64)
      .refine(isIanaTimeZone, { message: 'must be an IANA time zone name such as America/New_York' })
      .openapi({ example: 'America/New_York' }),
    customDomain: hostnameSchema('shop.example-brand.com').openapi({
      description:
        'A hostname for the storefront. A change starts the custom-domain flow (as POST /api/v1/clinic/custom-domain/start); the same hostname as the current domain changes nothing; another hostname while one is current answers 409 CUSTOM_DOMAIN_EXISTS.',
    }),
  })
  .partial()
  .strict()
  .refine(atLeastOneField, { message: 'must contain at least one field' })
  .openapi('UpdateOrganizationRequest', {
    description: 'A partial update: only the fields sent change; null clears a field (timezone and customDomain cannot be null).',
  });
export type UpdateOrganizationBody = z.infer<typeof updateOrganizationBody>;

// ---------------------------------------------------------------------------------------------------
// Fees

const perMilleRate = (what: string) =>
  z.object({
    percent: z.number().openapi({ description: `${what} in percent (2.9 = 2.9%).`, example: 2.9 }),
    perMille: z.number().int().openapi({ description: 'The same rate per mille (29 = 2.9%), as stored.', example: 29 }),
  });

export const feeConfig = z
  .object({
    source: z
      .enum(['clinic', 'default'])
      .openapi({ description: 'clinic: the clinic has its own fee configuration; default: the platform defaults apply.' }),
    pharmacy: z.object({
      basis: z.literal('per_product'),
      description: z.string(),
    }),
    doctor: z.object({
      basis: z.literal('per_order'),
      feeCents: z.number().int().openapi({ description: 'Integer cents per order the doctor reviews.', example: 1500 }),
    }),
    processor: perMilleRate("The payment processor's card fee on each charge").extend({
      basis: z.literal('per_charge'),
      fixedCents: z.number().int().openapi({ description: 'Plus this many cents per charge.', example: 30 }),
    }),
    merchant: perMilleRate("The platform's merchant fee on each charge (subtotal less discounts)").extend({
      basis: z.literal('per_charge'),
      description: z.string(),
    }),
    updatedAt: timestamp().nullable(),
  })
  .openapi('FeeConfig');
export type FeeConfigView = z.infer<typeof feeConfig>;
