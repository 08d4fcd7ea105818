import { z } from '@hono/zod-openapi';
import { CHECKOUT_SESSION_STATUSES } from '../../../../drizzle/schema';
import { safeString } from '../../../platform/values/strings';

/** metadata limits (docs/checkout.md): keys, key length, string value length, serialized size. */
export const METADATA_MAX_KEYS = 20;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_STRING_LENGTH = 500;
export const METADATA_MAX_BYTES = 4096;
export const SUCCESS_URL_MAX_LENGTH = 2048;

const metadataValue = z.union([safeString().max(METADATA_MAX_STRING_LENGTH), z.number().finite(), z.boolean()]);

export const metadataSchema = z
  .record(safeString().min(1).max(METADATA_MAX_KEY_LENGTH), metadataValue)
  .superRefine((value, ctx) => {
    const keys = Object.keys(value).length;
    if (keys > METADATA_MAX_KEYS) ctx.addIssue({ code: 'custom', message: `at most ${METADATA_MAX_KEYS} keys (got ${keys})` });
    const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
    if (bytes > METADATA_MAX_BYTES)
      ctx.addIssue({ code: 'custom', message: `at most ${METADATA_MAX_BYTES} bytes serialized as JSON (got ${bytes})` });
  })
  .openapi({
    description: `Your own data, kept with the session: at most ${METADATA_MAX_KEYS} keys of 1–${METADATA_MAX_KEY_LENGTH} characters, values strings (at most ${METADATA_MAX_STRING_LENGTH} characters), numbers or booleans, at most ${METADATA_MAX_BYTES} bytes as JSON. Default {}.`,
    example: { cartId: 'c_123', campaign: 'spring' },
  });

/** An absolute https URL (parsed, not only matched), at most 2048 characters. */
const httpsUrl = safeString()
  .max(SUCCESS_URL_MAX_LENGTH)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' && url.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an absolute https URL');

export const createSessionBody = z
  .object({
    programId: safeString().max(100).openapi({
      format: 'uuid',
      description:
        "One of the clinic's live, active programs; any other id (another clinic's, unknown, malformed, not offered) answers 404.",
      example: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10',
    }),
    metadata: metadataSchema.optional(),
    successUrl: httpsUrl.nullable().optional().openapi({
      description: 'Where the checkout sends the patient after paying: an absolute https URL (at most 2048 characters), or null (default).',
      example: 'https://brand.example.com/thank-you',
    }),
  })
  .strict()
  .openapi('CreateCheckoutSessionRequest');
export type CreateSessionBody = z.infer<typeof createSessionBody>;

export const createdSession = z
  .object({
    sessionId: z.string().uuid(),
    sessionToken: z.string().openapi({
      description: 'cs_tok_ + 43 characters. Shown once; only its SHA-256 is stored.',
      example: 'cs_tok_3q2-7wEjc0x1b0mXo0JtDqj6f1i7m0ZqH8yG9yQwQzE',
    }),
    embedUrl: z
      .string()
      .openapi({ description: 'The checkout page for the browser: `<CHECKOUT_EMBED_BASE_URL>/<sessionId>#token=<sessionToken>`.' }),
    expiresAt: z.string().datetime().openapi({ description: '30 minutes after creation.' }),
  })
  .openapi('CreatedCheckoutSession');
export type CreatedSession = z.infer<typeof createdSession>;

export const sessionRead = z
  .object({
    sessionId: z.string().uuid(),
    status: z
      .enum(CHECKOUT_SESSION_STATUSES)
      .openapi({ description: 'created (open), completed (paid: orderId is set) or expired (not paid before expiresAt).' }),
    orderId: z.string().uuid().nullable(),
    expiresAt: z.string().datetime(),
  })
  .openapi('CheckoutSession');
export type SessionRead = z.infer<typeof sessionRead>;

/** POST /_dev/checkout/sessions/{id}/complete: the patient who pays; every field optional (generated). */
export const completeSessionBody = z
  .object({
    email: safeString().trim().toLowerCase().email().max(254).optional(),
    firstName: safeString().trim().min(1).max(100).optional(),
    lastName: safeString().trim().min(1).max(100).optional(),
    /** The processor's payment (Stripe PaymentIntent pi_... or charge ch_...) the platform took; refunds go to it. */
    processorPaymentId: safeString().trim().min(1).max(200).optional(),
  })
  .strict();
export type CompleteSessionBody = z.infer<typeof completeSessionBody>;
