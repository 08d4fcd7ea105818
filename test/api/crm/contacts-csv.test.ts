// The contact import's CSV reader (src/modules/crm/contacts/csv.ts) and email redaction, as pure functions:
// RFC 4180 quoting, line endings, BOM, line numbers, and what counts as malformed. (Pure unit tests; kept
// beside the import's HTTP tests in test/api/crm/contacts-import.test.ts.)
import { describe, expect, it } from 'vitest';
import { isBlankRecord, parseCsv } from '../../../src/modules/crm/contacts/csv';
import { redactEmail } from '../../../src/modules/crm/contacts/redact';

const fields = (text: string) => parseCsv(text).map((r) => r.fields);

describe('parseCsv', () => {
  it('reads plain records with LF, CRLF, lone CR and mixed line endings', () => {
    expect(fields('a,b,c\n1,2,3\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
    ]);
    expect(fields('a,b\r\n1,2\r\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(fields('a,b\r1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(fields('a,b\r\n1,2\n3,4\r5,6')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
      ['5', '6'],
    ]);
  });

  it('handles a missing final line break, empty fields and a trailing comma', () => {
    expect(fields('a,b')).toEqual([['a', 'b']]);
    expect(fields(',,')).toEqual([['', '', '']]);
    expect(fields('a,')).toEqual([['a', '']]);
    expect(fields('a,\n')).toEqual([['a', '']]);
    expect(fields('')).toEqual([]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks (CRLF inside becomes \\n)', () => {
    expect(fields('"Smith, Jr.",x')).toEqual([['Smith, Jr.', 'x']]);
    expect(fields('"O""Neil","say ""hi"""')).toEqual([['O"Neil', 'say "hi"']]);
    expect(fields('"line 1\r\nline 2\nline 3",z\r\n')).toEqual([['line 1\nline 2\nline 3', 'z']]);
    expect(fields('"",""')).toEqual([['', '']]);
    expect(fields('""""')).toEqual([['"']]);
  });

  it('numbers each record by the line it starts on, counting line breaks inside quoted fields', () => {
    const records = parseCsv('h1,h2\r\n"multi\r\nline\r\nvalue",x\r\n\r\nlast,y\r\n');
    expect(records.map((r) => r.line)).toEqual([1, 2, 5, 6]);
    expect(records[2]!.fields).toEqual(['']);
    expect(isBlankRecord(records[2]!)).toBe(true);
    expect(isBlankRecord(parseCsv(' , ,\t')[0]!)).toBe(true);
    expect(isBlankRecord(parseCsv('a,,')[0]!)).toBe(false);
  });

  it('drops a UTF-8 byte order mark at the start only', () => {
    expect(fields('\uFEFFemail,name\nx,y')).toEqual([
      ['email', 'name'],
      ['x', 'y'],
    ]);
    expect(fields('a,\uFEFFb')).toEqual([['a', '\uFEFFb']]);
  });

  it('reads a quote only at the start of a field (RFC 4180): blanks before it make the field unquoted; blanks are kept, a quote inside an unquoted field too', () => {
    expect(fields('a, "b" ,c')).toEqual([['a', ' "b" ', 'c']]);
    expect(fields(' a , b ')).toEqual([[' a ', ' b ']]);
    expect(fields('5" tall,x')).toEqual([['5" tall', 'x']]);
  });

  it('reports an unclosed quote (running to the end of the file) and text after a closing quote, per record', () => {
    const unclosed = parseCsv('a,b\n1,"open\n2,3\n');
    expect(unclosed).toHaveLength(2);
    expect(unclosed[1]).toMatchObject({ line: 2, error: expect.stringContaining('never closed') });
    expect(unclosed[1]!.fields).toEqual(['1', 'open\n2,3\n']);

    // Text after a closing quote: papaparse reads the rest of the file into that field and says so.
    const after = parseCsv('h\n"ab"cd,e\nok,1');
    expect(after[0]).toEqual({ line: 1, fields: ['h'] });
    expect(after[1]).toMatchObject({ line: 2, error: expect.stringContaining('after a closing quote') });
    expect(isBlankRecord({ line: 1, fields: [''], error: 'x' })).toBe(false);
  });

  it('reads a large file in linear time', () => {
    const row = '"Doe, Jane",jane@example.com,+15550100000\r\n';
    const text = `name,email,phone\r\n${row.repeat(100_000)}`;
    const started = performance.now();
    const records = parseCsv(text);
    expect(records).toHaveLength(100_001);
    expect(records[100_000]).toEqual({ line: 100_001, fields: ['Doe, Jane', 'jane@example.com', '+15550100000'] });
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('redactEmail', () => {
  it('keeps the first character of the local part and the domain', () => {
    expect(redactEmail('jane.doe@example.com')).toBe('j***@example.com');
    expect(redactEmail('  John@Example.COM ')).toBe('j***@example.com');
    expect(redactEmail('a@b')).toBe('a***@b');
    expect(redactEmail('weird@name@example.com')).toBe('w***@example.com');
    expect(redactEmail('@example.com')).toBe('***@example.com');
  });

  it('hides a value without @ but its first character, and answers null for nothing', () => {
    expect(redactEmail('John Smith')).toBe('j***');
    expect(redactEmail('')).toBeNull();
    expect(redactEmail('   ')).toBeNull();
    expect(redactEmail(undefined)).toBeNull();
  });

  it('replaces control characters and cuts a long domain', () => {
    expect(redactEmail('x@exa\nmple.com')).toBe('x***@exa?mple.com');
    expect(redactEmail(`x@${'d'.repeat(300)}`)).toBe(`x***@${'d'.repeat(100)}`);
  });
});
