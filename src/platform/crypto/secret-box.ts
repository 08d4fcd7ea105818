/**
 * Symmetric encryption of small secrets that must be read back (webhook signing secrets, CRM
 * credentials, SMS tokens, kept idempotent answers), with
 * AES-256-GCM through WebCrypto (the same code runs in workerd and Node). The stored form is
 * base64(iv || ciphertext-with-tag): a fresh random 12-byte IV per encryption, the 16-byte GCM tag
 * at the end of the ciphertext. `associatedData` (optional) binds the ciphertext to its context
 * (e.g. the owning row's id): decrypting it under any other context fails, so a ciphertext copied
 * to another row is useless.
 *
 * `encrypt`/`decrypt` take a raw key; modules use `seal`/`open` (below), which take the root keys and a
 * purpose and use the purpose's derived key (docs/secrets.md).
 */
import type { RootSecretKeys } from '../../config';
import { fromBase64, toBase64 } from './bytes';

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

// ---- One key per purpose, derived from the root secret (docs/secrets.md) ----

/**
 * What a sealed value is for. Each purpose has its own key, HKDF-SHA256(root, info = the label), so
 * a key never serves two purposes and no purpose ever uses the root itself.
 */
export type SecretPurpose =
  | 'webhook-signing-secret'
  | 'idempotency-answer'
  | 'crm-credentials'
  | 'sms-auth-token'
  | 'crm-oauth-state'
  | 'platform-request';

/** The root keys (current, and previous during a rotation); a bare base64 string is a lone current root. */
export type KeyRing = RootSecretKeys | string;

const VERSION = 'v2';
const rootsOf = (keys: KeyRing): string[] =>
  typeof keys === 'string' ? [keys] : keys.previous ? [keys.current, keys.previous] : [keys.current];

/** Derived bits by root and label, cached: HKDF costs more than an encryption. */
const derived = new Map<string, Promise<ArrayBuffer>>();

function deriveBits(rootBase64: string, label: string): Promise<ArrayBuffer> {
  const cacheKey = `${rootBase64}\n${label}`;
  let bits = derived.get(cacheKey);
  if (!bits) {
    const raw = base64ToBytes(rootBase64);
    if (raw.length !== SECRET_BOX_KEY_BYTES) throw new SecretBoxError(`the key must be ${SECRET_BOX_KEY_BYTES} bytes`);
    bits = crypto.subtle
      .importKey('raw', raw, 'HKDF', false, ['deriveBits'])
      .then((root) =>
        crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode(label) }, root, 256),
      );
    derived.set(cacheKey, bits);
  }
  return bits;
}

/** The purpose's AES-GCM key under this root, as base64 (what encrypt/decrypt take). */
const purposeKey = async (rootBase64: string, purpose: SecretPurpose) =>
  bytesToBase64(new Uint8Array(await deriveBits(rootBase64, purpose)));

/**
 * The root's key id: 8 base64url characters derived from the root (never the root itself), written
 * into every sealed value so the root that sealed it is known and a rotation detectable.
 */
export async function keyIdOf(rootBase64: string): Promise<string> {
  const bits = new Uint8Array(await deriveBits(rootBase64, 'key-id')).slice(0, 6);
  return bytesToBase64(bits).replaceAll('+', '-').replaceAll('/', '_');
}

/** Seals under the current root's key for `purpose`: `v2:<kid>:<base64(iv || ciphertext)>`. */
export async function seal(keys: KeyRing, purpose: SecretPurpose, plaintext: string, associatedData: string): Promise<string> {
  const root = rootsOf(keys)[0]!;
  return `${VERSION}:${await keyIdOf(root)}:${await encrypt(plaintext, await purposeKey(root, purpose), associatedData)}`;
}

/**
 * Opens what `seal` produced, under whichever root (current or previous) its key id names. A value
 * without the v2 prefix is the legacy format (sealed with the root itself, before keys per purpose):
 * it is tried under the current root, then the previous one. Anything else throws SecretBoxError.
 */
export async function open(keys: KeyRing, purpose: SecretPurpose, sealed: string, associatedData: string): Promise<string> {
  const roots = rootsOf(keys);
  if (sealed.startsWith(`${VERSION}:`)) {
    const [, kid, ciphertext] = sealed.split(':');
    for (const root of roots) {
      if ((await keyIdOf(root)) === kid) return decrypt(ciphertext ?? '', await purposeKey(root, purpose), associatedData);
    }
    throw new SecretBoxError(`sealed under an unknown root key (kid ${kid}); set ROOT_SECRET_KEY_PREVIOUS to the root that sealed it`);
  }
  let failure: unknown;
  for (const root of roots) {
    try {
      return await decrypt(sealed, root, associatedData);
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

/** True when `sealed` is not under the current root's keys (legacy format, or the previous root): the re-seal moves it. */
export async function needsReseal(keys: KeyRing, sealed: string): Promise<boolean> {
  return !sealed.startsWith(`${VERSION}:${await keyIdOf(rootsOf(keys)[0]!)}:`);
}

/**
 * The HMAC-SHA256 keys of a signing purpose (e.g. CRM OAuth states), current root first: sign with
 * the first, accept a signature by any (so what the previous root signed verifies during a rotation).
 */
export function hmacKeys(keys: KeyRing, purpose: SecretPurpose): Promise<CryptoKey[]> {
  return Promise.all(
    rootsOf(keys).map(async (root) =>
      crypto.subtle.importKey('raw', await deriveBits(root, purpose), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']),
    ),
  );
}
