import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { rowsOf } from '../../../platform/db/sql';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { ApiError, invalidField } from '../../../platform/values/errors';
import { findRefusedCharacter } from '../../../platform/values/strings';
import { type CsvRecord, isBlankRecord, parseCsv } from './csv';
import { redactEmail } from './redact';
import {
  E164_PATTERN,
  type ImportResult,
  MAX_CSV_BYTES,
  MAX_EMAIL_LENGTH,
  MAX_IMPORT_ERRORS_LISTED,
  MAX_NAME_LENGTH,
  normalizePhone,
} from './schemas';

/** Rows per INSERT statement (each statement has six parameters, whatever its size). */
export const IMPORT_BATCH_SIZE = 5_000;

const COLUMNS = ['firstname', 'lastname', 'email', 'phonenumber'] as const;
type Column = (typeof COLUMNS)[number];
const REQUIRED: Column[] = ['firstname', 'lastname', 'email'];

/** "First Name", "first_name", "FIRSTNAME" and "first-name" all name firstname. */
const normalizeHeader = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');

const csvError = (detail: string) => invalidField('body.csv', detail);

export const csvTooLarge = () => new ApiError(413, 'PAYLOAD_TOO_LARGE', ERROR_MESSAGES.PAYLOAD_TOO_LARGE.csv(MAX_CSV_BYTES));

const emailFormat = z.string().email();

interface ValidRow {
  line: number;
  firstName: string;
  lastName: string;
  email: string;
  phoneNumber: string | null;
}

/** The file's bytes as text: UTF-8 only (a byte order mark is dropped); anything else is a 400. */
export function decodeCsv(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw csvError('the file must be UTF-8 text (save it as "CSV UTF-8")');
  }
}

/** Which field of a record each known column is in; 400 when a required column is missing or named twice. */
function readHeader(record: CsvRecord): Map<Column, number> {
  if (record.error) throw csvError(`the header (line ${record.line}) is malformed: ${record.error}`);
  const columns = new Map<Column, number>();
  record.fields.forEach((field, index) => {
    const name = normalizeHeader(field) as Column;
    if (!COLUMNS.includes(name)) return; // other columns are ignored
    if (columns.has(name)) throw csvError(`the header names the column ${name} twice`);
    columns.set(name, index);
  });
  const missing = REQUIRED.filter((column) => !columns.has(column));
  if (missing.length) {
    throw csvError(
      `the header lacks the required column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (columns: firstname, lastname, email, optional phonenumber, in any order and case)`,
    );
  }
  return columns;
}

function checkName(column: Column, value: string, problems: string[]): string {
  if (!value) problems.push(`${column} is required`);
  else if (value.length > MAX_NAME_LENGTH) problems.push(`${column} is longer than ${MAX_NAME_LENGTH} characters`);
  else if (findRefusedCharacter(value)) problems.push(`${column} must not contain line breaks or control characters`);
  return value;
}

/** Validates one data record; the reasons it is invalid, or the row to insert. */
function readRow(record: CsvRecord, columns: Map<Column, number>, width: number): { row?: ValidRow; reasons: string[]; rawEmail: string } {
  const value = (column: Column) => {
    const index = columns.get(column);
    return index === undefined ? '' : (record.fields[index] ?? '').trim();
  };
  const rawEmail = value('email');
  if (record.error) return { reasons: [record.error], rawEmail };
  const extra = record.fields.slice(width);
  if (extra.some((field) => field.trim() !== '')) {
    return {
      reasons: [`the row has ${record.fields.length} fields but the header has ${width} (quote fields that contain commas)`],
      rawEmail,
    };
  }
  const reasons: string[] = [];
  const firstName = checkName('firstname', value('firstname'), reasons);
  const lastName = checkName('lastname', value('lastname'), reasons);
  const email = rawEmail.toLowerCase();
  if (!email) reasons.push('email is required');
  else if (email.length > MAX_EMAIL_LENGTH) reasons.push(`email is longer than ${MAX_EMAIL_LENGTH} characters`);
  else if (findRefusedCharacter(email) || !emailFormat.safeParse(email).success) reasons.push('email is not a valid email address');
  const rawPhone = value('phonenumber');
  let phoneNumber: string | null = null;
  if (rawPhone) {
    phoneNumber = normalizePhone(rawPhone);
    if (findRefusedCharacter(rawPhone) || !E164_PATTERN.test(phoneNumber)) {
      reasons.push('phonenumber must be an international (E.164) number such as +15550102000');
    }
  }
  if (reasons.length) return { reasons, rawEmail };
  return { row: { line: record.line, firstName, lastName, email, phoneNumber }, reasons, rawEmail };
}

