import { z } from '@hono/zod-openapi';
import { CLINIC_MODES } from '../../../../drizzle/schema';
import { DNS_RECORD_PURPOSES, DNS_RECORD_TYPES } from '../../../platform/providers/domains';
import { atLeastOneField, timestamp } from '../../../platform/values/fields';
import { safeString, text } from '../../../platform/values/strings';
import { storedImage } from '../../catalog';
import { emailSchema, HEX_COLOR, phoneSchema, SLUG_RULE, slugSchema, toHexColor } from '../organization/validation';

// ---------------------------------------------------------------------------------------------------
// DNS records

export const dnsRecord = z
  .object({
    type: z.enum(DNS_RECORD_TYPES),
    name: z.string().openapi({ description: 'Fully qualified record name.', example: '_cf-custom-hostname.shop.example-brand.com' }),
    value: z.string(),
    purpose: z.enum(DNS_RECORD_PURPOSES).openapi({
      description:
        'routing (CNAME to the platform), ownership_verification (TXT), spf, dkim, return_path (MX of the bounce domain), dmarc, tracking.',
    }),
    priority: z.number().int().nullable().openapi({ description: 'MX records only; null otherwise.' }),
  })
  .openapi('DnsRecord');

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
    sandboxExpiresAt: timestamp().nullable().openapi({ description: 'Sandbox clinics: when the sandbox window ends.' }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
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
    contactPhone: phoneSchema()
      .nullable()
      .openapi({ type: ['string', 'null'] }),
  })
  .partial()
  .strict()
  .refine(atLeastOneField, { message: 'must contain at least one field' })
  .openapi('UpdateClinicRequest', { description: 'A partial update: only the fields sent change. null clears an optional field.' });

export type UpdateClinicBody = z.infer<typeof updateClinicBody>;

export const slugParam = z.object({
  slug: slugSchema().openapi({
    param: { name: 'slug', in: 'path' },
    description: `${SLUG_RULE}; anything else answers 400.`,
    example: 'demo-clinic',
  }),
});

export const slugAvailability = z
  .object({
    success: z.literal(true),
    message: z.string(),
    available: z.boolean().openapi({
      description:
        'true when the clinic may take the slug (its own current slug included); false when another clinic has it or it is reserved.',
    }),
  })
  .openapi('SlugAvailability', { description: 'At top level (no data), as the specification shows: { success, available }.' });

export const logoUploadForm = z
  .object({
    logo: z
      .custom<File>((value) => value instanceof Blob, { message: 'must be one file (multipart field logo)' })
      .openapi({
        type: 'string',
        format: 'binary',
        description: 'PNG, JPEG, WebP or GIF (type read from the bytes; SVG refused), at most 5 MiB.',
      }),
  })
  .strict()
  .openapi('LogoUploadForm');

export const logoResult = z
  .object({
    clinicId: z.string().uuid(),
    logoUrl: z.string().openapi({ description: "The clinic's logoUrl now (the stored image's url)." }),
    upload: storedImage,
  })
  .openapi('ClinicLogoResult');
