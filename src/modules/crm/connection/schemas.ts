import { z } from '@hono/zod-openapi';
import { CRM_AUTH_TYPES } from '../../../../drizzle/schema';
import { safeString } from '../../../platform/values/strings';
import { CRM_PROVIDERS, PROVIDERS } from './providers';

const providerField = z.enum(CRM_PROVIDERS).openapi({ description: 'hubspot, salesforce, pipedrive or zoho.', example: 'hubspot' });

export const connectApiKeyBody = z
  .object({
    provider: providerField.openapi({
      description: 'hubspot or pipedrive (salesforce and zoho connect with OAuth only: 400).',
      example: 'hubspot',
    }),
    apiKey: safeString().trim().min(16).max(512).regex(/^\S+$/, 'must not contain spaces').openapi({
      description: "The provider's API key or private-app token, 16-512 characters. Stored encrypted, never returned.",
      example: 'pat-na1-00000000-0000-0000-0000-000000000000',
    }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (!PROVIDERS[body.provider].apiKey) {
      ctx.addIssue({
        code: 'custom',
        path: ['provider'],
        message: `${body.provider} connects with OAuth only (GET /api/v1/crm/connect/oauth/start)`,
      });
    }
  })
  .openapi('ConnectCrmApiKeyRequest');
export type ConnectApiKeyBody = z.infer<typeof connectApiKeyBody>;

export const oauthStartQuery = z.object({
  provider: providerField.optional().openapi({
    description:
      "hubspot, salesforce, pipedrive or zoho. Optional: without it, the clinic's connected provider (re-authorising it), " +
      'else the first of hubspot, salesforce, pipedrive, zoho this deployment has an OAuth app for (hubspot outside production).',
    example: 'hubspot',
  }),
});

export const phiSyncBody = z
  .object({
    phiSyncEnabled: z.boolean().openapi({ description: 'Whether patient health information is synced to the CRM.' }),
    baaAttested: z.boolean().default(false).openapi({
      description: 'The clinic attests a Business Associate Agreement with the CRM provider is in place; required true to enable.',
    }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.phiSyncEnabled && !body.baaAttested) {
      ctx.addIssue({
        code: 'custom',
        path: ['baaAttested'],
        message: 'must be true to enable PHI sync (a BAA with the provider is required)',
      });
    }
  })
  .openapi('CrmPhiSyncRequest');
export type PhiSyncBody = z.infer<typeof phiSyncBody>;

/** The safe projection: never the credentials, only a hint of an API key. */
export const crmConnection = z
  .object({
    provider: z.enum(CRM_PROVIDERS),
    authType: z.enum(CRM_AUTH_TYPES),
    credentialHint: z
      .string()
      .nullable()
      .openapi({ description: 'The last four characters of an API key (••••abcd); null for OAuth.', example: '••••7f3a' }),
    accountName: z.string().nullable().openapi({ description: "The account's name at the provider, when known." }),
    phiSyncEnabled: z.boolean(),
    baaAttestedAt: z
      .string()
      .datetime()
      .nullable()
      .openapi({ description: 'When a BAA was last attested (PATCH .../phi-sync); null: never.' }),
    connectedAt: z.string().datetime(),
    lastSyncedAt: z.string().datetime().nullable(),
  })
  .openapi('CrmConnection');
export type CrmConnection = z.infer<typeof crmConnection>;

export const crmDisconnected = z.object({ provider: z.enum(CRM_PROVIDERS), disconnected: z.literal(true) }).openapi('CrmDisconnected');

export const oauthStart = z
  .object({
    provider: z.enum(CRM_PROVIDERS),
    authorizeUrl: z.string().openapi({ description: "The provider's consent screen, with client_id, redirect_uri, scope and the state." }),
    state: z
      .string()
      .openapi({ description: 'Signed (HMAC-SHA256) and expiring; carries the clinic and the provider. Opaque to the client.' }),
    expiresAt: z.string().datetime().openapi({ description: 'The state is refused after this instant (10 minutes after issue).' }),
  })
  .openapi('CrmOAuthStart');
