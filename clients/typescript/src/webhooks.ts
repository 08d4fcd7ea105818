// Verifying the API's webhook deliveries (docs/webhooks.md, "Verifying (receivers)"). Every delivery is
// signed twice with each active secret of the endpoint (two during a secret rotation's grace period):
// - Standard Webhooks (https://www.standardwebhooks.com): webhook-id, webhook-timestamp and
//   webhook-signature "v1,<base64 HMAC-SHA256 of '<webhook-id>.<timestamp>.<raw body>'>" keyed with
//   the base64-decoded part of the secret after whsec_; entries space-separated.
// - X-Service-Signature: "t=<timestamp>,v1=<hex HMAC-SHA256 of '<t>.<raw body>'>" keyed with the whole
//   secret string, as Stripe does.
// verifyWebhook checks the Standard Webhooks headers (the X-Service-Signature header when they are
// absent). WebCrypto only: Node 20+, Workers, Deno, Bun and browsers.
import type { webhooks } from './schema';

export type WebhookEventName = keyof webhooks;

/** The body of one delivery, typed by its `type` (the event name). */
export type WebhookEvent = {
  [Name in WebhookEventName]: webhooks[Name] extends { post: { requestBody?: { content: { 'application/json': infer Body } } } }
    ? Body
    : never;
}[WebhookEventName];

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Seconds a delivery's timestamp may differ from now (replayed captures are refused): 300 by default. */
  toleranceSeconds?: number;
  /** Unix seconds taken as now (tests). */
  nowSeconds?: number;
}

const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(',') : value;
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

async function hmac(key: Uint8Array, message: string): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, encoder.encode(message)));
}

/** Compares in time independent of where the strings differ (lengths are not secret). */
function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

function timestampOf(value: string | undefined, now: number, tolerance: number): number {
  if (!value || !/^\d{1,12}$/.test(value)) throw new WebhookVerificationError('missing or malformed timestamp');
  const t = Number(value);
  if (Math.abs(now - t) > tolerance) throw new WebhookVerificationError('timestamp outside the tolerance');
  return t;
}

/**
 * Checks that `rawBody` (the request body exactly as received, before any JSON parsing) was signed with
 * `secret` (the endpoint's whsec_... secret) and is recent, and returns the parsed event. Throws
 * WebhookVerificationError otherwise. De-duplicate afterwards by the webhook-id header: retries and
 * replays of an event carry the same one.
 */
export async function verifyWebhook(
  rawBody: string,
  headers: HeaderSource,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const id = header(headers, 'webhook-id');
  const signatures = header(headers, 'webhook-signature');
  if (id !== undefined || signatures !== undefined) {
    if (!id || !signatures) throw new WebhookVerificationError('webhook-id and webhook-signature go together');
    const t = timestampOf(header(headers, 'webhook-timestamp'), now, tolerance);
    const key = fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
    const expected = toBase64(await hmac(key, `${id}.${t}.${rawBody}`));
    const matches = signatures
      .split(' ')
      .map((entry) => entry.split(','))
      .some(([version, value]) => version === 'v1' && value !== undefined && equalInConstantTime(value, expected));
    if (!matches) throw new WebhookVerificationError('no matching signature');
  } else {
    const service = header(headers, 'x-service-signature');
    if (!service) throw new WebhookVerificationError('no signature headers');
    const parts = service.split(',').map((part) => {
      const index = part.indexOf('=');
      return index < 0 ? ['', ''] : [part.slice(0, index).trim(), part.slice(index + 1).trim()];
    });
    const t = timestampOf(parts.find(([name]) => name === 't')?.[1], now, tolerance);
    const expected = toHex(await hmac(encoder.encode(secret), `${t}.${rawBody}`));
    if (!parts.some(([name, value]) => name === 'v1' && equalInConstantTime(value ?? '', expected))) {
      throw new WebhookVerificationError('no matching signature');
    }
  }
  return JSON.parse(rawBody) as WebhookEvent;
}
