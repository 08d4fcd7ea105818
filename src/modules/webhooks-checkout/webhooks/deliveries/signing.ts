// Signing of outbound webhooks (docs/webhooks.md, "Delivery"). Two schemes on every delivery:
// - X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> keyed with the
//   whole secret string (whsec_ prefix included), as Stripe does; one v1= entry per active secret.
// - Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature "v1,<base64 HMAC-SHA256 of
//   "<id>.<t>.<body>">" keyed with the base64-decoded part after whsec_; entries space-separated.
// WebCrypto only, so the same code runs in the Worker and in Node.

import { timingSafeEqual as bytesEqual, fromBase64, toBase64, toHex } from '../../../../platform/auth/crypto';

const encoder = new TextEncoder();

export const SECRET_PREFIX = 'whsec_';

async function hmac(key: Uint8Array, message: string): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, encoder.encode(message)));
}

/** Hex HMAC-SHA256 of "<t>.<body>" keyed with the whole secret string (the X-Service-Signature v1). */
export async function serviceSignature(secret: string, timestamp: number, body: string): Promise<string> {
  return toHex(await hmac(encoder.encode(secret), `${timestamp}.${body}`));
}

/** The key bytes of the Standard Webhooks scheme: the base64 after whsec_ (the whole string if no prefix). */
export function standardKey(secret: string): Uint8Array {
  return fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
}

/** Base64 HMAC-SHA256 of "<id>.<t>.<body>" keyed with the decoded secret (the webhook-signature v1). */
export async function standardSignature(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  return toBase64(await hmac(standardKey(secret), `${id}.${timestamp}.${body}`));
}

/** X-Service-Signature for every active secret: t=<t>,v1=<hex>[,v1=<hex>...]. */
export async function serviceSignatureHeader(secrets: readonly string[], timestamp: number, body: string): Promise<string> {
  const signatures = await Promise.all(secrets.map((secret) => serviceSignature(secret, timestamp, body)));
  return [`t=${timestamp}`, ...signatures.map((s) => `v1=${s}`)].join(',');
}

/** webhook-signature for every active secret: "v1,<base64>[ v1,<base64>...]". */
export async function standardSignatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): Promise<string> {
  const signatures = await Promise.all(secrets.map((secret) => standardSignature(secret, id, timestamp, body)));
  return signatures.map((s) => `v1,${s}`).join(' ');
}

export interface DeliveryHeaderInput {
  /** The endpoint's active secrets, newest first (two during a rotation's grace period). */
  secrets: readonly string[];
  body: string;
  eventType: string;
  /** New for every attempt. */
  attemptId: string;
  /** The same across retries and replays; also the Standard Webhooks webhook-id. */
  idempotencyKey: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
}

/** Every header of one attempt, signed fresh. */
export async function deliveryHeaders(input: DeliveryHeaderInput): Promise<Record<string, string>> {
  if (input.secrets.length === 0) throw new Error('deliveryHeaders: no active signing secret');
  const [service, standard] = await Promise.all([
    serviceSignatureHeader(input.secrets, input.timestamp, input.body),
    standardSignatureHeader(input.secrets, input.idempotencyKey, input.timestamp, input.body),
  ]);
  return {
    'content-type': 'application/json',
    'user-agent': 'Service-Webhooks/1.0',
    'x-service-signature': service,
    'x-service-event': input.eventType,
    'x-service-delivery-id': input.attemptId,
    'x-service-idempotency-key': input.idempotencyKey,
    'webhook-id': input.idempotencyKey,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': standard,
  };
}

/** Compares two strings in time independent of where they differ (lengths are not secret). */
export const timingSafeEqual = (a: string, b: string): boolean => bytesEqual(encoder.encode(a), encoder.encode(b));
