// The platform's signed entry point into the Worker (docs/webhooks.md, "The platform's entry point"):
// POST /internal/platform/... applies a change of the lifecycle (a checkout completed, a platform event
// on an order, an intake moving on) for one clinic, so the events it records go out within the request
// (src/app.ts kicks delivery after the answer) instead of at the next cron minute. Not API operations:
// no API key, a signature instead, not in the OpenAPI document; present in every environment.
import type { Context } from 'hono';
import { type AppEnv, type HandlerContext, systemContext } from '../context';
import type { KeyRing } from '../crypto/secret-box';
import { hmacKeys } from '../crypto/secret-box';
import { ERROR_MESSAGES } from '../values/error-messages';
import { ApiError } from '../values/errors';
import { isUuid } from '../values/ids';

export const PLATFORM_REQUEST_PREFIX = '/internal/platform/';
export const PLATFORM_HEADERS = {
  clinic: 'x-platform-clinic-id',
  timestamp: 'x-platform-timestamp',
  signature: 'x-platform-signature',
} as const;
/** A signed request older (or further in the future) than this is refused: a captured request cannot be replayed later. */
export const PLATFORM_REQUEST_TOLERANCE_S = 300;

const encoder = new TextEncoder();

/** What the signature covers: every part that decides what the request does. */
const signedContent = (timestamp: string, method: string, path: string, clinicId: string, body: string) =>
  `${timestamp}.${method.toUpperCase()}.${path}.${clinicId}.${body}`;

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/**
 * The headers of a platform request: HMAC-SHA256 under the 'platform-request' key derived from the root
 * secret (current root), over `<unix seconds>.<METHOD>.<path>.<clinic id>.<raw body>`, as `v1=<base64>`.
 */
export async function signPlatformRequest(
  keys: KeyRing,
  request: { method: string; path: string; clinicId: string; body: string; now?: Date },
): Promise<Record<string, string>> {
  const timestamp = String(Math.floor((request.now ?? new Date()).getTime() / 1000));
  const [key] = await hmacKeys(keys, 'platform-request');
  const mac = new Uint8Array(
    await crypto.subtle.sign(
      'HMAC',
      key!,
      encoder.encode(signedContent(timestamp, request.method, request.path, request.clinicId, request.body)),
    ),
  );
  return {
    [PLATFORM_HEADERS.clinic]: request.clinicId,
    [PLATFORM_HEADERS.timestamp]: timestamp,
    [PLATFORM_HEADERS.signature]: `v1=${toBase64(mac)}`,
  };
}

function base64Bytes(value: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]{43}=$/.test(value)) return null;
  return Uint8Array.from(atob(value), (ch) => ch.charCodeAt(0));
}

const refuse = () => new ApiError(401, 'UNAUTHORIZED', 'Missing or invalid platform signature');

/**
 * Verifies the request's signature (current root's key, then the previous root's during a rotation;
 * constant-time through WebCrypto's verify) and its age, and answers the raw body and the handler
 * context of the platform acting for the signed clinic. 401 for anything missing, malformed, stale or
 * wrongly signed. The clinic is not looked up: a signature proves the platform sent it, and every
 * service answers 404 for ids that are not the clinic's.
 */
export async function verifyPlatformRequest(c: Context<AppEnv>): Promise<{ ctx: HandlerContext; body: string }> {
  const services = c.get('services');
  const clinicId = c.req.header(PLATFORM_HEADERS.clinic) ?? '';
  const timestamp = c.req.header(PLATFORM_HEADERS.timestamp) ?? '';
  const signature = /^v1=(\S+)$/.exec(c.req.header(PLATFORM_HEADERS.signature) ?? '')?.[1];
  const mac = signature ? base64Bytes(signature) : null;
  if (!mac || !isUuid(clinicId) || !/^\d{1,12}$/.test(timestamp)) throw refuse();
  const age = Math.abs(services.now().getTime() / 1000 - Number(timestamp));
  if (age > PLATFORM_REQUEST_TOLERANCE_S) throw refuse();
  const body = await c.req.text();
  const content = encoder.encode(signedContent(timestamp, c.req.method, c.req.path, clinicId, body));
  for (const key of await hmacKeys(services.config.secretKeys, 'platform-request')) {
    if (await crypto.subtle.verify('HMAC', key, mac, content)) {
      return { ctx: systemContext(services, clinicId, 'platform'), body };
    }
  }
  throw refuse();
}

/** The JSON body of a platform request; an empty body is `{}` when `optional`. 400 INVALID_JSON otherwise. */
export function platformRequestJson(body: string, options: { optional?: boolean } = {}): unknown {
  if (options.optional && body.trim() === '') return {};
  try {
    return JSON.parse(body);
  } catch {
    throw new ApiError(400, 'INVALID_JSON', ERROR_MESSAGES.INVALID_JSON);
  }
}
