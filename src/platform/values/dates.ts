import { z } from '@hono/zod-openapi';

/**
 * Date-times the API accepts, in one place.
 *
 * `dateTime()`: an ISO 8601 / RFC 3339 date-time with seconds and a zone, `Z` or `±HH:MM`
 * (`2030-01-31T09:30:00Z`, `2030-01-31T09:30:00.250+05:30`), a real calendar date, an offset of at most
 * ±15:59 (PostgreSQL's limit), and — after the offset is applied — an instant from
 * 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z. Anything else is a 400 naming the field. The
 * parsed value is normalised to UTC with milliseconds (`2030-01-31T04:00:00.250Z`), so what a handler
 * gets can be stored or compared as is; sub-millisecond digits are dropped.
 */
export const MIN_DATE_TIME = '1970-01-01T00:00:00.000Z';
export const MAX_DATE_TIME = '9999-12-31T23:59:59.999Z';
/** PostgreSQL refuses zone offsets of 16 hours or more (SQLSTATE 22009). */
export const MAX_OFFSET_MINUTES = 15 * 60 + 59;

const MIN_MS = Date.parse(MIN_DATE_TIME);
const MAX_MS = Date.parse(MAX_DATE_TIME);
const SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/;

export type DateTimeProblem = 'format' | 'offset' | 'range';

/** Parses an accepted date-time; `problem` says why one is refused. */
export function parseDateTime(value: string): { date: Date } | { problem: DateTimeProblem } {
  const m = SHAPE.exec(value);
  if (!m) return { problem: 'format' };
  const [, y, mo, d, h, mi, s, fraction, zone, sign, oh, om] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const ms = fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const check = new Date(local);
  // Date.UTC maps years 0–99 to 1900–1999; such years are outside the range anyway.
  if (
    year < 100 ||
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return year < 100 ? { problem: 'range' } : { problem: 'format' };
  }
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const offsetHours = Number(oh);
    const offsetMins = Number(om);
    if (offsetMins > 59) return { problem: 'format' };
    offsetMinutes = (offsetHours * 60 + offsetMins) * (sign === '-' ? -1 : 1);
    if (Math.abs(offsetMinutes) > MAX_OFFSET_MINUTES) return { problem: 'offset' };
  }
  const instant = local - offsetMinutes * 60_000;
  if (instant < MIN_MS || instant > MAX_MS) return { problem: 'range' };
  return { date: new Date(instant) };
}

const MESSAGES: Record<Exclude<DateTimeProblem, 'format'>, string> = {
  offset: 'must have a zone offset between -15:59 and +15:59',
  range: `must be between ${MIN_DATE_TIME} and ${MAX_DATE_TIME}`,
};

/** An ISO 8601 date-time with a zone (see above), normalised to UTC; .nullable(), .optional(), .openapi() chain. */
export const dateTime = () =>
  z.iso
    .datetime({ offset: true })
    .superRefine((value, ctx) => {
      const parsed = parseDateTime(value);
      // A value of the wrong shape is already reported by the format check.
      if ('problem' in parsed && parsed.problem !== 'format') ctx.addIssue({ code: 'custom', message: MESSAGES[parsed.problem] });
    })
    .overwrite((value) => {
      const parsed = parseDateTime(value);
      return 'date' in parsed ? parsed.date.toISOString() : value;
    });

/** A timestamp as the API answers it: ISO 8601 UTC, or null. */
export const isoOrNull = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
