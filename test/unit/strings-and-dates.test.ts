import { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { dateTime, MAX_DATE_TIME, MIN_DATE_TIME, parseDateTime } from '../../src/platform/values/dates';
import { findRefusedCharacter, safeString, text } from '../../src/platform/values/strings';

const issues = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues.map((i) => i.message) ?? [];

describe('safeString() and text()', () => {
  it('refuse NUL, every other C0 control, DEL, C1 controls and lone surrogates', () => {
    const refused = ['a\u0000b', '\u0001', 'a\u001fb', 'x\u007f', '\u0080', 'a\u009fb', '\ud800', 'a\udc00', 'a\udbff\ud7ff'];
    for (const value of refused) {
      expect(safeString().safeParse(value).success, JSON.stringify(value)).toBe(false);
      expect(text().safeParse(value).success, JSON.stringify(value)).toBe(false);
    }
    expect(issues(safeString(), 'ab\u0000')).toEqual(['must not contain control characters (U+0000 at index 2)']);
    expect(issues(safeString(), 'a\ud800')).toEqual(['must be valid Unicode text (lone surrogate U+D800 at index 1)']);
  });

  it('single-line refuses tab, LF and CR; multi-line text allows them', () => {
    for (const value of ['a\tb', 'a\nb', 'a\r\nb']) {
      expect(safeString().safeParse(value).success).toBe(false);
      expect(text().safeParse(value).success).toBe(true);
    }
  });

  it('accept ordinary text, including non-Latin scripts, emoji (surrogate pairs) and U+FFFF', () => {
    for (const value of [
      '',
      'Acme Clinic',
      'Zoë Ñuñez',
      '東京クリニック',
      'клиника',
      'ok 👍🏽',
      '\uffff',
      '\u00a0nbsp',
      '\u200bzero-width',
    ]) {
      expect(safeString().safeParse(value).success, JSON.stringify(value)).toBe(true);
    }
  });

  it('chain like z.string(): trim, min, max, email and openapi', () => {
    const name = safeString().trim().min(1).max(5).openapi({ example: 'x' });
    expect(name.parse('  abc  ')).toBe('abc');
    expect(name.safeParse('   ').success).toBe(false);
    expect(name.safeParse('abcdef').success).toBe(false);
    // The check sees the value as sent: trimming does not hide a control character at the edge.
    expect(name.safeParse('abc\u0000').success).toBe(false);
    expect(safeString().email().safeParse('a@b.test').success).toBe(true);
    expect(findRefusedCharacter('ok')).toBeNull();
    expect(findRefusedCharacter('a\tb', true)).toBeNull();
  });
});

describe('dateTime()', () => {
  const schema = dateTime();

  it('accepts ISO 8601 with Z or an offset and normalises to UTC', () => {
    expect(schema.parse('2030-01-31T09:30:00Z')).toBe('2030-01-31T09:30:00.000Z');
    expect(schema.parse('2030-01-31T09:30:00.250+05:30')).toBe('2030-01-31T04:00:00.250Z');
    expect(schema.parse('2030-01-31T09:30:00-15:59')).toBe('2030-02-01T01:29:00.000Z');
    expect(schema.parse('2030-01-31T09:30:00.123456789Z')).toBe('2030-01-31T09:30:00.123Z');
    expect(schema.parse(MAX_DATE_TIME)).toBe(MAX_DATE_TIME);
    expect(schema.parse('9999-12-31T23:59:59Z')).toBe('9999-12-31T23:59:59.000Z');
    expect(schema.parse(MIN_DATE_TIME)).toBe(MIN_DATE_TIME);
    expect(schema.parse('1970-01-01T05:00:00+05:00')).toBe(MIN_DATE_TIME);
  });

  it('refuses instants outside 1970–9999 after the offset is applied', () => {
    expect(issues(schema, '9999-12-31T23:59:59-00:01')).toEqual([`must be between ${MIN_DATE_TIME} and ${MAX_DATE_TIME}`]);
    expect(issues(schema, '1970-01-01T00:00:00+00:01')).toEqual([`must be between ${MIN_DATE_TIME} and ${MAX_DATE_TIME}`]);
    expect(schema.safeParse('1969-12-31T23:59:59Z').success).toBe(false);
    expect(schema.safeParse('0000-01-01T00:00:00Z').success).toBe(false);
    expect(schema.safeParse('0099-01-01T00:00:00Z').success).toBe(false);
  });

  it('refuses offsets PostgreSQL refuses (16 hours or more)', () => {
    expect(issues(schema, '9999-12-31T23:59:59-23:59')).toContain('must have a zone offset between -15:59 and +15:59');
    expect(schema.safeParse('2030-01-01T00:00:00+16:00').success).toBe(false);
    expect(schema.safeParse('2030-01-01T00:00:00+23:59').success).toBe(false);
  });

  it('refuses what is not a date-time with a zone', () => {
    for (const value of [
      'tomorrow',
      '2030-01-01',
      '2030-01-01T00:00:00',
      '2030-02-30T00:00:00Z',
      '2030-01-01T24:00:00Z',
      '2030-01-01T00:00:60Z',
      '2030-01-01T00:00Z',
      '+012030-01-01T00:00:00Z',
      '2030-01-01T00:00:00+0530',
      '2030-01-01 00:00:00Z',
      '2030-01-01T00:00:00\u0000Z',
      '',
    ]) {
      expect(schema.safeParse(value).success, value).toBe(false);
    }
  });

  it('chains nullable and optional', () => {
    const field = z.object({ at: dateTime().nullable().optional() });
    expect(field.parse({ at: null })).toEqual({ at: null });
    expect(field.parse({})).toEqual({});
    expect(field.parse({ at: '2030-01-01T00:00:00+01:00' })).toEqual({ at: '2029-12-31T23:00:00.000Z' });
  });

  it('parseDateTime says why', () => {
    expect(parseDateTime('2030-01-01T00:00:00Z')).toEqual({ date: new Date('2030-01-01T00:00:00Z') });
    expect(parseDateTime('nope')).toEqual({ problem: 'format' });
    expect(parseDateTime('2030-01-01T00:00:00+16:00')).toEqual({ problem: 'offset' });
    expect(parseDateTime('1900-01-01T00:00:00Z')).toEqual({ problem: 'range' });
  });
});
