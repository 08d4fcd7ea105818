// CSV the API writes (docs/api-conventions.md, "CSV"). Every text cell goes through neutraliseCsvCell and is
// quoted, so a value a brand or a patient typed can never run as a spreadsheet formula when the file is
// opened (OWASP, "CSV Injection"), whatever list separator the spreadsheet reads it with; papaparse's
// unparse does the RFC 4180 quoting. test/architecture/csv-exports.test.ts
// keeps every CSV answer on this writer.
import Papa from 'papaparse';

/**
 * Where a spreadsheet may start reading a cell: the start of the text, or just after a character some
 * spreadsheet splits a row at whatever our quoting says (`;`, the list separator of locales whose decimal
 * mark is a comma, so continental Excel reads `a;=1+1` as two cells; a tab; a line break), skipping the
 * spaces and double quotes a reader may trim. A formula character there (=, +, -, @) would run.
 */
const FORMULA_AT_START = /^[ "]*[=+\-@]|^[\t\r]/;
const FORMULA_AFTER_SEPARATOR = /([;\t\r\n][ "]*)([=+\-@])/g;

/**
 * The cell as text a spreadsheet shows as written (OWASP, "CSV Injection"): a value starting with =, +,
 * -, @ (after any spaces or quotes), a tab or a carriage return gets a single quote in front, and so does
 * every such character just after a `;`, a tab or a line break inside it (`Mozilla/5.0;=1+1` becomes
 * `Mozilla/5.0;'=1+1`). Stored data is never changed: this is applied when CSV is written, as HTML
 * escaping is applied when HTML is.
 */
export function neutraliseCsvCell(value: string): string {
  const inner = value.replace(FORMULA_AFTER_SEPARATOR, "$1'$2");
  return FORMULA_AT_START.test(value) ? `'${inner}` : inner;
}

/** The media type of every CSV answer. */
export const CSV_MEDIA_TYPE = 'text/csv';

export type CsvValue = string | number | boolean | null | undefined;

/** Text neutralised; numbers and booleans as they are (a negative number is a number, not a formula); null and undefined empty. */
const cell = (value: CsvValue): string | number | boolean | null | undefined =>
  typeof value === 'string' ? neutraliseCsvCell(value) : value;

/**
 * papaparse's own formula escaping stays off (ours is neutraliseCsvCell, applied to text only). Every
 * text cell is quoted (quotes doubled), so a reader never splits one at a comma, a quote or a line break
 * inside it; numbers and booleans are written bare, null and undefined as an empty field.
 */
const UNPARSE = { newline: '\r\n', quotes: (value: unknown) => typeof value === 'string', escapeFormulae: false } as const;

/** One field of RFC 4180 CSV, written as toCsv writes it. */
export function csvField(value: CsvValue): string {
  return Papa.unparse([[cell(value)]], UNPARSE);
}

/** A CSV document: a header row and data rows, CRLF line ends (RFC 4180) and a final CRLF. */
export function toCsv(header: readonly string[], rows: Iterable<readonly CsvValue[]>): string {
  const data = [header.map(cell), ...Array.from(rows, (row) => row.map(cell))];
  return `${Papa.unparse(data, UNPARSE)}\r\n`;
}
