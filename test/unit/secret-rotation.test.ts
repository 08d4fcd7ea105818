// One key per purpose from one root, the key id in every sealed value, the previous root during a
// rotation, the legacy format (the root itself as the key, no key id), and the root's configuration
// (ROOT_SECRET_KEY, its old name WEBHOOK_SECRET_KEY, ROOT_SECRET_KEY_PREVIOUS). docs/secrets.md.
import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_ROOT_SECRET_KEY, DEVELOPMENT_WEBHOOK_SECRET_KEY, readRootSecretKeys } from '../../src/config';
import { bytesToBase64, encrypt, hmacKeys, keyIdOf, needsReseal, open, SecretBoxError, seal } from '../../src/platform/crypto/secret-box';

const A = bytesToBase64(new Uint8Array(32).map((_, i) => i + 1));
const B = bytesToBase64(new Uint8Array(32).map((_, i) => 200 - i));
const C = bytesToBase64(new Uint8Array(32).fill(3));

describe('sealing with keys per purpose', () => {
  it('writes v2:<kid>:<ciphertext>, the kid derived from the root (never the root), and opens only for its purpose and context', async () => {
    const sealed = await seal({ current: A }, 'crm-credentials', 'secret', 'crm-credentials:1');
    const kid = await keyIdOf(A);
    expect(kid).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(kid).not.toBe(await keyIdOf(B));
    expect(sealed.startsWith(`v2:${kid}:`)).toBe(true);
    expect(sealed).not.toContain(A);
    expect(await open(A, 'crm-credentials', sealed, 'crm-credentials:1')).toBe('secret');
    await expect(open(A, 'sms-auth-token', sealed, 'crm-credentials:1')).rejects.toBeInstanceOf(SecretBoxError);
    await expect(open(A, 'crm-credentials', sealed, 'crm-credentials:2')).rejects.toBeInstanceOf(SecretBoxError);
    // The purpose's key is not the root: the root alone does not open it.
    const ciphertext = sealed.split(':')[2]!;
    await expect(open(A, 'crm-credentials', ciphertext, 'crm-credentials:1')).rejects.toBeInstanceOf(SecretBoxError);
  });

  it('rotation: sealed under A, readable under B with previous A, re-sealed, readable with A dropped', async () => {
    const underA = await seal({ current: A }, 'webhook-signing-secret', 'whsec_x', 'webhook-secret:e');
    await expect(open({ current: B }, 'webhook-signing-secret', underA, 'webhook-secret:e')).rejects.toThrow(/unknown root key/);
    const rotating = { current: B, previous: A };
    expect(await open(rotating, 'webhook-signing-secret', underA, 'webhook-secret:e')).toBe('whsec_x');
    expect(await needsReseal(rotating, underA)).toBe(true);
    const resealed = await seal(rotating, 'webhook-signing-secret', 'whsec_x', 'webhook-secret:e');
    expect(resealed.startsWith(`v2:${await keyIdOf(B)}:`)).toBe(true);
    expect(await needsReseal(rotating, resealed)).toBe(false);
    expect(await open({ current: B }, 'webhook-signing-secret', resealed, 'webhook-secret:e')).toBe('whsec_x');
    await expect(open({ current: C, previous: B }, 'webhook-signing-secret', underA, 'webhook-secret:e')).rejects.toBeInstanceOf(
      SecretBoxError,
    );
  });

  it('legacy rows (the root itself as the AES key, no key id) stay readable under the current or the previous root', async () => {
    const legacy = await encrypt('token', A, 'sms-auth-token:c');
    expect(await open(A, 'sms-auth-token', legacy, 'sms-auth-token:c')).toBe('token');
    expect(await open({ current: B, previous: A }, 'sms-auth-token', legacy, 'sms-auth-token:c')).toBe('token');
    expect(await needsReseal(A, legacy)).toBe(true);
    await expect(open(B, 'sms-auth-token', legacy, 'sms-auth-token:c')).rejects.toBeInstanceOf(SecretBoxError);
  });

  it('signing keys: one per purpose, the previous root among the verifying keys', async () => {
    const [current] = await hmacKeys(A, 'crm-oauth-state');
    const both = await hmacKeys({ current: B, previous: A }, 'crm-oauth-state');
    expect(both).toHaveLength(2);
    const data = new TextEncoder().encode('v1.x');
    const mac = await crypto.subtle.sign('HMAC', current!, data);
    expect(await crypto.subtle.verify('HMAC', both[1]!, mac, data)).toBe(true);
    expect(await crypto.subtle.verify('HMAC', both[0]!, mac, data)).toBe(false);
  });
});

describe('ROOT_SECRET_KEY configuration', () => {
  it('reads ROOT_SECRET_KEY, or WEBHOOK_SECRET_KEY as its old name; both set and different is refused naming both', () => {
    expect(readRootSecretKeys({ ROOT_SECRET_KEY: A }, 'production')).toEqual({ current: A });
    expect(readRootSecretKeys({ WEBHOOK_SECRET_KEY: A }, 'production')).toEqual({ current: A });
    expect(readRootSecretKeys({ ROOT_SECRET_KEY: A, WEBHOOK_SECRET_KEY: A }, 'production')).toEqual({ current: A });
    expect(() => readRootSecretKeys({ ROOT_SECRET_KEY: A, WEBHOOK_SECRET_KEY: B }, 'production')).toThrow(
      /ROOT_SECRET_KEY and WEBHOOK_SECRET_KEY/,
    );
    expect(() => readRootSecretKeys({}, 'production')).toThrow('ROOT_SECRET_KEY is not set');
    expect(() => readRootSecretKeys({ ROOT_SECRET_KEY: DEVELOPMENT_ROOT_SECRET_KEY }, 'production')).toThrow('development key');
    expect(() => readRootSecretKeys({ ROOT_SECRET_KEY: 'short' }, 'production')).toThrow(
      'ROOT_SECRET_KEY must be base64 of exactly 32 bytes',
    );
  });

  it('ROOT_SECRET_KEY_PREVIOUS: checked like the root, never equal to it', () => {
    expect(readRootSecretKeys({ ROOT_SECRET_KEY: B, ROOT_SECRET_KEY_PREVIOUS: A }, 'production')).toEqual({ current: B, previous: A });
    expect(() => readRootSecretKeys({ ROOT_SECRET_KEY: B, ROOT_SECRET_KEY_PREVIOUS: 'x' }, 'production')).toThrow(
      'ROOT_SECRET_KEY_PREVIOUS must be base64',
    );
    expect(() => readRootSecretKeys({ ROOT_SECRET_KEY: B, ROOT_SECRET_KEY_PREVIOUS: B }, 'production')).toThrow('the same as');
  });

  it('development and test default to the development key, unchanged under both names', () => {
    expect(DEVELOPMENT_WEBHOOK_SECRET_KEY).toBe(DEVELOPMENT_ROOT_SECRET_KEY);
    expect(readRootSecretKeys({}, 'development')).toEqual({ current: DEVELOPMENT_ROOT_SECRET_KEY });
    expect(readRootSecretKeys({}, 'test')).toEqual({ current: DEVELOPMENT_ROOT_SECRET_KEY });
  });
});
