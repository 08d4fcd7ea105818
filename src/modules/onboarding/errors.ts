import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError, type ErrorCode } from '../../platform/http/errors';

/** Codes this area adds (docs/onboarding.md, "Errors"); listed in ErrorCode (src/platform/http/errors.ts). */
export type OnboardingErrorCode = Extract<ErrorCode,
  | 'WRONG_ONBOARDING_STEP'
  | 'NAME_CHANGE_ALREADY_USED'
  | 'IDENTITY_ALREADY_VERIFIED'
  | 'NAME_UNCHANGED'
  | 'SIGNATURE_NAME_MISMATCH'
  | 'SIGNER_MISSING'
  | 'PLAN_INVITE_ONLY'>;

export const onboardingError = (status: ContentfulStatusCode, code: OnboardingErrorCode, message: string) =>
  new ApiError(status, code, message);
