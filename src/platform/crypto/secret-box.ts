/**
 * Symmetric encryption of small secrets that must be read back (webhook signing secrets), with
 * AES-256-GCM through WebCrypto (the same code runs in workerd and Node). The stored form is
 * base64(iv || ciphertext-with-tag): a fresh random 12-byte IV per encryption, the 16-byte GCM tag
 * at the end of the ciphertext. `associatedData` (optional) binds the ciphertext to its context
 * (e.g. the owning row's id): decrypting it under any other context fails, so a ciphertext copied
 * to another row is useless.
 */
import { fromBase64, toBase64 } from '../auth/crypto';

const IV_BYTES = 12;
export const SECRET_BOX_KEY_BYTES = 32;

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export const bytesToBase64 = toBase64;

export function base64ToBytes(value: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) throw new SecretBoxError('not base64');
  return fromBase64(value);
}

/** Imported keys by their base64 text: importing costs more than an encryption. */
const keys = new Map<string, Promise<CryptoKey>>();

function importKey(keyBase64: string): Promise<CryptoKey> {
  let key = keys.get(keyBase64);
  if (!key) {
    const raw = base64ToBytes(keyBase64);
    if (raw.length !== SECRET_BOX_KEY_BYTES) throw new SecretBoxError(`the key must be ${SECRET_BOX_KEY_BYTES} bytes`);
    key = crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
    keys.set(keyBase64, key);
  }
  return key;
}

const params = (iv: Uint8Array<ArrayBuffer>, associatedData?: string): AesGcmParams =>
  associatedData === undefined ? { name: 'AES-GCM', iv } : { name: 'AES-GCM', iv, additionalData: encoder.encode(associatedData) };

/** Encrypts `plaintext` under the base64 key: base64(iv || ciphertext). */
export async function encrypt(plaintext: string, keyBase64: string, associatedData?: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(params(iv, associatedData), await importKey(keyBase64), encoder.encode(plaintext)),
  );
  const out = new Uint8Array(IV_BYTES + sealed.length);
  out.set(iv, 0);
  out.set(sealed, IV_BYTES);
  return bytesToBase64(out);
}

/**
 * Decrypts what `encrypt` produced. A wrong key, other associated data, or any changed byte throws
 * SecretBoxError (GCM authenticates the whole thing).
 */
export async function decrypt(ciphertext: string, keyBase64: string, associatedData?: string): Promise<string> {
  const bytes = base64ToBytes(ciphertext);
  if (bytes.length < IV_BYTES + 16) throw new SecretBoxError('ciphertext too short');
  try {
    const plain = await crypto.subtle.decrypt(
      params(bytes.slice(0, IV_BYTES), associatedData),
      await importKey(keyBase64),
      bytes.slice(IV_BYTES),
    );
    return decoder.decode(plain);
  } catch {
    throw new SecretBoxError('cannot decrypt: wrong key, wrong context or altered ciphertext');
  }
}
