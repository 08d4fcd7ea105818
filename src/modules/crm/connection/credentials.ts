// CRM credentials at rest: JSON ({ apiKey } or OAuth tokens) sealed with the deployment's AES-GCM data
// key (src/platform/crypto/secret-box.ts, the key webhook secrets use), bound to the clinic: a
// ciphertext copied to another clinic's row no longer decrypts. Never returned by any route.
import { decrypt, encrypt } from '../../../platform/crypto/secret-box';

export type CrmCredentials = { apiKey: string } | { accessToken: string; refreshToken: string | null; expiresAt: string | null };

const context = (clinicId: string) => `crm-credentials:${clinicId}`;

export function encryptCrmCredentials(credentials: CrmCredentials, clinicId: string, dataKeyBase64: string): Promise<string> {
  return encrypt(JSON.stringify(credentials), dataKeyBase64, context(clinicId));
}

export async function decryptCrmCredentials(ciphertext: string, clinicId: string, dataKeyBase64: string): Promise<CrmCredentials> {
  return JSON.parse(await decrypt(ciphertext, dataKeyBase64, context(clinicId))) as CrmCredentials;
}

/** What may be shown of an API key: its last four characters. */
export const credentialHintFor = (apiKey: string) => `••••${apiKey.slice(-4)}`;
