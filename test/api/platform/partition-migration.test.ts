// Migration 0022 converts request_logs and audit_events to month partitions with their rows: written here
// under the schema before it, then migrated; ids, the audit chain and the identity sequences carry over.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, databaseUrl, withClient } from '../../../scripts/lib/database';
import { migrateDatabase, migrationsBefore } from '../../../scripts/lib/migrations';
import { appendAuditEvents, verifyAuditChain } from '../../../src/platform/audit/trail';
import { rowsOf } from '../../../src/platform/db/sql';
import { dropDatabase } from '../../tooling/test-postgres';

const { serverUrl } = inject('testDatabase');
const name = `brand_admin_conv_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const url = databaseUrl(serverUrl, name);
let connection: ReturnType<typeof connect>;

beforeAll(async () => {
  await withClient(serverUrl, (client) => client.query(`create database ${name}`));
  await migrateDatabase(url, migrationsBefore('0022_monthly_partitions'));
  connection = connect(url, 2);
});
afterAll(async () => {
  await connection?.close();
  await dropDatabase(serverUrl, name);
});

describe('migration 0022 (month partitions)', () => {
  it('moves the rows of both tables into their months: ids, the chain and the sequences carry over', async () => {
    const db = connection.db;
    const [clinic] = await rowsOf<{ id: string }>(db, sql`insert into clinics (name, slug) values ('C', 'conv') returning id`);
    const [key] = await rowsOf<{ id: string }>(
      db,
      sql`insert into api_keys (clinic_id, name, kind, key_prefix, key_hash, scopes)
          values (${clinic!.id}::uuid, 'k', 'secret', 'sk_c', 'h', '{read}') returning id`,
    );
    const day = 86_400_000;
    for (const age of [400, 60, 0]) {
      await db.execute(sql`insert into request_logs (api_key_id, clinic_id, request_id, method, route, status, duration_ms, created_at)
        values (${key!.id}::uuid, ${clinic!.id}::uuid, ${`r${age}`}, 'GET', '/api/v1/me', 200, 1, ${new Date(Date.now() - age * day).toISOString()}::timestamptz)`);
    }
    for (const age of [400, 60, 0, 0]) {
      await appendAuditEvents(db, [
        {
          clinicId: clinic!.id,
          actorKind: 'system',
          actorId: 't',
          action: 'coupon.updated',
          targetType: 'coupon',
          changes: { age: { new: age } },
          createdAt: new Date(Date.now() - age * day),
        },
      ]);
    }
    const snapshot = async (table: string) => rowsOf<Record<string, unknown>>(db, sql`select * from ${sql.identifier(table)} order by id`);
    const logsBefore = await snapshot('request_logs');
    const auditBefore = await snapshot('audit_events');

    await migrateDatabase(url);

    // Compared on the columns the rows had: later migrations may add some (client_request_id, issue 37).
    const asBefore = (rows: Record<string, unknown>[], before: Record<string, unknown>[]) =>
      rows.map((row) => Object.fromEntries(Object.keys(before[0] ?? {}).map((column) => [column, row[column]])));
    expect(asBefore(await snapshot('request_logs'), logsBefore)).toEqual(logsBefore);
    expect(asBefore(await snapshot('audit_events'), auditBefore)).toEqual(auditBefore);
    expect(await verifyAuditChain(db, clinic!.id)).toEqual({ intact: true, checked: 4, brokenAt: null });
    const parts = await rowsOf<{ part: string }>(db, sql`select distinct tableoid::regclass::text as part from request_logs`);
    expect(parts.length).toBe(3);
    expect(parts.map((p) => p.part)).not.toContain('request_logs_default');
    // New rows continue the identity sequences and the chain.
    await appendAuditEvents(db, [{ clinicId: clinic!.id, actorKind: 'system', actorId: 't', action: 'x.y', targetType: 'x' }]);
    const [last] = await rowsOf<{ id: string; seq: string }>(
      db,
      sql`select id::text, seq::text from audit_events where clinic_id = ${clinic!.id}::uuid order by seq desc limit 1`,
    );
    expect(Number(last!.id)).toBeGreaterThan(Math.max(...auditBefore.map((r) => Number(r.id))));
    expect(last!.seq).toBe('5');
    expect(await verifyAuditChain(db, clinic!.id)).toEqual({ intact: true, checked: 5, brokenAt: null });
  });
});
