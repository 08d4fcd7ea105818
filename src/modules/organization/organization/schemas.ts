// Request and response shapes of the organization and clinic settings (docs/organization.md).
import { z } from '@hono/zod-openapi';
import { CLINIC_MODES, CUSTOM_DOMAIN_STATUSES, SMS_CONFIG_STATUSES } from '../../../../drizzle/schema';
import { DNS_RECORD_PURPOSES, DNS_RECORD_TYPES } from '../../../platform/providers/domains';
import { safeString, text } from '../../../platform/http/strings';
import { SMS_PROVIDERS } from '../../../platform/providers/sms';
import { storedImage } from '../../catalog';
import {
  emailSchema, HEX_COLOR, hostnameSchema, isIanaTimeZone, phoneSchema, slugSchema, SLUG_RULE, stateSchema, toHexColor, zipSchema,
} from './validation';

const dateTime = () => z.string().datetime();
const atLeastOneField = (body: object) => Object.keys(body).length > 0;

// ---------------------------------------------------------------------------------------------------
// DNS records

export const dnsRecord = z
  .object({
    type: z.enum(DNS_RECORD_TYPES),
    name: z.string().openapi({ description: 'Fully qualified record name.', example: '_cf-custom-hostname.shop.example-brand.com' }),
    value: z.string(),
    purpose: z.enum(DNS_RECORD_PURPOSES).openapi({
      description: 'routing (CNAME to the platform), ownership_verification (TXT), spf, dkim, return_path (MX of the bounce domain), dmarc, tracking.',
    }),
    priority: z.number().int().nullable().openapi({ description: 'MX records only; null otherwise.' }),
  })
  .openapi('DnsRecord');

// ---------------------------------------------------------------------------------------------------
// Custom domain

