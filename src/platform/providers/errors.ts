// What went wrong at an external provider: one error type for every provider failure. Adapters throw
// it and nothing else; it becomes an HTTP answer in one place (src/platform/http/provider-errors.ts).

/** The capability a failure belongs to; it decides the answer's code (PAYMENT_PROCESSOR_*, DOMAIN_PROVIDER_*, ...). */
export type ProviderCapability = 'payments' | 'custom_hostnames' | 'email_domains' | 'sms_numbers' | 'ai' | 'dns';

/**
 * - unavailable: no answer, a timeout, 429 or 5xx (or no provider configured): worth trying again later;
 * - refused: any other refusal (credentials, permissions, an answer that cannot be used, ...);
 * - duplicate: the hostname or domain is already registered (by another brand);
 * - invalid: the provider refuses the name itself (reserved, not a public domain, ...);
 * - not_found: the provider no longer knows the record (deleted outside the platform);
 * - credentials_rejected: the provider refused the clinic's own account SID and auth token (401/403);
 * - no_numbers: no toll-free number with SMS is available to buy right now.
 */
export type ProviderFailure = 'unavailable' | 'refused' | 'duplicate' | 'invalid' | 'not_found' | 'credentials_rejected' | 'no_numbers';

export class ProviderError extends Error {
  constructor(
    readonly capability: ProviderCapability,
    /** The adapter: stripe, cloudflare, resend, twilio, workers-ai, cloudflare-doh, development, or none (not configured). */
    readonly provider: string,
    readonly kind: ProviderFailure,
    /** What happened, for the answer and the log; never the request (it may carry credentials). */
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
