// The CSV writer every export must use (src/platform/http/csv.ts): formula-looking cells are
// neutralised with a single quote (OWASP), at the start of a cell and after every character a
// spreadsheet may split a row at (`;` in locales with a decimal comma, tab, line breaks); every text cell
// is quoted; the result is RFC 4180 that papaparse reads back.
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { csvField, neutraliseCsvCell, toCsv } from '../../src/platform/http/csv';

/** The issue 37 review's User-Agent: formula cells where `;` is the list separator. */
const REVIEW_USER_AGENT = 'Mozilla/5.0;=1+1;@SUM(A1:A9)';

/**
 * The cells a spreadsheet that splits rows at `separator` and ignores our quoting would make of a CSV
 * text (the worst reader): each cell as it would start, leading spaces and quotes skipped.
 */
const cellsSplitAt = (csv: string, separator: RegExp) => csv.split(/\r\n|\n|\r/).flatMap((line) => line.split(separator));
const runsAsFormula = (cell: string) => /^[ "]*[=+\-@]/.test(cell);

describe('neutraliseCsvCell', () => {
  it('prefixes a single quote to every cell starting with = + - @ (after spaces or quotes), tab or carriage return', () => {
    for (const value of ['=1+1', '+1 555 0100', '-2+3', '@SUM(A1:A2)', ' =1+1', '"=1+1"', '=HYPERLINK("https://evil.example","x")']) {
      expect(neutraliseCsvCell(value), JSON.stringify(value)).toBe(`'${value}`);
    }
    expect(neutraliseCsvCell('\tx')).toBe("'\tx");
    expect(neutraliseCsvCell('\rx')).toBe("'\rx");
  });

  it('quotes every formula character after a ; a tab or a line break, where another reader starts a cell', () => {
    expect(neutraliseCsvCell(REVIEW_USER_AGENT)).toBe("Mozilla/5.0;'=1+1;'@SUM(A1:A9)");
    expect(neutraliseCsvCell('a; =1')).toBe("a; '=1");
    expect(neutraliseCsvCell('a;"-1"')).toBe(`a;"'-1"`);
    expect(neutraliseCsvCell('a\t+1')).toBe("a\t'+1");
    expect(neutraliseCsvCell('a\n=1')).toBe("a\n'=1");
    expect(neutraliseCsvCell('\t=1+1')).toBe("'\t'=1+1");
  });

  it('leaves every other cell as written', () => {
    for (const value of ['', 'Jane', 'a=b', "'already quoted", 'jane@example.com', '5-3', '2026-12-07', 'a, -b', '{"a":[1,-2]}']) {
      expect(neutraliseCsvCell(value), JSON.stringify(value)).toBe(value);
    }
  });
});

describe('csvField and toCsv', () => {
  it('quotes every text cell after neutralising; numbers, booleans and nulls as values', () => {
    expect(csvField('=cmd|" /C calc"!A0')).toBe(`"'=cmd|"" /C calc""!A0"`);
    expect(csvField('Jane')).toBe('"Jane"');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(REVIEW_USER_AGENT)).toBe(`"Mozilla/5.0;'=1+1;'@SUM(A1:A9)"`);
    expect(csvField(-5)).toBe('-5');
    expect(csvField(false)).toBe('false');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });

  it('keeps spaces at either end of a cell (quoted)', () => {
    expect(csvField(' a')).toBe('" a"');
    expect(csvField('a ')).toBe('"a "');
    expect(Papa.parse<string[]>(toCsv(['x'], [[' a ']]).slice(0, -2), { newline: '\r\n' }).data).toEqual([['x'], [' a ']]);
  });

  it('writes RFC 4180 that a CSV reader reads back, with the formulas neutralised', () => {
    const rows = [
      ['=HYPERLINK("https://evil.example","Click")', 'Doe, Jr.', 'jane@example.com', '+15550100000'],
      ['@SUM(1+1)', 'say "hi"', 'line\r\nbreak', -12.5],
      [REVIEW_USER_AGENT, 'a;-b', '', 3],
    ];
    const csv = toCsv(['firstName', 'lastName', 'email', 'phone'], rows);
    expect(csv.endsWith('\r\n')).toBe(true);
    const parsed = Papa.parse<string[]>(csv.slice(0, -2), { newline: '\r\n' }).data;
    expect(parsed).toEqual([
      ['firstName', 'lastName', 'email', 'phone'],
      [`'=HYPERLINK("https://evil.example","Click")`, 'Doe, Jr.', 'jane@example.com', "'+15550100000"],
      ["'@SUM(1+1)", 'say "hi"', 'line\r\nbreak', '-12.5'],
      ["Mozilla/5.0;'=1+1;'@SUM(A1:A9)", "a;'-b", '', '3'],
    ]);
  });

  it('makes no formula cell for a reader that splits rows at ; or tab and ignores the quoting', () => {
    const hostile = [REVIEW_USER_AGENT, '=1+1', 'x;"=1"', 'a\t@SUM(1)', 'line\n-1', ' +1', 'a; =2'];
    const csv = toCsv(
      ['id', 'value'],
      hostile.map((value, i) => [i + 1, value]),
    );
    for (const separator of [/;/, /\t/, /,/]) {
      expect(cellsSplitAt(csv, separator).filter(runsAsFormula), String(separator)).toEqual([]);
    }
    // Without the neutralising, the same reader finds the review's formulas.
    const raw = Papa.unparse([[1, REVIEW_USER_AGENT]], { quotes: true });
    expect(cellsSplitAt(raw, /;/).filter(runsAsFormula)).toEqual(['=1+1', '@SUM(A1:A9)"']);
  });
});
