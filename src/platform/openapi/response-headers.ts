import { QSTASH_CALLBACK_PATH } from '../../config';

type HeaderRef = { $ref: string };
interface HeaderResponse {
  headers?: Record<string, unknown>;
  content?: Record<string, { example?: unknown }>;
}
export interface HeaderDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, HeaderResponse> } | unknown>>;
  components?: Record<string, unknown>;
}

const integer = { type: 'integer' as const, minimum: 0 };

/** The headers the API sends, declared once (components.headers) and referenced by each response that carries them. */
export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description:
      "The request's id: the client's own X-Request-Id when it sent a valid one (1-128 visible ASCII characters), else a new UUID. " +
      'Every error body carries it as requestId; GET /api/v1/request-logs/{requestId} finds the call.',
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
} as const;

const RATE_LIMIT = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
const ref = (name: string): HeaderRef => ({ $ref: `#/components/headers/${name}` });

/**
 * Declares on every response the headers it is sent with: X-Request-Id on all of them; the RateLimit-*
 * headers on every operation that passes a rate limit (all but the QStash callback, which its signature
 * authenticates); Retry-After on 429 and on a 503 that says when to retry (its example carries
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
      for (const [status, response] of Object.entries(responses)) {
        const headers: Record<string, unknown> = { 'X-Request-Id': ref('X-Request-Id') };
        if (limited) for (const name of RATE_LIMIT) headers[name] = ref(name);
        if ((limited && status === '429') || (status === '503' && retryable(response))) headers['Retry-After'] = ref('Retry-After');
        response.headers = { ...headers, ...response.headers };
      }
    }
  }
}

const retryable = (response: HeaderResponse) =>
  Object.values(response.content ?? {}).some(
    (media) => typeof media.example === 'object' && media.example !== null && 'retryAfterSeconds' in media.example,
  );
