// CSV the API writes (docs/api-conventions.md, "CSV"). Every text cell goes through neutraliseCsvCell, so
// a value a brand or a patient typed can never run as a spreadsheet formula when the file is opened
// (OWASP, "CSV Injection"); papaparse's unparse does the RFC 4180 quoting. test/architecture/csv-exports.test.ts
// keeps every CSV answer on this writer.
import Papa from 'papaparse';

/** Cells a spreadsheet reads as a formula (or a formula after it trims a tab or carriage return). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * The cell as text a spreadsheet shows as written: a value starting with =, +, -, @, tab or carriage
 * return gets a single quote in front (OWASP's recommendation). Stored data is never changed: this is
 * applied when CSV is written, as HTML escaping is applied when HTML is.
 */
export function neutraliseCsvCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** The media type of every CSV answer. */
export const CSV_MEDIA_TYPE = 'text/csv';

export type CsvValue = string | number | boolean | null | undefined;

/** Text neutralised; numbers and booleans as they are (a negative number is a number, not a formula); null and undefined empty. */
const cell = (value: CsvValue): string | number | boolean | null | undefined =>
  typeof value === 'string' ? neutraliseCsvCell(value) : value;

/**
 * papaparse's own formula escaping stays off: it would also quote every escaped cell; ours is
 * neutraliseCsvCell, applied to text only. Quoting: a field holding a comma, a quote, CR or LF, or
 * starting or ending with a space, is quoted (quotes doubled).
 */
const UNPARSE = { newline: '\r\n', quotes: false, escapeFormulae: false } as const;

/** One field of RFC 4180 CSV, written as toCsv writes it. */
export function csvField(value: CsvValue): string {
  return Papa.unparse([[cell(value)]], UNPARSE);
}

/** A CSV document: a header row and data rows, CRLF line ends (RFC 4180) and a final CRLF. */
export function toCsv(header: readonly string[], rows: Iterable<readonly CsvValue[]>): string {
  const data = [header.map(cell), ...Array.from(rows, (row) => row.map(cell))];
  return `${Papa.unparse(data, UNPARSE)}\r\n`;
}
