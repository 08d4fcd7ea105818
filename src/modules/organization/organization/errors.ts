// The organization area's own answers to provider failures (docs/organization.md, "Errors"): a name the
// provider refuses at a start route is a 400 naming the body field, and a record a concurrent remove
// took away is a 404. Every other provider failure is answered once, by src/platform/http/provider-errors.ts.

import { ProviderError } from '../../../platform/providers/errors';
import { invalidField, notFound } from '../../../platform/values/errors';

/** A 400 naming one body field, shaped like the validation errors (errors: [{ field, message }]). */
export const fieldError = invalidField;

/** A provider call at a start route: a name the provider refuses is a 400 naming `field`, like any other validation failure. */
export async function viaDomainProvider<T>(what: 'hostname' | 'domain', work: () => Promise<T>, field: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProviderError && error.kind === 'invalid')
      throw fieldError(field, `the provider refuses this ${what} (${error.message})`);
    throw error;
  }
}

/**
 * A provider call about the clinic's current record: a provider "not found" because a concurrent remove
 * took the record away answers the 404 of no current domain, not a provider error.
 */
export async function viaDomainProviderAbout<T>(
  what: 'hostname' | 'domain',
  stillCurrent: () => Promise<boolean>,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProviderError && error.kind === 'not_found' && !(await stillCurrent())) {
      throw notFound(what === 'hostname' ? 'Custom domain' : 'Email domain');
    }
    throw error;
  }
}
