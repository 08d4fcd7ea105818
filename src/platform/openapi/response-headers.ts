import { QSTASH_CALLBACK_PATH } from '../../config';
import { deprecationHeader, LEGACY_TREATMENTS, sunsetHeader } from '../http/deprecation';

type HeaderRef = { $ref: string };
interface HeaderResponse {
  headers?: Record<string, unknown>;
  content?: Record<string, { example?: unknown }>;
}
export interface HeaderDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, HeaderResponse> } | unknown>>;
  components?: Record<string, unknown>;
}

const integer = { type: 'integer' as const, format: 'int32', minimum: 0 };

/** The headers the API sends, declared once (components.headers) and referenced by each response that carries them. */
export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description:
      "The request's id, always the API's own (a UUID). A client's own X-Request-Id (1-128 visible ASCII characters) is kept as data " +
      'in the request log (clientRequestId), not echoed. Every error body carries the id as requestId; GET /api/v1/request-logs/{requestId} finds the call by either.',
    schema: { type: 'string' as const, minLength: 1, maxLength: 128 },
  },
  'RateLimit-Limit': { description: 'Requests allowed in the window of the tightest limit that applies.', schema: integer },
  'RateLimit-Remaining': {
    description: 'Requests left in that window (absent when the rate-limit store did not answer).',
    schema: integer,
  },
  'RateLimit-Reset': { description: 'Seconds until that window resets (absent when the store did not answer).', schema: integer },
  'RateLimit-Policy': { description: 'Every limit checked, as `limit;w=seconds`, comma-separated.', schema: { type: 'string' as const } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: integer },
  Deprecation: {
    description:
      'On a deprecated operation (deprecated: true): when it was deprecated, as `@<unix seconds>` (RFC 9745). docs/api-conventions.md, "Deprecation policy".',
    schema: { type: 'string' as const, maxLength: 24, example: deprecationHeader(LEGACY_TREATMENTS) },
  },
  Sunset: {
    description: 'On a deprecated operation: the date from which it may be removed (RFC 8594), an HTTP date. Afterwards it answers 410.',
    schema: { type: 'string' as const, maxLength: 40, example: sunsetHeader(LEGACY_TREATMENTS) },
  },
} as const;

const RATE_LIMIT = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
const ref = (name: string): HeaderRef => ({ $ref: `#/components/headers/${name}` });

/**
 * Declares on every response the headers it is sent with: X-Request-Id on all of them; the RateLimit-*
 * headers on every operation that passes a rate limit (all but the QStash callback, which its signature
 * authenticates); Deprecation and Sunset on every response of a deprecated operation but 401 and 429; Retry-After on 429 and on a 503 that says when to retry (its example carries
 * retryAfterSeconds, composed before this runs). A response's own headers (Cache-Control of a secret) stay.
 */
export function withResponseHeaders(document: HeaderDocument): void {
  document.components ??= {};
  const components = document.components;
  components.headers = { ...(components.headers as object | undefined), ...RESPONSE_HEADERS };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const limited = path !== QSTASH_CALLBACK_PATH;
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method) || !operation || typeof operation !== 'object') continue;
      const responses = (operation as { responses?: Record<string, HeaderResponse> }).responses ?? {};
      const deprecated = (operation as { deprecated?: boolean }).deprecated === true;
      for (const [status, response] of Object.entries(responses)) {
        const headers: Record<string, unknown> = { 'X-Request-Id': ref('X-Request-Id') };
        if (limited) for (const name of RATE_LIMIT) headers[name] = ref(name);
        if ((limited && status === '429') || (status === '503' && retryable(response))) headers['Retry-After'] = ref('Retry-After');
        // Not on 401 and 429: the key check and the rate limit answer before the operation is known.
        if (deprecated && status !== '401' && status !== '429')
          Object.assign(headers, { Deprecation: ref('Deprecation'), Sunset: ref('Sunset') });
        response.headers = { ...headers, ...response.headers };
      }
    }
  }
}

const retryable = (response: HeaderResponse) =>
  Object.values(response.content ?? {}).some(
    (media) => typeof media.example === 'object' && media.example !== null && 'retryAfterSeconds' in media.example,
  );
