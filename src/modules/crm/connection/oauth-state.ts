// The signed, expiring `state` of GET /crm/connect/oauth/start (docs/crm-connection.md). It carries the
// clinic and the provider, so the OAuth callback (served by the brand portal, outside this API) knows
// whose connection it completes and can refuse a forged, altered, replayed-late or foreign state.
//
// Format: v1.<base64url(JSON payload)>.<base64url(HMAC-SHA256(key, "v1.<payload>"))>
// Key: the 'crm-oauth-state' key derived from the root secret (src/platform/crypto/secret-box.ts): a key
// for this one purpose. During a rotation a state signed under the previous root still verifies.
import { fromBase64Url, toBase64Url } from '../../../platform/crypto/bytes';
import { hmacKeys, type KeyRing } from '../../../platform/crypto/secret-box';
import { CRM_PROVIDERS, type CrmProvider } from './providers';

export const OAUTH_STATE_TTL_SECONDS = 10 * 60;
const VERSION = 'v1';
const NONCE_BYTES = 16;

const encoder = new TextEncoder();

export interface OAuthStatePayload {
  clinicId: string;
  provider: CrmProvider;
  nonce: string;
  /** Unix seconds. */
  issuedAt: number;
  expiresAt: number;
}

interface Wire {
  c: string;
  p: string;
  n: string;
  iat: number;
  exp: number;
}

export async function signOAuthState(clinicId: string, provider: CrmProvider, keys: KeyRing, now: Date) {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const wire: Wire = {
    c: clinicId,
    p: provider,
    n: toBase64Url(crypto.getRandomValues(new Uint8Array(NONCE_BYTES))),
    iat: issuedAt,
    exp: issuedAt + OAUTH_STATE_TTL_SECONDS,
  };
  const signed = `${VERSION}.${toBase64Url(encoder.encode(JSON.stringify(wire)))}`;
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', (await hmacKeys(keys, 'crm-oauth-state'))[0]!, encoder.encode(signed)));
  return { state: `${signed}.${toBase64Url(mac)}`, expiresAt: new Date(wire.exp * 1000) };
}

export type OAuthStateCheck = { ok: true; payload: OAuthStatePayload } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Checks a state: well-formed, signed with this deployment's key (compared in constant time), not expired at `now`. */
export async function verifyOAuthState(state: string, keys: KeyRing, now: Date): Promise<OAuthStateCheck> {
  const parts = state.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION || !BASE64URL.test(parts[1]!) || !BASE64URL.test(parts[2]!)) {
    return { ok: false, reason: 'malformed' };
  }
  let mac: Uint8Array<ArrayBuffer>;
  try {
    mac = fromBase64Url(parts[2]!);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  let valid = false;
  for (const key of await hmacKeys(keys, 'crm-oauth-state')) {
    valid ||= await crypto.subtle.verify('HMAC', key, mac, encoder.encode(`${parts[0]}.${parts[1]}`));
  }
  if (!valid) return { ok: false, reason: 'signature' };
  let wire: Wire;
  try {
    wire = JSON.parse(new TextDecoder().decode(fromBase64Url(parts[1]!))) as Wire;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (
    typeof wire.c !== 'string' ||
    !CRM_PROVIDERS.includes(wire.p as CrmProvider) ||
    typeof wire.exp !== 'number' ||
    typeof wire.iat !== 'number'
  ) {
    return { ok: false, reason: 'malformed' };
  }
  if (now.getTime() >= wire.exp * 1000) return { ok: false, reason: 'expired' };
  return {
    ok: true,
    payload: { clinicId: wire.c, provider: wire.p as CrmProvider, nonce: wire.n, issuedAt: wire.iat, expiresAt: wire.exp },
  };
}
