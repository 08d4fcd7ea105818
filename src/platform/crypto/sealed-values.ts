// Every sealed column, with its purpose and the associated data that binds a value to its row: the
// modules seal and open through these entries, and the re-seal (reseal.ts) walks the same list, so
// the two cannot disagree about how a row was sealed.
import type { SecretPurpose } from './secret-box';

export interface SealedValue<Args extends string[]> {
  purpose: SecretPurpose;
  associatedData: (...args: Args) => string;
}

export const SEALED = {
  /** webhook_secrets.encrypted_secret, bound to the endpoint. */
  webhookSigningSecret: { purpose: 'webhook-signing-secret', associatedData: (endpointId: string) => `webhook-secret:${endpointId}` },
  /** crm_connections.encrypted_credentials, bound to the clinic. */
  crmCredentials: { purpose: 'crm-credentials', associatedData: (clinicId: string) => `crm-credentials:${clinicId}` },
  /** sms_configs.encrypted_auth_token, bound to the clinic. */
  smsAuthToken: { purpose: 'sms-auth-token', associatedData: (clinicId: string) => `sms-auth-token:${clinicId}` },
  /** idempotency_keys.sealed_response, bound to the clinic and the key. */
  idempotencyAnswer: {
    purpose: 'idempotency-answer',
    associatedData: (clinicId: string, keyHash: string) => `idempotency:${clinicId}:${keyHash}`,
  },
} as const satisfies Record<string, SealedValue<never[]>>;
