import { fromBase64Url, randomBytes, timingSafeEqual, toBase64Url } from '../crypto/bytes';

/** Workers' WebCrypto refuses PBKDF2 above 100,000 iterations. */
export const PASSWORD_ITERATIONS = 100_000;
const SCHEME = 'pbkdf2-sha256';

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, material, 256);
  return new Uint8Array(bits);
}

/** Returns `pbkdf2-sha256$<iterations>$<salt>$<hash>` with a fresh 16-byte salt. */
export async function hashPassword(password: string, iterations = PASSWORD_ITERATIONS): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, iterations);
  return [SCHEME, iterations, toBase64Url(salt), toBase64Url(hash)].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterationsText, saltText, hashText] = stored.split('$');
  const iterations = Number(iterationsText);
  if (scheme !== SCHEME || !saltText || !hashText || !Number.isInteger(iterations) || iterations < 1 || iterations > PASSWORD_ITERATIONS) {
    return false;
  }
  const actual = await derive(password, fromBase64Url(saltText), iterations);
  return timingSafeEqual(actual, fromBase64Url(hashText));
}

/** Checked against when the email is unknown, so a miss takes as long as a wrong password. */
export const DECOY_PASSWORD_HASH = 'pbkdf2-sha256$100000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
