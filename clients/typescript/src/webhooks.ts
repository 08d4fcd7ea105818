// Verifying the API's webhook deliveries (docs/webhooks.md, "Verifying (receivers)"). Every delivery is
// signed twice with each active secret of the endpoint (two during a secret rotation's grace period):
// - Standard Webhooks (https://www.standardwebhooks.com): webhook-id, webhook-timestamp and
//   webhook-signature "v1,<base64 HMAC-SHA256 of '<webhook-id>.<timestamp>.<raw body>'>" keyed with
//   the base64-decoded part of the secret after whsec_; entries space-separated.
// - X-Service-Signature: "t=<timestamp>,v1=<hex HMAC-SHA256 of '<t>.<raw body>'>" keyed with the whole
//   secret string, as Stripe does.
// verifyWebhook checks the Standard Webhooks headers (the X-Service-Signature header when they are
// absent). The signatures themselves are ./webhook-signature.ts, the module the API signs with.
// WebCrypto only: Node 20+, Workers, Deno, Bun and browsers.
import type { webhooks } from './schema';
import { checkServiceSignature, checkStandardSignature, type SignatureCheckOptions } from './webhook-signature';

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

export type VerifyWebhookOptions = SignatureCheckOptions;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(',') : value;
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
  const id = header(headers, 'webhook-id');
  const signature = header(headers, 'webhook-signature');
  let refusal: string | null;
  if (id !== undefined || signature !== undefined) {
    refusal = await checkStandardSignature(rawBody, { id, timestamp: header(headers, 'webhook-timestamp'), signature }, secret, options);
  } else {
    const service = header(headers, 'x-service-signature');
    if (!service) throw new WebhookVerificationError('no signature headers');
    refusal = await checkServiceSignature(rawBody, service, secret, options);
  }
  if (refusal) throw new WebhookVerificationError(refusal);
  return JSON.parse(rawBody) as WebhookEvent;
}