export const customDomain = z
  .object({
    id: z.string().uuid(),
    hostname: z.string().openapi({ example: 'shop.example-brand.com' }),
    status: z.enum(CUSTOM_DOMAIN_STATUSES).openapi({
      description: 'pending_verification (start) -> verified (verify, once DNS and the certificate validate) -> active (finalize); any -> removed (remove).',
    }),
    dnsRecords: z.array(dnsRecord).openapi({ description: 'What to publish at the brand\'s DNS host: the CNAME (routing) and the ownership TXT record.' }),
    verifiedAt: dateTime().nullable(),
    activatedAt: dateTime().nullable(),
    removedAt: dateTime().nullable(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
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

// ---------------------------------------------------------------------------------------------------
// Email domain and sender

export const EMAIL_DOMAIN_VIEW_STATUSES = ['none', 'pending', 'verified'] as const;

export const emailDomain = z
  .object({
    id: z.string().uuid(),
    domain: z.string().openapi({ example: 'mail.example-brand.com' }),
    status: z.enum(['pending', 'verified', 'removed']).openapi({ description: 'pending (start) -> verified (verify); pending or verified -> removed (remove).' }),
    dnsRecords: z.array(dnsRecord).openapi({ description: 'What to publish: SPF, DKIM and the return-path MX.' }),
    verifiedAt: dateTime().nullable(),
    removedAt: dateTime().nullable(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  })
  .openapi('EmailDomain');
export type EmailDomainView = z.infer<typeof emailDomain>;

export const emailSender = z
  .object({
    senderName: z.string().nullable().openapi({ description: 'Display name of the clinic\'s emails; null: the clinic\'s name.', example: 'Demo Clinic' }),
    fromLocalPart: z.string().nullable().openapi({ description: 'The part before @ on the clinic\'s email domain (set by email-domain start).', example: 'care' }),
    fromAddress: z.string().nullable().openapi({
      description: 'The address the clinic\'s emails are sent from: fromLocalPart@domain once the email domain is verified; null while the platform\'s own sender is used.',
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
      .openapi({ description: 'Emails are sent from <fromLocalPart>@<domain> once verified.', example: 'care' }),
  })
  .strict()
  .openapi('StartEmailDomainRequest');

export const updateEmailSenderBody = z
  .object({
    replyTo: emailSchema().nullable().openapi({ description: 'Where replies go; null: to the sender.', example: 'support@example-brand.com' }),
    senderName: safeString().trim().min(1).max(100).nullable().optional().openapi({ description: 'Display name; null: the clinic\'s name. Unchanged when absent.', example: 'Demo Clinic' }),
  })
  .strict()
  .openapi('UpdateEmailSenderRequest');

// ---------------------------------------------------------------------------------------------------
// SMS

export const SMS_VIEW_STATUSES = ['not_configured', ...SMS_CONFIG_STATUSES] as const;

export const smsProviderParam = z.object({
  provider: z.string().openapi({
    param: { name: 'provider', in: 'path' },
    description: `The SMS provider's name: ${SMS_PROVIDERS.join(', ')}. Any other name answers 404.`,
    example: 'twilio',
  }),
});

export const smsConfig = z
  .object({
    provider: z.enum(SMS_PROVIDERS),
    configured: z.boolean().openapi({ description: 'Whether credentials are stored.' }),
    accountSid: z.string().nullable().openapi({ example: 'AC0123456789abcdef0123456789abcdef' }),
    phoneNumber: z.string().nullable().openapi({
      description: 'E.164: the number given with the credentials, or the provisioned toll-free number while active; null after release.',
      example: '+18885550142',
    }),
    status: z.enum(SMS_VIEW_STATUSES).openapi({
      description: 'not_configured -> configured (PUT) -> active (activate) -> released (release) -> active ...; DELETE clears the config (not while active).',
    }),
    activatedAt: dateTime().nullable(),
    releasedAt: dateTime().nullable(),
    updatedAt: dateTime().nullable(),
  })
  .openapi('SmsProviderConfig', { description: 'The stored SMS provider account. The auth token is stored encrypted and never returned.' });
export type SmsConfigView = z.infer<typeof smsConfig>;

export const updateSmsConfigBody = z
  .object({
    accountSid: safeString()
      .max(100)
      .trim()
      .regex(/^AC[0-9a-fA-F]{32}$/, 'must be a Twilio account SID (AC followed by 32 hex digits)')
      .openapi({ example: 'AC0123456789abcdef0123456789abcdef' }),
    authToken: safeString()
      .min(16)
      .max(128)
      .regex(/^\S+$/, 'must not contain spaces')
      .openapi({ description: 'Stored encrypted (AES-GCM); never returned.', example: '0123456789abcdef0123456789abcdef' }),
    phoneNumber: safeString()
      .max(100)
      .trim()
      .regex(/^\+[1-9]\d{7,14}$/, 'must be an E.164 number such as +14155550123')
      .openapi({ description: 'E.164 number of the account the clinic sends from until a toll-free number is activated.', example: '+14155550123' }),
  })
  .strict()
  .openapi('UpdateSmsProviderConfigRequest');

export const SMS_FREE_TIER_MESSAGES_PER_MONTH = 500;

export const smsStatus = z
  .object({
    provider: z.enum(SMS_PROVIDERS).nullable(),
    status: z.enum(SMS_VIEW_STATUSES),
    tollFreeNumber: z.string().nullable().openapi({ description: 'The provisioned toll-free number while active; null otherwise.', example: '+18885550142' }),
    activatedAt: dateTime().nullable(),
    releasedAt: dateTime().nullable(),
    usage: z.object({
      periodStart: dateTime().openapi({ description: 'First instant of the current calendar month (UTC).' }),
      periodEnd: dateTime().openapi({ description: 'First instant of the next month (exclusive).' }),
      messagesSent: z.number().int().openapi({ description: 'SMS the clinic sent this month (queued or sent; failed ones do not count).' }),
      freeTierLimit: z.number().int().openapi({ description: `SMS included per calendar month (${SMS_FREE_TIER_MESSAGES_PER_MONTH}).` }),
      freeTierRemaining: z.number().int(),
      billableMessages: z.number().int().openapi({ description: 'Messages beyond the free tier this month.' }),
    }),
  })
  .openapi('SmsStatus');
export type SmsStatusView = z.infer<typeof smsStatus>;

// ---------------------------------------------------------------------------------------------------
// Clinic

export const clinicProfile = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    slug: z.string(),
    mode: z.enum(CLINIC_MODES),
    isActive: z.boolean(),
    logoUrl: z.string().nullable(),
    description: z.string().nullable(),
    primaryColor: z.string().nullable().openapi({ example: '#0F766E' }),
    contactEmail: z.string().nullable(),
    contactPhone: z.string().nullable().openapi({ description: 'E.164.' }),
    customDomain: z.string().nullable().openapi({ description: 'The active custom hostname; null when none is active.' }),
    sandboxExpiresAt: dateTime().nullable().openapi({ description: 'Sandbox clinics: when the sandbox window ends.' }),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  })
  .openapi('ClinicProfile');
export type ClinicProfileView = z.infer<typeof clinicProfile>;

export const updateClinicBody = z
  .object({
    name: safeString().trim().min(1).max(100).openapi({ example: 'Demo Clinic' }),
    slug: slugSchema(),
    description: text().trim().max(2000).nullable(),
    primaryColor: safeString()
      .max(100)
      .trim()
      .regex(HEX_COLOR, 'must be a hex color: #RGB or #RRGGBB')
      .transform(toHexColor)
      .nullable()
      .openapi({ type: ['string', 'null'], description: '#RGB or #RRGGBB; stored as upper-case #RRGGBB.', example: '#0F766E' }),
    contactEmail: emailSchema().nullable().openapi({ example: 'hello@example-brand.com' }),
    contactPhone: phoneSchema().nullable().openapi({ type: ['string', 'null'] }),
  })
  .partial()
  .strict()
  .refine(atLeastOneField, { message: 'must contain at least one field' })
  .openapi('UpdateClinicRequest', { description: 'A partial update: only the fields sent change. null clears an optional field.' });
export type UpdateClinicBody = z.infer<typeof updateClinicBody>;

export const slugParam = z.object({
  slug: slugSchema().openapi({ param: { name: 'slug', in: 'path' }, description: `${SLUG_RULE}; anything else answers 400.`, example: 'demo-clinic' }),
});

export const slugAvailability = z
  .object({
    success: z.literal(true),
    message: z.string(),
    available: z.boolean().openapi({ description: 'true when the clinic may take the slug (its own current slug included); false when another clinic has it or it is reserved.' }),
  })
  .openapi('SlugAvailability', { description: 'At top level (no data), as the specification shows: { success, available }.' });

export const logoUploadForm = z
  .object({
    logo: z
      .custom<File>((value) => value instanceof Blob, { message: 'must be one file (multipart field logo)' })
      .openapi({ type: 'string', format: 'binary', description: 'PNG, JPEG, WebP or GIF (type read from the bytes; SVG refused), at most 5 MiB.' }),
  })
  .strict()
  .openapi('LogoUploadForm');

export const logoResult = z
  .object({
    clinicId: z.string().uuid(),
    logoUrl: z.string().openapi({ description: 'The clinic\'s logoUrl now (the stored image\'s url).' }),
    upload: storedImage,
  })
  .openapi('ClinicLogoResult');

// ---------------------------------------------------------------------------------------------------
// Organization

export const organizationSettings = z
  .object({
    clinicId: z.string().uuid(),
    legalName: z.string().nullable(),
    doingBusinessAs: z.string().nullable(),
    ein: z.string().nullable().openapi({ description: 'Set by onboarding (save-business-details); read-only here.' }),
    businessType: z.string().nullable().openapi({ description: 'Set by onboarding; read-only here.' }),
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
    customDomain: customDomain.nullable().openapi({ description: 'The current custom domain (not removed), with its DNS records; null when none.' }),
    notifications: z.object({
      email: z.object({
        senderName: z.string().openapi({ description: 'The display name emails carry (the clinic\'s name unless set).' }),
        fromAddress: z.string().nullable().openapi({ description: 'The clinic\'s own address once its email domain is verified; null: the platform\'s sender.' }),
        replyTo: z.string().nullable(),
        domain: z.string().nullable(),
        domainStatus: z.enum(EMAIL_DOMAIN_VIEW_STATUSES),
      }),
      sms: z.object({
        enabled: z.boolean().openapi({ description: 'SMS go out from the clinic\'s own number (a provisioned toll-free number is active).' }),
        provider: z.enum(SMS_PROVIDERS).nullable(),
        status: z.enum(SMS_VIEW_STATUSES),
        fromNumber: z.string().nullable(),
      }),
    }),
    updatedAt: dateTime().nullable().openapi({ description: 'Last change of the profile; null when it was never saved.' }),
  })
  .openapi('OrganizationSettings');
export type OrganizationSettingsView = z.infer<typeof organizationSettings>;

const nullableText = (max: number, example?: string) => safeString().trim().min(1).max(max).nullable().openapi(example ? { example } : {});

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
    supportPhone: phoneSchema().nullable().openapi({ type: ['string', 'null'] }),
    addressLine1: nullableText(200, '500 Market Street'),
    addressLine2: nullableText(200, 'Suite 300'),
    city: nullableText(100, 'San Francisco'),
    state: stateSchema().nullable().openapi({ type: ['string', 'null'] }),
    zipCode: zipSchema().nullable(),
    timezone: safeString()
      .trim()
      .max(64)
      .refine(isIanaTimeZone, { message: 'must be an IANA time zone name such as America/New_York' })
      .openapi({ example: 'America/New_York' }),
    customDomain: hostnameSchema('shop.example-brand.com').openapi({
      description: 'A hostname for the storefront. A change starts the custom-domain flow (as POST /api/v1/clinic/custom-domain/start); the same hostname as the current domain changes nothing; another hostname while one is current answers 409 CUSTOM_DOMAIN_EXISTS.',
    }),
  })
  .partial()
  .strict()
  .refine(atLeastOneField, { message: 'must contain at least one field' })
  .openapi('UpdateOrganizationRequest', { description: 'A partial update: only the fields sent change; null clears a field (timezone and customDomain cannot be null).' });
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
    source: z.enum(['clinic', 'default']).openapi({ description: 'clinic: the clinic has its own fee configuration; default: the platform defaults apply.' }),
    pharmacy: z.object({
      basis: z.literal('per_product'),
      description: z.string(),
    }),
    doctor: z.object({
      basis: z.literal('per_order'),
      feeCents: z.number().int().openapi({ description: 'Integer cents per order the doctor reviews.', example: 1500 }),
    }),
    processor: perMilleRate('The payment processor\'s card fee on each charge').extend({
      basis: z.literal('per_charge'),
      fixedCents: z.number().int().openapi({ description: 'Plus this many cents per charge.', example: 30 }),
    }),
    merchant: perMilleRate('The platform\'s merchant fee on each charge (subtotal less discounts)').extend({
      basis: z.literal('per_charge'),
      description: z.string(),
    }),
    updatedAt: dateTime().nullable(),
  })
  .openapi('FeeConfig');
export type FeeConfigView = z.infer<typeof feeConfig>;
