import type { MiddlewareHandler } from 'hono';

/**
 * A deprecated operation's schedule (docs/api-conventions.md, "Deprecation policy"): from `deprecatedAt`
 * it answers as before with `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers on every response;
 * from `sunsetAt` it may be removed (it then answers 410 Gone, never something else).
 */
export interface DeprecationSchedule {
  deprecatedAt: string;
  sunsetAt: string;
}

/**
 * The legacy treatment operations (spec, "Treatments (legacy)"): deprecated on 2026-12-01, the first
 * day of the month after this notice; sunset a year later, 2027-12-01 (the policy's minimum notice for
 * an operation with a replacement is 12 months, so every brand's integration gets a full yearly cycle).
 */
export const LEGACY_TREATMENTS: DeprecationSchedule = {
  deprecatedAt: '2026-12-01T00:00:00Z',
  sunsetAt: '2027-12-01T00:00:00Z',
};

/** The fields a route declaration spreads in: OpenAPI's `deprecated` and the schedule (x-deprecation). */
export const deprecated = (schedule: DeprecationSchedule) => ({ deprecated: true as const, 'x-deprecation': schedule });

/** `Deprecation: @<unix seconds>` (an RFC 9651 Date, as RFC 9745 writes it). */
export const deprecationHeader = (schedule: DeprecationSchedule) => `@${Math.floor(Date.parse(schedule.deprecatedAt) / 1000)}`;
/** `Sunset: <IMF-fixdate>` (RFC 8594). */
export const sunsetHeader = (schedule: DeprecationSchedule) => new Date(schedule.sunsetAt).toUTCString();

/** Sets both headers on every answer of the operation, errors included. */
export function deprecationHeaders(schedule: DeprecationSchedule): MiddlewareHandler {
  const deprecation = deprecationHeader(schedule);
  const sunset = sunsetHeader(schedule);
  return async (c, next) => {
    await next();
    c.res.headers.set('Deprecation', deprecation);
    c.res.headers.set('Sunset', sunset);
  };
}
