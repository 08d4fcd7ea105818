// Webhook signatures, written once for both sides: the API signs every delivery with this module
// (src/modules/webhooks-checkout/webhooks/deliveries/delivery-headers.ts imports it) and receivers
// verify with it (./webhooks.ts). Two schemes on every delivery, one entry per active secret (two
// during a secret rotation's grace period):
// - X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> keyed with the
//   whole secret string (whsec_ prefix included), as Stripe does.
// - Standard Webhooks (https://www.standardwebhooks.com): webhook-id, webhook-timestamp and
//   webhook-signature "v1,<base64 HMAC-SHA256 of "<id>.<t>.<raw body>">" keyed with the base64-decoded
//   part after whsec_; entries space-separated.
// WebCrypto only and no imports, so the same code runs in the Worker (workerd), Node 20+, Deno, Bun and
// browsers, and the Worker bundles nothing else of the client.

export const SECRET_PREFIX = 'whsec_';

const encoder = new TextEncoder();

const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const fromBase64 = (text: string): Uint8Array => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

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

/** Compares two strings in time independent of where they differ (lengths are not secret). */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** Why a delivery is refused; null when it verifies. */
export type SignatureRefusal =
  | 'webhook-id and webhook-signature go together'
  | 'missing or malformed timestamp'
  | 'timestamp outside the tolerance'
  | 'no matching signature';

export interface SignatureCheckOptions {
  /** Seconds a delivery's timestamp may differ from now (replayed captures are refused): 300 by default. */
  toleranceSeconds?: number;
  /** Unix seconds taken as now (tests). */
  nowSeconds?: number;
}

function timestampRefusal(value: string | null | undefined, options: SignatureCheckOptions): SignatureRefusal | number {
  if (!value || !/^\d{1,12}$/.test(value)) return 'missing or malformed timestamp';
  const t = Number(value);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  return Math.abs(now - t) > (options.toleranceSeconds ?? 300) ? 'timestamp outside the tolerance' : t;
}

/**
 * Checks an X-Service-Signature header (t=<unix seconds>,v1=<hex>[,v1=...]) against the raw body as
 * received (bytes untouched, before any JSON parsing) and one of the endpoint's secrets: the timestamp
 * within the tolerance and any v1 entry matching.
 */
export async function checkServiceSignature(
  rawBody: string,
  header: string,
  secret: string,
  options: SignatureCheckOptions = {},
): Promise<SignatureRefusal | null> {
  let timestamp: string | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    const name = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    if (name === 't') timestamp ??= value;
    else if (name === 'v1') candidates.push(value);
  }
  const t = timestampRefusal(timestamp, options);
  if (typeof t !== 'number') return t;
  const expected = await serviceSignature(secret, t, rawBody);
  return candidates.some((candidate) => timingSafeEqual(candidate, expected)) ? null : 'no matching signature';
}

/** Checks the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) as the standardwebhooks libraries do. */
export async function checkStandardSignature(
  rawBody: string,
  headers: { id: string | null | undefined; timestamp: string | null | undefined; signature: string | null | undefined },
  secret: string,
  options: SignatureCheckOptions = {},
): Promise<SignatureRefusal | null> {
  const { id, signature } = headers;
  if (!id || !signature) return 'webhook-id and webhook-signature go together';
  const t = timestampRefusal(headers.timestamp, options);
  if (typeof t !== 'number') return t;
  const expected = await standardSignature(secret, id, t, rawBody);
  const matches = signature
    .split(' ')
    .map((entry) => entry.split(','))
    .some(([version, value]) => version === 'v1' && value !== undefined && timingSafeEqual(value, expected));
  return matches ? null : 'no matching signature';
}

/** checkServiceSignature as a yes or no (false for an absent header). */
export async function verifyServiceSignature(
  rawBody: string,
  header: string | null | undefined,
  secret: string,
  toleranceSeconds = 300,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  return !!header && (await checkServiceSignature(rawBody, header, secret, { toleranceSeconds, nowSeconds })) === null;
}

/** checkStandardSignature as a yes or no. */
export async function verifyStandardSignature(
  rawBody: string,
  headers: { id: string | null | undefined; timestamp: string | null | undefined; signature: string | null | undefined },
  secret: string,
  toleranceSeconds = 300,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  return (await checkStandardSignature(rawBody, headers, secret, { toleranceSeconds, nowSeconds })) === null;
}
