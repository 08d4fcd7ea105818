// POST /api/v1/contacts/import: multipart field csv (at most 5 MiB), header columns in any order and
// case, RFC 4180 quoting, BOM and CRLF, invalid rows reported by line with redacted emails, duplicates
// (in the file and in the clinic) skipped, valid rows inserted in one transaction in batches.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messages, patients } from '../../../drizzle/schema';
import { IMPORT_BATCH_SIZE } from '../../../src/modules/crm/contacts/import';
import { CSV_FRAMING_ALLOWANCE_BYTES, MAX_CSV_BYTES } from '../../../src/modules/crm/contacts/schemas';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { send } from '../catalog/uploads-fixtures';

const t = useTestApp();
const PATH = '/api/v1/contacts/import';

function csvForm(content: string | Uint8Array, options: { field?: string; asText?: boolean } = {}) {
  const form = new FormData();
  if (options.asText && typeof content === 'string') form.append(options.field ?? 'csv', content);
  else form.append(options.field ?? 'csv', new Blob([content as BlobPart], { type: 'text/csv' }), 'contacts.csv');
  return form;
}

const importCsv = (key: string, content: string | Uint8Array, options?: { field?: string; asText?: boolean }) =>
  send(t, PATH, { key, body: csvForm(content, options) });

const contactsOf = (clinicId: string) => t.db.select().from(patients).where(eq(patients.clinicId, clinicId)).orderBy(patients.email);

