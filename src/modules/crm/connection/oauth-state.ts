// The signed, expiring `state` of GET /crm/connect/oauth/start (docs/crm-connection.md). It carries the
// clinic and the provider, so the OAuth callback (served by the brand portal, outside this API) knows
// whose connection it completes and can refuse a forged, altered, replayed-late or foreign state.
//
// Format: v1.<base64url(JSON payload)>.<base64url(HMAC-SHA256(key, "v1.<payload>"))>
// Key: HMAC-SHA256(the deployment's AES-GCM data key (WEBHOOK_SECRET_KEY, raw bytes), "crm-oauth-state/v1"):
// a key derived for this one purpose, so the data key itself never signs anything.
import { fromBase64Url, toBase64Url } from '../../../platform/auth/crypto';
import { base64ToBytes } from '../../../platform/crypto/secret-box';
import { CRM_PROVIDERS, type CrmProvider } from './providers';

export const OAUTH_STATE_TTL_SECONDS = 10 * 60;
const VERSION = 'v1';
const DERIVATION_LABEL = 'crm-oauth-state/v1';
const NONCE_BYTES = 16;

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

/** The HMAC key for states, derived from the configuration's base64 data key (cached per key). */
function stateKey(dataKeyBase64: string): Promise<CryptoKey> {
  let key = keys.get(dataKeyBase64);
  if (!key) {
    key = (async () => {
      const master = await crypto.subtle.importKey('raw', base64ToBytes(dataKeyBase64), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      const derived = await crypto.subtle.sign('HMAC', master, encoder.encode(DERIVATION_LABEL));
      return crypto.subtle.importKey('raw', derived, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    })();
    keys.set(dataKeyBase64, key);
  }
  return key;
}

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

export async function signOAuthState(clinicId: string, provider: CrmProvider, dataKeyBase64: string, now: Date) {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const wire: Wire = {
    c: clinicId,
    p: provider,
    n: toBase64Url(crypto.getRandomValues(new Uint8Array(NONCE_BYTES))),
    iat: issuedAt,
    exp: issuedAt + OAUTH_STATE_TTL_SECONDS,
  };
  const signed = `${VERSION}.${toBase64Url(encoder.encode(JSON.stringify(wire)))}`;
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await stateKey(dataKeyBase64), encoder.encode(signed)));
  return { state: `${signed}.${toBase64Url(mac)}`, expiresAt: new Date(wire.exp * 1000) };
}

export type OAuthStateCheck = { ok: true; payload: OAuthStatePayload } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Checks a state: well-formed, signed with this deployment's key (compared in constant time), not expired at `now`. */
export async function verifyOAuthState(state: string, dataKeyBase64: string, now: Date): Promise<OAuthStateCheck> {
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
  const valid = await crypto.subtle.verify('HMAC', await stateKey(dataKeyBase64), mac, encoder.encode(`${parts[0]}.${parts[1]}`));
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
