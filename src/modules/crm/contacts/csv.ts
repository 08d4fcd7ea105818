// CSV for contact imports, read with papaparse (a maintained RFC 4180 parser); this file only adapts
// its output to what the import needs: each record with the line of the file it starts on.
//
// - Line endings: CRLF, LF and a lone CR, mixed in one file, are all read as line breaks (the text is
//   normalised to LF first, so a line break inside a quoted field is kept as \n).
// - A UTF-8 byte order mark at the start is dropped.
// - Quoted fields hold commas, doubled quotes and line breaks.
// - A malformed record (a quote never closed, text after a closing quote) carries an error; the rest
//   of the file is still read.
import Papa from 'papaparse';

export interface CsvRecord {
  /** 1-based line of the file on which the record starts. */
  line: number;
  fields: string[];
  /** Set when the record is malformed; its fields are what could be read. */
  error?: string;
}

const BOM = '\uFEFF';

const describe = (error: Papa.ParseError): string =>
  error.code === 'MissingQuotes'
    ? 'a quoted field is never closed (a " is missing)'
    : error.code === 'InvalidQuotes'
      ? 'text after a closing quote (a quote inside a quoted field is written "")'
      : error.message;

/** Every record of the file, in order, numbered by the line it starts on. */
export function parseCsv(input: string): CsvRecord[] {
  const text = (input.startsWith(BOM) ? input.slice(1) : input).replace(/\r\n?/g, '\n');
  const records: CsvRecord[] = [];
  // Papa reports where each row ends (meta.cursor); the next row starts there. Lines are counted
  // incrementally from one row start to the next, so the whole file is walked once.
  let rowStart = 0;
  let line = 1;
  Papa.parse<string[]>(text, {
    delimiter: ',',
    newline: '\n',
    quoteChar: '"',
    skipEmptyLines: false,
    step(results) {
      const record: CsvRecord = { line, fields: results.data };
      const [error] = results.errors;
      if (error) record.error = describe(error);
      // The cursor is just past the row's closing line break: where the next row starts.
      const end = results.meta.cursor;
      for (let i = rowStart; i < end; i++) if (text.charCodeAt(i) === 10) line++;
      rowStart = end;
      records.push(record);
    },
  });
  // A final line break ends the last record; it does not start an empty one.
  const last = records[records.length - 1];
  if (last && text.endsWith('\n') && !last.error && isEmptyRow(last.fields)) records.pop();
  return records;
}

const isEmptyRow = (row: string[]) => row.length === 1 && row[0] === '';

export const isBlankRecord = (record: CsvRecord) => !record.error && record.fields.every((field) => field.trim() === '');
