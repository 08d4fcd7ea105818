// The CSV writer every export must use (src/platform/http/csv.ts): formula-looking cells are
// neutralised with a leading single quote (OWASP), and the result is RFC 4180 that papaparse reads back.
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { csvField, neutraliseCsvCell, toCsv } from '../../src/platform/http/csv';

describe('neutraliseCsvCell', () => {
  it('prefixes a single quote to every cell starting with = + - @ tab or carriage return', () => {
    for (const value of ['=1+1', '+1 555 0100', '-2+3', '@SUM(A1:A2)', '\t=1+1', '\r=1+1', '=HYPERLINK("https://evil.example","x")']) {
      expect(neutraliseCsvCell(value), JSON.stringify(value)).toBe(`'${value}`);
    }
  });

  it('leaves every other cell as written', () => {
    for (const value of ['', 'Jane', ' =1+1', 'a=b', "'already quoted", 'jane@example.com', '5-3', '\n=1']) {
      expect(neutraliseCsvCell(value), JSON.stringify(value)).toBe(value);
    }
  });
});

describe('csvField and toCsv', () => {
  it('quotes fields with commas, quotes and line breaks after neutralising; numbers, booleans and nulls as values', () => {
    expect(csvField('=cmd|" /C calc"!A0')).toBe(`"'=cmd|"" /C calc""!A0"`);
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(-5)).toBe('-5');
    expect(csvField(false)).toBe('false');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });

  it('quotes fields that start or end with a space (papaparse keeps them from being trimmed)', () => {
    expect(csvField(' a')).toBe('" a"');
    expect(csvField('a ')).toBe('"a "');
    expect(Papa.parse<string[]>(toCsv(['x'], [[' a ']]).slice(0, -2), { newline: '\r\n' }).data).toEqual([['x'], [' a ']]);
  });

  it('writes RFC 4180 that a CSV reader reads back, with the formulas neutralised', () => {
    const rows = [
      ['=HYPERLINK("https://evil.example","Click")', 'Doe, Jr.', 'jane@example.com', '+15550100000'],
      ['@SUM(1+1)', 'say "hi"', 'line\r\nbreak', -12.5],
    ];
    const csv = toCsv(['firstName', 'lastName', 'email', 'phone'], rows);
    expect(csv.endsWith('\r\n')).toBe(true);
    const parsed = Papa.parse<string[]>(csv.slice(0, -2), { newline: '\r\n' }).data;
    expect(parsed).toEqual([
      ['firstName', 'lastName', 'email', 'phone'],
      [`'=HYPERLINK("https://evil.example","Click")`, 'Doe, Jr.', 'jane@example.com', "'+15550100000"],
      ["'@SUM(1+1)", 'say "hi"', 'line\r\nbreak', '-12.5'],
    ]);
  });
});
