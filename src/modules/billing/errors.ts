import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError, type ErrorCode } from '../../platform/http/errors';

/** Codes this area adds (docs/billing.md, "Errors"); listed in ErrorCode (src/platform/http/errors.ts). */
export type BillingErrorCode = Extract<ErrorCode, 'PLAN_INVITE_ONLY' | 'ALREADY_ON_PLAN' | 'SUBSCRIPTION_SYNC_REQUIRED'>;

export const billingError = (status: ContentfulStatusCode, code: BillingErrorCode, message: string) =>
  new ApiError(status, code, message);
