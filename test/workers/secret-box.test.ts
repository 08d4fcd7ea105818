// The webhook-secret encryption (WebCrypto AES-GCM) inside workerd, where the delivery engine decrypts.
import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_WEBHOOK_SECRET_KEY } from '../../src/config';
import { generateSigningSecret } from '../../src/modules/webhooks-checkout/webhooks/secrets';
import { decrypt, encrypt, open, seal } from '../../src/platform/crypto/secret-box';

describe('secret-box in workerd', () => {
  it('round-trips a signing secret and refuses other associated data', async () => {
    const secret = generateSigningSecret();
    const sealed = await encrypt(secret, DEVELOPMENT_WEBHOOK_SECRET_KEY, 'webhook-secret:a');
    expect(sealed).not.toContain(secret.slice(6));
    expect(await decrypt(sealed, DEVELOPMENT_WEBHOOK_SECRET_KEY, 'webhook-secret:a')).toBe(secret);
    await expect(decrypt(sealed, DEVELOPMENT_WEBHOOK_SECRET_KEY, 'webhook-secret:b')).rejects.toThrow('cannot decrypt');
  });

  it('derives the keys per purpose (HKDF) and opens under the previous root, as in Node', async () => {
    const previous = btoa('p'.repeat(32));
    const sealed = await seal(previous, 'webhook-signing-secret', 'whsec_x', 'webhook-secret:a');
    expect(sealed).toMatch(/^v2:[A-Za-z0-9_-]{8}:/);
    expect(await open({ current: DEVELOPMENT_WEBHOOK_SECRET_KEY, previous }, 'webhook-signing-secret', sealed, 'webhook-secret:a')).toBe(
      'whsec_x',
    );
  });
});