describe('POST /api/v1/contacts/import', () => {
  it('imports rows with the header in any order and case, normalising emails and phones; sends no welcome email', async () => {
    const { key, clinic } = await makeTenant(t.db);
    const csv =
      'Email,LASTNAME,firstName,Phone Number,Notes\nJane.Doe@Example.com,Doe,Jane,+1 (555) 010-2000,likes tea\nbob@example.com,Brown,Bob,,\n';
    const res = await importCsv(key, csv);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toEqual({ totalRows: 2, imported: 2, skipped: 0, failed: 0, errors: [] });
    const rows = await contactsOf(clinic.id);
    expect(rows.map((r) => [r.firstName, r.lastName, r.email, r.phoneNumber])).toEqual([
      ['Bob', 'Brown', 'bob@example.com', null],
      ['Jane', 'Doe', 'jane.doe@example.com', '+15550102000'],
    ]);
    expect(await t.db.select().from(messages).where(eq(messages.clinicId, clinic.id))).toEqual([]);
  });

  it('handles quoted fields with commas, doubled quotes and line breaks, a BOM and CRLF, with correct line numbers', async () => {
    const { key, clinic } = await makeTenant(t.db);
    const csv =
      '\uFEFFfirstname,lastname,email,notes\r\n' +
      '"Mary, Ann","O""Brien",mary@example.com,"a note\r\nover two lines"\r\n' +
      'Bad,"Two\r\nLines",bad@example.com,\r\n' +
      '\r\n' +
      'Tom,Tailor,tom@example.com,x\r\n' +
      'Eve,Quote,"eve@example.com"x,\r\n';
    const { data } = await (await importCsv(key, csv)).json();
    expect(data.imported).toBe(2);
    expect(data.errors).toEqual([
      { line: 4, reason: 'lastname must not contain line breaks or control characters', email: 'b***@example.com' },
      // papaparse keeps the text after the closing quote in the field; the email is still redacted.
      { line: 8, reason: expect.stringContaining('after a closing quote'), email: expect.stringMatching(/^e\*\*\*@example\.com/) },
    ]);
    expect(data).toMatchObject({ totalRows: 4, skipped: 0, failed: 2 });
    const rows = await contactsOf(clinic.id);
    expect(rows.map((r) => [r.firstName, r.lastName])).toEqual([
      ['Mary, Ann', 'O"Brien'],
      ['Tom', 'Tailor'],
    ]);
  });

  it('reports bad rows by line with a reason and a redacted email, and imports the rest', async () => {
    const { key, clinic } = await makeTenant(t.db);
    const csv = [
      'firstname,lastname,email,phonenumber',
      'Ann,Able,ann@example.com,+15550100001', // 2 ok
      ',Blank,jane.secret@example.com,', // 3 no first name
      'Carl,Cole,not-an-email,', // 4 bad email
      'Dina,Dean,,', // 5 no email
      'Ed,Eel,ed.private@example.com,555-0100', // 6 bad phone
      'Fay,Fox,fay@example.com,,extra,more', // 7 too many fields
      'Gus,,gus@example.com', // 8 short row: no last name
      `${'x'.repeat(101)},Long,long@example.com,`, // 9 name too long
      'Hal,"unterminated,hal@example.com,', // 10 runs to the end
    ].join('\n');
    const res = await importCsv(key, csv);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ totalRows: 9, imported: 1, skipped: 0, failed: 8 });
    expect(data.errors).toEqual([
      { line: 3, reason: 'firstname is required', email: 'j***@example.com' },
      { line: 4, reason: 'email is not a valid email address', email: 'n***' },
      { line: 5, reason: 'email is required', email: null },
      { line: 6, reason: 'phonenumber must be an international (E.164) number such as +15550102000', email: 'e***@example.com' },
      { line: 7, reason: 'the row has 6 fields but the header has 4 (quote fields that contain commas)', email: 'f***@example.com' },
      { line: 8, reason: 'lastname is required', email: 'g***@example.com' },
      { line: 9, reason: 'firstname is longer than 100 characters', email: 'l***@example.com' },
      { line: 10, reason: expect.stringContaining('never closed'), email: null },
    ]);
    // No full email of a refused row appears anywhere in the answer.
    const text = JSON.stringify(data);
    for (const secret of ['jane.secret', 'ed.private', 'fay@', 'gus@', 'long@']) expect(text).not.toContain(secret);
    expect((await contactsOf(clinic.id)).map((r) => r.email)).toEqual(['ann@example.com']);
  });

  it('skips emails already in the clinic and repeated in the file (ignoring case), changing nothing about them', async () => {
    const { key, clinic } = await makeTenant(t.db);
    await t.db.insert(patients).values({ clinicId: clinic.id, firstName: 'Existing', lastName: 'One', email: 'old@example.com' });
    // Another clinic's contact with a file email does not count.
    const other = await makeTenant(t.db);
    await t.db.insert(patients).values({ clinicId: other.clinic.id, firstName: 'Theirs', lastName: 'X', email: 'new@example.com' });
    const csv = 'firstname,lastname,email\nChanged,Name,OLD@example.com\nNew,Person,new@example.com\nNew,Again,New@Example.com\n';
    const { data } = await (await importCsv(key, csv)).json();
    expect(data).toEqual({ totalRows: 3, imported: 1, skipped: 2, failed: 0, errors: [] });
    const rows = await contactsOf(clinic.id);
    expect(rows.map((r) => [r.firstName, r.email])).toEqual([
      ['New', 'new@example.com'],
      ['Existing', 'old@example.com'],
    ]);
    // Importing the same file again imports nothing.
    const again = await (await importCsv(key, csv)).json();
    expect(again.data).toMatchObject({ imported: 0, skipped: 3 });
    expect(await contactsOf(clinic.id)).toHaveLength(2);
  });

  it(`inserts valid rows in batches of ${IMPORT_BATCH_SIZE} in one transaction (no per-row queries)`, async () => {
    const { key, clinic } = await makeTenant(t.db);
    const count = 2 * IMPORT_BATCH_SIZE + 1;
    const csv = `firstname,lastname,email\n${Array.from({ length: count }, (_, i) => `F${i},L${i},user${i}@example.com`).join('\n')}`;
    await t.flush();
    t.queries.length = 0;
    const { data } = await (await importCsv(key, csv)).json();
    expect(data).toMatchObject({ totalRows: count, imported: count, skipped: 0, failed: 0 });
    const statements = t.queries.filter((q) => !q.includes('"request_logs"'));
    expect(statements.filter((q) => /insert into "patients"/i.test(q))).toHaveLength(3);
    // The import's one audit row (contact.imported, written in the request's transaction: docs/audit-log.md).
    expect(statements.filter((q) => /^insert into "audit_events"/i.test(q))).toHaveLength(1);
    // Besides it, the key lookup and three inserts. Transaction control is left out: the request's
    // transaction (begin, commit), and the import's own, a savepoint inside it.
    const control = /^(begin|commit|rollback|savepoint|release savepoint)/i;
    expect(statements.filter((q) => !control.test(q) && !/^insert into "audit_events"/i.test(q))).toHaveLength(4);
    expect(await contactsOf(clinic.id)).toHaveLength(count);
  });

  it('accepts the csv field sent as a text part too', async () => {
    const { key, clinic } = await makeTenant(t.db);
    const res = await importCsv(key, 'firstname,lastname,email\nA,B,text@example.com', { asText: true });
    expect(res.status).toBe(200);
    expect((await res.json()).data.imported).toBe(1);
    expect(await contactsOf(clinic.id)).toHaveLength(1);
  });

  it('answers a header without firstname, lastname or email with 400 naming the missing columns', async () => {
    const { key, clinic } = await makeTenant(t.db);
    const missing = await importCsv(key, 'first name,email,phone\nA,a@example.com,\n');
    expect(missing.status).toBe(400);
    const body = await missing.json();
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.errors).toEqual([{ field: 'body.csv', message: expect.stringContaining('lastname') }]);
    expect(body.message).toContain('lacks the required column lastname');

    const two = await (await importCsv(key, 'name,mail\n')).json();
    expect(two.message).toContain('firstname, lastname, email');
    const twice = await importCsv(key, 'firstname,lastname,email,EMAIL\n');
    expect(twice.status).toBe(400);
    expect((await twice.json()).message).toContain('twice');
    for (const empty of ['', '\n\r\n', '\uFEFF']) {
      const res = await importCsv(key, empty);
      expect(res.status, JSON.stringify(empty)).toBe(400);
      expect((await res.json()).message).toContain('empty');
    }
    expect(await contactsOf(clinic.id)).toEqual([]);
  });

  it('imports a header-only file as nothing, and refuses a file that is not UTF-8 with 400', async () => {
    const { key } = await makeTenant(t.db);
    const headerOnly = await (await importCsv(key, 'firstname,lastname,email\r\n')).json();
    expect(headerOnly.data).toEqual({ totalRows: 0, imported: 0, skipped: 0, failed: 0, errors: [] });
    const latin1 = new Uint8Array([
      ...new TextEncoder().encode('firstname,lastname,email\nJos'),
      0xe9,
      ...new TextEncoder().encode(',X,j@example.com\n'),
    ]);
    const res = await importCsv(key, latin1);
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain('UTF-8');
    const utf16 = new Uint8Array([0xff, 0xfe, 0x66, 0x00]);
    expect((await importCsv(key, utf16)).status).toBe(400);
  });

  it(`accepts a file of exactly ${MAX_CSV_BYTES} bytes and refuses one byte more with 413, importing nothing`, async () => {
    const { key, clinic } = await makeTenant(t.db);
    // The size is made up in an ignored column, so the test stays fast.
    const head = 'firstname,lastname,email,notes\nBig,File,big@example.com,';
    const padded = (size: number) => `${head + 'n'.repeat(size - head.length - 1)}\n`;
    const atLimit = await importCsv(key, padded(MAX_CSV_BYTES));
    expect(atLimit.status).toBe(200);
    expect((await atLimit.json()).data.imported).toBe(1);

    const other = await makeTenant(t.db);
    const over = await importCsv(other.key, padded(MAX_CSV_BYTES + 1));
    expect(over.status).toBe(413);
    expect((await over.json()).code).toBe('PAYLOAD_TOO_LARGE');
    expect(await contactsOf(other.clinic.id)).toEqual([]);
    expect(await contactsOf(clinic.id)).toHaveLength(1);
  });

  it('refuses a body far over the limit while it streams, and a declared Content-Length over it before reading', async () => {
    const { key } = await makeTenant(t.db);
    const huge = await importCsv(key, 'x'.repeat(MAX_CSV_BYTES + CSV_FRAMING_ALLOWANCE_BYTES + 10));
    expect(huge.status).toBe(413);

    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const res = await t.app.request(PATH, {
      method: 'POST',
      body,
      headers: {
        'x-api-key': key,
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(MAX_CSV_BYTES + CSV_FRAMING_ALLOWANCE_BYTES + 1),
        'cf-connecting-ip': '10.99.0.1',
      },
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe('PAYLOAD_TOO_LARGE');
    expect(pulled).toBeLessThan(4);
  });

  it('answers 415 to a body that is not multipart, 400 without the csv field or with another field, 403 to a read-only key', async () => {
    const { key, clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    for (const [contentType, body] of [
      ['application/json', '{"csv":"firstname"}'],
      ['text/csv', 'firstname,lastname,email\n'],
    ] as const) {
      const res = await send(t, PATH, { key, body, headers: { 'content-type': contentType } });
      expect(res.status, contentType).toBe(415);
      expect((await res.json()).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const wrongField = await importCsv(key, 'firstname,lastname,email\n', { field: 'file' });
    expect(wrongField.status).toBe(400);
    const form = csvForm('firstname,lastname,email\n');
    form.append('extra', 'x');
    expect((await send(t, PATH, { key, body: form })).status).toBe(400);
    const scope = await importCsv(readOnly.raw, 'firstname,lastname,email\nA,B,a@example.com\n');
    expect(scope.status).toBe(403);
    expect((await scope.json()).code).toBe('INSUFFICIENT_SCOPE');
    expect(await contactsOf(clinic.id)).toEqual([]);
  });

  it("imports into the key's clinic only", async () => {
    const mine = await makeTenant(t.db);
    const theirs = await makeTenant(t.db);
    const email = `iso-${randomUUID().slice(0, 8)}@example.com`;
    await importCsv(mine.key, `firstname,lastname,email\nI,So,${email}\n`);
    expect((await contactsOf(mine.clinic.id)).map((r) => r.email)).toEqual([email]);
    expect(await contactsOf(theirs.clinic.id)).toEqual([]);
  });
});
