import { z } from '@hono/zod-openapi';
import { pageQuery } from '../../../platform/http/pagination';
import { safeString } from '../../../platform/values/strings';
import { tag } from '../tags/schemas';

export const MAX_NAME_LENGTH = 100;
/** RFC 5321's limit for a forward path. */
export const MAX_EMAIL_LENGTH = 254;
/** E.164: a plus, a non-zero digit, at most 15 digits in all. */
export const E164_PATTERN = /^\+[1-9][0-9]{6,14}$/;
/** Spaces, dashes, dots and parentheses people write phone numbers with; removed before the E.164 check. */
const PHONE_PUNCTUATION = /[\s().-]/g;

/** "+1 (555) 010-2000" -> "+15550102000"; the result must be E.164. */
export const normalizePhone = (value: string) => value.replace(PHONE_PUNCTUATION, '');

export const nameField = (example: string) =>
  safeString()
    .trim()
    .min(1)
    .max(MAX_NAME_LENGTH)
    .openapi({ description: `1-${MAX_NAME_LENGTH} characters.`, example });

/** Trimmed and lower-cased; unique in the clinic. */
export const emailField = () =>
  safeString()
    .trim()
    .toLowerCase()
    .max(MAX_EMAIL_LENGTH)
    .email('must be a valid email address')
    .openapi({
      description: `An email address (stored lower-cased; unique in the clinic ignoring case), at most ${MAX_EMAIL_LENGTH} characters.`,
      example: 'jane.doe@example.com',
    });

export const phoneField = () =>
  safeString()
    .trim()
    .max(40)
    .refine((value) => E164_PATTERN.test(normalizePhone(value)), 'must be an international (E.164) number such as +15550102000')
    .openapi({
      description:
        'International (E.164) number; spaces, dashes, dots and parentheses are removed first ("+1 (555) 010-2000" is stored as +15550102000).',
      example: '+15550102000',
    });

export const createContactBody = z
  .object({
    firstName: nameField('Jane'),
    lastName: nameField('Doe'),
    email: emailField(),
    phoneNumber: phoneField().nullable().optional(),
  })
  .strict()
  .openapi('CreateContactRequest');
export type CreateContactBody = z.infer<typeof createContactBody>;

export const updateContactBody = z
  .object({
    firstName: nameField('Jane'),
    lastName: nameField('Doe'),
    email: emailField(),
    phoneNumber: phoneField().nullable().openapi({ description: 'E.164 number; null removes it.' }),
    emailOptedOut: z.boolean().openapi({
      description: 'true: the contact is sent no email (sets optOutDate and emits contact.unsubscribed when it changes from false).',
    }),
    smsOptedOut: z.boolean().openapi({
      description: 'true: the contact is sent no SMS (sets optOutDate and emits contact.unsubscribed when it changes from false).',
    }),
  })
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must contain at least one field' })
  .openapi('UpdateContactRequest', { description: 'A partial update: only the fields sent change.' });
export type UpdateContactBody = z.infer<typeof updateContactBody>;

export const contact = z
  .object({
    id: z.string().uuid(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string().openapi({ description: 'Lower-cased.' }),
    phoneNumber: z.string().nullable(),
    emailOptedOut: z.boolean(),
    smsOptedOut: z.boolean(),
    optOutDate: z
      .string()
      .datetime()
      .nullable()
      .openapi({ description: 'When the contact last opted out of a channel; null once neither channel is opted out.' }),
    createdAt: z.string().datetime(),
    lastLoginAt: z.string().datetime().nullable(),
    lastContactDate: z
      .string()
      .datetime()
      .nullable()
      .openapi({ description: 'When the newest message (email or SMS, any status) to the contact was recorded; null if none.' }),
    tags: z.array(tag).openapi({ description: 'Every tag on the contact (active or not), by name.' }),
  })
  .openapi('Contact');
export type Contact = z.infer<typeof contact>;

/** 5 MiB: the largest CSV file POST /contacts/import takes. */
export const MAX_CSV_BYTES = 5 * 1024 * 1024;
/** Room for the multipart framing around the file (boundaries, part headers, other small fields). */
export const CSV_FRAMING_ALLOWANCE_BYTES = 64 * 1024;
/** At most this many error rows are listed (failed counts them all). */
export const MAX_IMPORT_ERRORS_LISTED = 1_000;

const csvFile = z
  .custom<Blob | string>((value) => value instanceof Blob || typeof value === 'string', {
    message: 'must be one CSV file (multipart field csv)',
  })
  .openapi({ type: 'string', format: 'binary', description: `The CSV file (UTF-8), at most ${MAX_CSV_BYTES} bytes (5 MiB).` });

export const importContactsForm = z.object({ csv: csvFile }).strict().openapi('ImportContactsForm');

export const importResult = z
  .object({
    totalRows: z
      .number()
      .int()
      .openapi({ description: 'Data rows read (the header and blank rows not counted) = imported + skipped + failed.' }),
    imported: z.number().int().openapi({ description: 'New contacts created.' }),
    skipped: z.number().int().openapi({
      description:
        'Rows whose email is already a contact of the clinic, or appears on an earlier row of the file (ignoring case); nothing was changed for them.',
    }),
    failed: z.number().int().openapi({ description: 'Rows refused as invalid (each is in errors, up to the first 1000).' }),
    errors: z
      .array(
        z.object({
          line: z.number().int().openapi({
            description: 'Line of the file the row starts on (the header is line 1; a quoted field spanning lines counts every line).',
          }),
          reason: z.string(),
          email: z.string().nullable().openapi({
            description: "The row's email, redacted (j***@example.com); null when the row has none.",
            example: 'j***@example.com',
          }),
        }),
      )
      .openapi({ description: `Invalid rows in file order, at most ${MAX_IMPORT_ERRORS_LISTED}.` }),
  })
  .openapi('ContactImportResult');
export type ImportResult = z.infer<typeof importResult>;

export const listContactsQuery = pageQuery.extend({
  tag: z.string().uuid().optional().openapi({
    description: "Only the contacts carrying this tag (its id). An unknown tag, or another clinic's, matches nothing.",
    example: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10',
  }),
  q: safeString().trim().max(200).optional().openapi({
    description:
      'Case-insensitive substring of the first name, last name, full name ("Ada Lovelace") or email (blank: no filter; `%`, `_` and `\\` match themselves).',
    example: 'ada',
  }),
});
export type ListContactsQuery = z.infer<typeof listContactsQuery>;
