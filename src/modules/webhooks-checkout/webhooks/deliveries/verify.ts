import { serviceSignature, standardSignature, timingSafeEqual } from './signing';

/**
 * Verifies an X-Service-Signature header (t=<unix seconds>,v1=<hex>[,v1=...]) against the raw body
 * as received (bytes untouched, before any JSON parsing) and one of the endpoint's secrets. True when
 * the timestamp is within `toleranceSeconds` of `nowSeconds` and any v1 entry matches. Receivers
 * de-duplicate afterwards by X-Service-Idempotency-Key.
 */
export async function verifyWebhook(
  rawBody: string,
  header: string | null | undefined,
  secret: string,
  toleranceSeconds = 300,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  if (!header) return false;
  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    const name = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1') candidates.push(value);
  }
  if (timestamp === null || candidates.length === 0) return false;
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = await serviceSignature(secret, timestamp, rawBody);
  return candidates.some((candidate) => timingSafeEqual(candidate, expected));
}

/**
 * Verifies the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) the same
 * way the standardwebhooks libraries do.
 */
export async function verifyStandardWebhook(
  rawBody: string,
  headers: { id: string | null | undefined; timestamp: string | null | undefined; signature: string | null | undefined },
  secret: string,
  toleranceSeconds = 300,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  const t = Number(timestamp);
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = await standardSignature(secret, id, t, rawBody);
  return signature
    .split(' ')
    .map((entry) => entry.split(','))
    .some(([version, value]) => version === 'v1' && value !== undefined && timingSafeEqual(value, expected));
}
