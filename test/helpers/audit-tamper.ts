// Edits an audit row behind the API's back, as someone with the table owner's rights could (the
// append-only trigger switched off for the statement): what the hash chain must reveal.
import { sql } from 'drizzle-orm';
import { auditEventId } from '../../src/platform/audit/trail';
import type { Database } from '../../src/platform/db/client';
import { rowsOf } from '../../src/platform/db/sql';

/** Sets the `changes` of a clinic's audit row number `seq`; answers the row's id as the API shows it. */
export async function tamperAuditRow(db: Database, clinicId: string, seq: number, changes: unknown): Promise<string> {
  const [row] = await rowsOf<{ id: string }>(
    db,
    sql`select id::text from audit_events where clinic_id = ${clinicId}::uuid and seq = ${seq}`,
  );
  await db.transaction(async (tx) => {
    await tx.execute(sql`alter table audit_events disable trigger audit_events_no_change`);
    await tx.execute(sql`update audit_events set changes = ${JSON.stringify(changes)}::jsonb where id = ${row!.id}::bigint`);
    await tx.execute(sql`alter table audit_events enable trigger audit_events_no_change`);
  });
  return auditEventId(seq);
}

/** What a statement refused says (the database's message under Drizzle's wrapper), or 'no error'. */
export const messageOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'no error';
  } catch (error) {
    return String((error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message);
  }
};
