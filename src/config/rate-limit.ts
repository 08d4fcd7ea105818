import type { Environment } from './environment';
import { ConfigError } from './errors';

export const MAX_RATE_LIMIT_MULTIPLIER = 100_000;

/**
 * RATE_LIMIT_MULTIPLIER (development and test only): every rate limit is multiplied by this whole
 * number, so the benchmark (`npm run bench`) measures what the limiter costs rather than its refusals;
 * the limits are still checked against the store on every request. Production refuses it.
 */
export function readRateLimitMultiplier(value: string | undefined, environment: Environment): number {
  if (value === undefined || value === '') return 1;
  if (environment === 'production') {
    throw new ConfigError('RATE_LIMIT_MULTIPLIER is a development setting (the benchmark raises the limits with it); unset it');
  }
  const multiplier = Number(value);
  if (!Number.isInteger(multiplier) || multiplier < 1 || multiplier > MAX_RATE_LIMIT_MULTIPLIER) {
    throw new ConfigError(`RATE_LIMIT_MULTIPLIER must be a whole number from 1 to ${MAX_RATE_LIMIT_MULTIPLIER}`);
  }
  return multiplier;
}
