// CSV the API writes (docs/api-conventions.md, "CSV"). Every text cell goes through neutraliseCsvCell, so
// a value a brand or a patient typed can never run as a spreadsheet formula when the file is opened
// (OWASP, "CSV Injection"). test/architecture/csv-exports.test.ts keeps every CSV answer on this writer.

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

export type CsvValue = string | number | boolean | null | undefined;

/**
 * One field of RFC 4180 CSV: text neutralised, then quoted when it holds a comma, a quote, CR or LF
 * (quotes doubled). Numbers and booleans are written as they are (a negative number is a number, not
 * a formula); null and undefined are empty.
 */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const text = neutraliseCsvCell(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV document: a header row and data rows, CRLF line ends (RFC 4180), every field through csvField. */
export function toCsv(header: readonly string[], rows: Iterable<readonly CsvValue[]>): string {
  const lines = [header.map(csvField).join(',')];
  for (const row of rows) lines.push(row.map(csvField).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