/**
 * One INSERT for a batch of rows, the columns sent as four arrays (unnest): six parameters whatever
 * the batch size, and no per-row SQL to build. Rows go in file order (with ordinality), so of two
 * rows with one email the first is inserted and the second skipped by ON CONFLICT DO NOTHING on the
 * unique (clinic_id, email) index, as is an email the clinic already has. Answers how many were inserted.
 */
async function insertBatch(tx: Queryable, clinicId: string, batch: ValidRow[], now: Date): Promise<number> {
  const column = (pick: (row: ValidRow) => string | null) => sql.param(batch.map(pick));
  const at = now.toISOString();
  const [result] = await rowsOf<{ count: number }>(
    tx,
    sql`
    with inserted as (
      insert into "patients" ("clinic_id", "first_name", "last_name", "email", "phone_number", "created_at", "updated_at")
      select ${clinicId}::uuid, r.first_name, r.last_name, r.email, r.phone_number, ${at}::timestamptz, ${at}::timestamptz
      from unnest(${column((row) => row.firstName)}::text[], ${column((row) => row.lastName)}::text[],
                  ${column((row) => row.email)}::text[], ${column((row) => row.phoneNumber)}::text[])
        with ordinality as r(first_name, last_name, email, phone_number, n)
      order by r.n
      on conflict ("clinic_id", "email") do nothing
      returning 1
    )
    select count(*)::int as "count" from inserted`,
  );
  return result!.count;
}

/**
 * Imports contacts from a CSV file (docs/crm-contacts.md, "CSV import"). The header is checked first
 * (400 for a missing column); blank records are skipped everywhere. Then, in one transaction, the
 * valid rows are inserted in batches of IMPORT_BATCH_SIZE rows per statement (insertBatch).
 * INSERT ... ON CONFLICT DO NOTHING on the unique (clinic_id, email) index skips an email that is already a contact of the clinic, was taken by a concurrent request,
 * or appeared on an earlier row of the file (rows are inserted in file order, so the first one wins);
 * nothing about an existing contact changes. Imports send no welcome emails.
 */
export async function importContacts(ctx: HandlerContext, bytes: Uint8Array): Promise<ImportResult> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (bytes.byteLength > MAX_CSV_BYTES) throw csvTooLarge();
  const [header, ...data] = parseCsv(decodeCsv(bytes)).filter((record) => !isBlankRecord(record));
  if (!header) throw csvError('the file is empty; its first line must be the header (firstname, lastname, email, optional phonenumber)');
  const columns = readHeader(header);
  const width = header.fields.length;

  const result: ImportResult = { totalRows: data.length, imported: 0, skipped: 0, failed: 0, errors: [] };
  await db.transaction(async (tx) => {
    let batch: ValidRow[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const inserted = await insertBatch(tx, clinicId, batch, now);
      result.imported += inserted;
      result.skipped += batch.length - inserted;
      batch = [];
    };
    for (const record of data) {
      const { row, reasons, rawEmail } = readRow(record, columns, width);
      if (!row) {
        result.failed++;
        if (result.errors.length < MAX_IMPORT_ERRORS_LISTED) {
          result.errors.push({ line: record.line, reason: reasons.join('; '), email: redactEmail(rawEmail) });
        }
        continue;
      }
      batch.push(row);
      if (batch.length >= IMPORT_BATCH_SIZE) await flush();
    }
    await flush();
  });
  return result;
}
