// CRM credentials at rest: JSON ({ apiKey } or OAuth tokens) sealed with AES-GCM under this purpose's
// key (src/platform/crypto/secret-box.ts, derived from the root secret), bound to the clinic: a
// ciphertext copied to another clinic's row no longer decrypts. Never returned by any route.
import { SEALED } from '../../../platform/crypto/sealed-values';
import { type KeyRing, open, seal } from '../../../platform/crypto/secret-box';

export type CrmCredentials = { apiKey: string } | { accessToken: string; refreshToken: string | null; expiresAt: string | null };

const context = SEALED.crmCredentials.associatedData;

export function encryptCrmCredentials(credentials: CrmCredentials, clinicId: string, keys: KeyRing): Promise<string> {
  return seal(keys, SEALED.crmCredentials.purpose, JSON.stringify(credentials), context(clinicId));
}

export async function decryptCrmCredentials(ciphertext: string, clinicId: string, keys: KeyRing): Promise<CrmCredentials> {
  return JSON.parse(await open(keys, SEALED.crmCredentials.purpose, ciphertext, context(clinicId))) as CrmCredentials;
}

/** What may be shown of an API key: its last four characters. */
export const credentialHintFor = (apiKey: string) => `••••${apiKey.slice(-4)}`;
