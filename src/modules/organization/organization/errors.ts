// The organization area's error answers (docs/organization.md, "Errors"). Its own codes are in the
// platform's ErrorCode union (src/platform/http/errors.ts).
import { DomainProviderError } from '../../../platform/providers/domains';
import { ApiError, notFound, type ErrorCode, invalidField } from '../../../platform/http/errors';
import { SmsProviderError } from '../../../platform/providers/sms';

/** Seconds a caller should wait after a provider did not answer. */
export const PROVIDER_RETRY_AFTER_SECONDS = 5;

/** A 400 naming one body field, shaped like the validation errors (errors: [{ field, message }]). */
export const fieldError = invalidField;

const unavailable = (code: ErrorCode, message: string) =>
  new ApiError(503, code, message, { retryAfterSeconds: PROVIDER_RETRY_AFTER_SECONDS }, { 'Retry-After': String(PROVIDER_RETRY_AFTER_SECONDS) });

/**
 * A domain provider's refusal as the API answers it. `field` names the body field the name came from
 * (start routes), so an invalid name is a 400 like any other validation failure.
 */
export function domainProviderFailure(error: DomainProviderError, what: 'hostname' | 'domain', field?: string): ApiError {
  switch (error.kind) {
    case 'duplicate':
      return new ApiError(409, 'CONFLICT', `This ${what} is already registered by another brand`);
    case 'invalid':
      return field ? fieldError(field, `the provider refuses this ${what} (${error.message})`) : new ApiError(502, 'DOMAIN_PROVIDER_ERROR', error.message);
    case 'not_found':
      return new ApiError(502, 'DOMAIN_PROVIDER_ERROR', `The provider no longer knows this ${what}; remove it and start again (${error.message})`);
    case 'unavailable':
      // provider 'none': this deployment has no provider configured (production without its variables).
      return unavailable(
        'DOMAIN_PROVIDER_UNAVAILABLE',
        error.provider === 'none' ? error.message : `The ${what} provider did not answer; nothing was changed (${error.message})`,
      );
    default:
      return new ApiError(502, 'DOMAIN_PROVIDER_ERROR', `The ${what} provider refused the request; nothing was changed (${error.message})`);
  }
}

export function smsProviderFailure(error: SmsProviderError): ApiError {
  switch (error.kind) {
    case 'credentials_rejected':
      return new ApiError(409, 'SMS_CREDENTIALS_REJECTED', `The SMS provider refused the stored account SID and auth token; store the right ones with PUT /api/v1/organization/sms/twilio (${error.message})`);
    case 'unavailable':
      return unavailable('SMS_PROVIDER_UNAVAILABLE', `The SMS provider did not answer; nothing was changed (${error.message})`);
    default:
      return new ApiError(502, 'SMS_PROVIDER_ERROR', `The SMS provider refused the request; nothing was changed (${error.message})`);
  }
}

/**
 * viaDomainProvider for a call about the clinic's current record: a provider "not found" because a
 * concurrent remove took the record away answers the 404 of no current domain, not a provider error.
 */
export async function viaDomainProviderAbout<T>(
  what: 'hostname' | 'domain',
  stillCurrent: () => Promise<boolean>,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainProviderError && error.kind === 'not_found' && !(await stillCurrent())) {
      throw notFound(what === 'hostname' ? 'Custom domain' : 'Email domain');
    }
    if (error instanceof DomainProviderError) throw domainProviderFailure(error, what);
    throw error;
  }
}

/** Runs a provider call, turning its errors into API errors. */
export async function viaDomainProvider<T>(what: 'hostname' | 'domain', work: () => Promise<T>, field?: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainProviderError) throw domainProviderFailure(error, what, field);
    throw error;
  }
}

export async function viaSmsProvider<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SmsProviderError) throw smsProviderFailure(error);
    throw error;
  }
}
