import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_WEBHOOK_SECRET_KEY, readWebhookSecretKey } from '../../src/config';
import { generateSigningSecret } from '../../src/modules/webhooks-checkout/webhooks/secrets';
import { base64ToBytes, bytesToBase64, decrypt, encrypt, SecretBoxError } from '../../src/platform/crypto/secret-box';

const KEY = bytesToBase64(new Uint8Array(32).map((_, i) => i * 7));
const OTHER_KEY = bytesToBase64(new Uint8Array(32).fill(9));

describe('secret-box (AES-256-GCM)', () => {
  it('round-trips, with a fresh IV each time (base64 of 12-byte IV + ciphertext + 16-byte tag)', async () => {
    const secret = `whsec_${'x'.repeat(44)}`;
    const a = await encrypt(secret, KEY);
    const b = await encrypt(secret, KEY);
    expect(a).not.toBe(b);
    expect(a).not.toContain('whsec_');
    expect(base64ToBytes(a).length).toBe(12 + secret.length + 16);
    expect(await decrypt(a, KEY)).toBe(secret);
    expect(await decrypt(b, KEY)).toBe(secret);
  });

  it('refuses a wrong key, other associated data and any altered byte', async () => {
    const sealed = await encrypt('hello', KEY, 'webhook-secret:a');
    expect(await decrypt(sealed, KEY, 'webhook-secret:a')).toBe('hello');
    await expect(decrypt(sealed, OTHER_KEY, 'webhook-secret:a')).rejects.toBeInstanceOf(SecretBoxError);
    await expect(decrypt(sealed, KEY, 'webhook-secret:b')).rejects.toBeInstanceOf(SecretBoxError);
    await expect(decrypt(sealed, KEY)).rejects.toBeInstanceOf(SecretBoxError);
    const bytes = base64ToBytes(sealed);
    for (const index of [0, 11, 12, bytes.length - 1]) {
      const altered = bytes.slice();
      altered[index]! ^= 1;
      await expect(decrypt(bytesToBase64(altered), KEY, 'webhook-secret:a')).rejects.toBeInstanceOf(SecretBoxError);
    }
    await expect(decrypt('AAAA', KEY)).rejects.toBeInstanceOf(SecretBoxError);
    await expect(decrypt('not base64!', KEY)).rejects.toBeInstanceOf(SecretBoxError);
  });

  it('refuses keys that are not 32 bytes', async () => {
    await expect(encrypt('x', bytesToBase64(new Uint8Array(16)))).rejects.toBeInstanceOf(SecretBoxError);
  });
});

describe('signing secrets and WEBHOOK_SECRET_KEY', () => {
  it('whsec_ followed by base64 of 32 random bytes', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(base64ToBytes(secret.slice(6)).length).toBe(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it('is required in production, never the development key there, and must be base64 of 32 bytes', () => {
    expect(() => readWebhookSecretKey(undefined, 'production')).toThrow('WEBHOOK_SECRET_KEY is not set');
    expect(() => readWebhookSecretKey(DEVELOPMENT_WEBHOOK_SECRET_KEY, 'production')).toThrow('development key');
    expect(readWebhookSecretKey(undefined, 'development')).toBe(DEVELOPMENT_WEBHOOK_SECRET_KEY);
    expect(readWebhookSecretKey(undefined, 'test')).toBe(DEVELOPMENT_WEBHOOK_SECRET_KEY);
    expect(readWebhookSecretKey(KEY, 'production')).toBe(KEY);
    for (const bad of ['short', bytesToBase64(new Uint8Array(31)), bytesToBase64(new Uint8Array(33)), `${KEY}!`]) {
      expect(() => readWebhookSecretKey(bad, 'production'), bad).toThrow('32 bytes');
    }
    expect(base64ToBytes(DEVELOPMENT_WEBHOOK_SECRET_KEY).length).toBe(32);
  });
});
