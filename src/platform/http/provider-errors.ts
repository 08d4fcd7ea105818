// Every provider failure (ProviderError) becomes an HTTP answer here, and only here (onError calls it).
// 503 with Retry-After when trying again may work; 502 when the provider refused; 409 for what the
// brand can change (a name another brand holds, credentials the SMS provider refused).
import { ProviderError } from '../providers/errors';
import { ERROR_MESSAGES } from '../values/error-messages';
import { ApiError, type ErrorCode } from '../values/errors';

/** The answer when a webhook URL's host could not be resolved (its OpenAPI example says the same). */
export { DNS_RESOLVER_UNAVAILABLE_MESSAGE } from '../values/error-messages';

/** Seconds a caller should wait after a provider did not answer (every *_UNAVAILABLE answer). */
export const PROVIDER_RETRY_AFTER_SECONDS = 5;

const retryLater = (code: ErrorCode, message: string) =>
  new ApiError(
    503,
    code,
    message,
    { retryAfterSeconds: PROVIDER_RETRY_AFTER_SECONDS },
    { 'Retry-After': String(PROVIDER_RETRY_AFTER_SECONDS) },
  );

/** A custom-hostname or email-domain failure; `what` names the record in the message. */
function domainFailure(error: ProviderError, what: 'hostname' | 'domain'): ApiError {
  switch (error.kind) {
    case 'duplicate':
      return new ApiError(409, 'CONFLICT', `This ${what} is already registered by another brand`);
    case 'invalid':
      return new ApiError(502, 'DOMAIN_PROVIDER_ERROR', error.message);
    case 'not_found':
      return new ApiError(
        502,
        'DOMAIN_PROVIDER_ERROR',
        `The provider no longer knows this ${what}; remove it and start again (${error.message})`,
      );
    case 'unavailable':
      // provider 'none': this deployment has no provider configured (production without its variables).
      return retryLater(
        'DOMAIN_PROVIDER_UNAVAILABLE',
        error.provider === 'none' ? error.message : `The ${what} provider did not answer; nothing was changed (${error.message})`,
      );
    default:
      return new ApiError(502, 'DOMAIN_PROVIDER_ERROR', `The ${what} provider refused the request; nothing was changed (${error.message})`);
  }
}

function smsFailure(error: ProviderError): ApiError {
  switch (error.kind) {
    case 'credentials_rejected':
      return new ApiError(
        409,
        'SMS_CREDENTIALS_REJECTED',
        `The SMS provider refused the stored account SID and auth token; store the right ones with PUT /api/v1/organization/sms/twilio (${error.message})`,
      );
    case 'unavailable':
      return retryLater('SMS_PROVIDER_UNAVAILABLE', `The SMS provider did not answer; nothing was changed (${error.message})`);
    default:
      return new ApiError(502, 'SMS_PROVIDER_ERROR', `The SMS provider refused the request; nothing was changed (${error.message})`);
  }
}

/** The API's answer to a provider failure. */
export function providerFailure(error: ProviderError): ApiError {
  switch (error.capability) {
    case 'payments':
      return error.kind === 'unavailable'
        ? retryLater(
            'PAYMENT_PROCESSOR_UNAVAILABLE',
            `The payment processor is unavailable (${error.message}); retry in ${PROVIDER_RETRY_AFTER_SECONDS} seconds`,
          )
        : new ApiError(502, 'PAYMENT_PROCESSOR_ERROR', ERROR_MESSAGES.PAYMENT_PROCESSOR_ERROR(error.message));
    case 'custom_hostnames':
      return domainFailure(error, 'hostname');
    case 'email_domains':
      return domainFailure(error, 'domain');
    case 'sms_numbers':
      return smsFailure(error);
    case 'ai':
      return new ApiError(502, 'COPILOT_PROVIDER_ERROR', `The copilot's model gave no usable answer (${error.message}); try again`);
    case 'dns':
      // A name that cannot be checked is not accepted: the caller is asked to come back, never let through.
      return retryLater('DNS_RESOLVER_UNAVAILABLE', ERROR_MESSAGES.DNS_RESOLVER_UNAVAILABLE(error.message));
  }
}

export { ProviderError };
