import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ERROR_MESSAGES } from './error-messages';

/** Machine codes the API answers with; later areas add theirs here so the set stays documented. */
export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'VALIDATION_ERROR'
  | 'INVALID_JSON'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'PAYLOAD_TOO_LARGE'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'RATE_LIMIT_EXCEEDED'
  | 'INSUFFICIENT_SCOPE'
  | 'KEY_KIND_NOT_ALLOWED'
  | 'SANDBOX_NOT_ALLOWED'
  | 'AFFILIATES_TIER_REQUIRED'
  | 'CRM_TIER_REQUIRED'
  | 'ACTIVE_KEY_LIMIT_REACHED'
  | 'WINDDOWN_CONSENT_REQUIRED'
  | 'SERVICE_UNAVAILABLE'
  | 'CLIENT_IP_REQUIRED'
  | 'INTERNAL_ERROR'
  | 'PLAN_LIMIT_REACHED'
  | 'PLAN_PRICE_CAP_EXCEEDED'
  | 'PAYMENT_PROCESSOR_ERROR'
  | 'PAYMENT_PROCESSOR_UNAVAILABLE'
  | 'COPILOT_UNAVAILABLE'
  | 'COPILOT_PROVIDER_ERROR'
  | 'INSUFFICIENT_BALANCE'
  | 'REFUND_WINDOW_CLOSED'
  | 'ALREADY_REFUNDED'
  | 'ORDER_NOT_PAID'
  | 'REFUND_REQUEST_ALREADY_DECIDED'
  | 'PAYOUT_ACCOUNT_NOT_CONNECTED'
  | 'ILLEGAL_TRANSITION'
  | 'WEBHOOK_ENDPOINT_LIMIT_REACHED'
  | 'DNS_RESOLVER_UNAVAILABLE'
  | 'SANDBOX_KEY_REQUIRED'
  // Idempotent requests (docs/api-conventions.md)
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_KEY_IN_USE'
  // Billing (docs/billing.md)
  | 'PLAN_INVITE_ONLY'
  | 'ALREADY_ON_PLAN'
  | 'SUBSCRIPTION_SYNC_REQUIRED'
  // Onboarding (docs/onboarding.md)
  | 'WRONG_ONBOARDING_STEP'
  | 'NAME_CHANGE_ALREADY_USED'
  | 'IDENTITY_ALREADY_VERIFIED'
  | 'NAME_UNCHANGED'
  | 'SIGNATURE_NAME_MISMATCH'
  | 'SIGNER_MISSING'
  // Organization (docs/organization.md)
  | 'CUSTOM_DOMAIN_EXISTS'
  | 'CUSTOM_DOMAIN_NOT_VERIFIED'
  | 'EMAIL_DOMAIN_EXISTS'
  | 'SMS_NOT_CONFIGURED'
  | 'SMS_NUMBER_ACTIVE'
  | 'SMS_NUMBER_NOT_ACTIVE'
  | 'SMS_CREDENTIALS_REJECTED'
  | 'SMS_PROVIDER_ERROR'
  | 'SMS_PROVIDER_UNAVAILABLE'
  | 'DOMAIN_PROVIDER_ERROR'
  | 'DOMAIN_PROVIDER_UNAVAILABLE';

/** The one error type handlers throw; app.onError renders it as the error envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    message: string,
    /** Extra top-level body fields, e.g. retryAfterSeconds, or data for WINDDOWN_CONSENT_REQUIRED. */
    readonly extra?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /**
   * Set by keepingWrites: the writes the request made before this refusal stand. The request's
   * transaction (an Idempotency-Key's, or an audited write's) otherwise rolls a thrown refusal's writes back.
   */
  keepsWrites = false;
}

/**
 * A refusal that follows a write which must stand: the request found a state and recorded it (an
 * invitation past its expiry marked expired, a domain that stopped validating back to pending), then
 * refuses. Its transaction commits instead of rolling back; the refusal is still not audited as a change.
 */
export function keepingWrites(error: ApiError): ApiError {
  error.keepsWrites = true;
  return error;
}

export const unauthorized = (message: string = ERROR_MESSAGES.UNAUTHORIZED.apiKey) => new ApiError(401, 'UNAUTHORIZED', message);
export const forbidden = (code: ErrorCode, message: string) => new ApiError(403, code, message);
/** Same body for unknown, malformed and other-clinic ids, so none can be told apart. */
export const notFound = (resource = 'Resource') => new ApiError(404, 'NOT_FOUND', `${resource} not found`);
export const badRequest = (message: string) => new ApiError(400, 'VALIDATION_ERROR', message);

/** One field's problem in a 400: `{ field: "body.name", message: "Required" }`. */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * 400 VALIDATION_ERROR naming each field, exactly as schema failures are rendered ("Invalid body:
 * body.name: Required"), for rules a schema cannot check (foreign ids, fields that depend on each other).
 */
export const invalidFields = (errors: FieldProblem[], where = 'body'): ApiError =>
  new ApiError(400, 'VALIDATION_ERROR', `Invalid ${where}: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, { errors });

/** invalidFields for one field. */
export const invalidField = (field: string, message: string): ApiError => invalidFields([{ field, message }]);
export const conflict = (code: ErrorCode, message: string, extra?: Record<string, unknown>) => new ApiError(409, code, message, extra);
