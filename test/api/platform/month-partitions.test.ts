// Month partitions of request_logs and audit_events (migration 0022, src/platform/partitions.ts): made
// ahead by the cron sweep, rows of a month without its partition kept in the DEFAULT partition and moved
// when it is made, retention by dropping whole months, append-only on every partition, and the audit
// chain checked from the anchor the retention records.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { requestLogs } from '../../../drizzle/schema';
import { appendAuditEvents, verifyAuditChain } from '../../../src/platform/audit/trail';
import type { Database } from '../../../src/platform/db/client';
import { rowsOf } from '../../../src/platform/db/sql';
import { maintainMonthPartitions, PARTITION_MONTHS_AHEAD } from '../../../src/platform/partitions';
import { REQUEST_LOG_RETENTION_DAYS } from '../../../src/platform/request-log';
import { useTestApp } from '../../helpers/app';
import { messageOf } from '../../helpers/audit-tamper';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();
const DAY = 86_400_000;

/** The UTC month `n` months from `at`, as the partition's suffix (2026_11). */
function monthName(at: Date, n = 0): string {
  const d = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + n, 1));
  return `${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

async function partitionsOf(db: Database, table: string): Promise<string[]> {
  const rows = await rowsOf<{ name: string }>(
    db,
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = ${table}::regclass order by 1`,
  );
  return rows.map((r) => r.name);
}

const logEntry = (tenant: Awaited<ReturnType<typeof makeTenant>>, requestId: string, createdAt: Date) => ({
  apiKeyId: tenant.keyRow.id,
  clinicId: tenant.clinic.id,
  requestId,
  method: 'GET',
  route: '/api/v1/me',
  status: 200,
  durationMs: 1,
  createdAt,
});

const auditEvent = (clinicId: string, n: number, createdAt?: Date) => ({
  clinicId,
  actorKind: 'system' as const,
  actorId: 'test',
  action: 'coupon.updated',
  targetType: 'coupon',
  targetId: `c${n}`,
  changes: { n: { new: n } },
  ...(createdAt ? { createdAt } : {}),
});

describe('month partitions', () => {
  it(`are made ${PARTITION_MONTHS_AHEAD} months ahead by the sweep, once (a second run makes none)`, async () => {
    const later = new Date(Date.now() + 300 * DAY);
    const changes = await maintainMonthPartitions(t.db, later);
    expect(changes.map((c) => [c.table, c.made])).toEqual([
      ['request_logs', PARTITION_MONTHS_AHEAD + 1],
      ['audit_events', PARTITION_MONTHS_AHEAD + 1],
    ]);
    for (const table of ['request_logs', 'audit_events']) {
      const names = await partitionsOf(t.db, table);
      for (let n = 0; n <= PARTITION_MONTHS_AHEAD; n++) expect(names).toContain(`${table}_${monthName(later, n)}`);
      expect(names).toContain(`${table}_default`);
    }
    expect((await maintainMonthPartitions(t.db, later)).map((c) => c.made)).toEqual([0, 0]);
  });

  it('keeps a row of a month without a partition (the sweep stopped) and moves it into the partition made later', async () => {
    const tenant = await makeTenant(t.db);
    const far = new Date(Date.now() + 600 * DAY);
    await t.db.insert(requestLogs).values(logEntry(tenant, 'far', far));
    await appendAuditEvents(t.db, [auditEvent(tenant.clinic.id, 1)]);
    await appendAuditEvents(t.db, [auditEvent(tenant.clinic.id, 2, far)]);
    const where = sql`where clinic_id = ${tenant.clinic.id}::uuid order by created_at`;
    const placed = async (table: string) =>
      (await rowsOf<{ part: string }>(t.db, sql`select tableoid::regclass::text as part from ${sql.identifier(table)} ${where}`)).map(
        (r) => r.part,
      );
    expect(await placed('request_logs')).toEqual(['request_logs_default']);
    expect((await placed('audit_events')).at(-1)).toBe('audit_events_default');

    await maintainMonthPartitions(t.db, far);
    expect(await placed('request_logs')).toEqual([`request_logs_${monthName(far)}`]);
    expect((await placed('audit_events')).at(-1)).toBe(`audit_events_${monthName(far)}`);
    // Moved as they were: the chain still verifies, and the DEFAULT partitions are empty again.
    expect(await verifyAuditChain(t.db, tenant.clinic.id)).toEqual({ intact: true, checked: 2, brokenAt: null });
    const [empty] = await rowsOf<{ n: number }>(
      t.db,
      sql`select (select count(*) from request_logs_default) + (select count(*) from audit_events_default) as n`,
    );
    expect(Number(empty!.n)).toBe(0);
  });

  it(`drops request_logs months whose end is over ${REQUEST_LOG_RETENTION_DAYS} days old, whole, and keeps the newer ones`, async () => {
    const tenant = await makeTenant(t.db);
    const now = new Date();
    const ages = [200, 125, 89, 0];
    await t.db.insert(requestLogs).values(ages.map((age) => logEntry(tenant, `r${age}`, new Date(now.getTime() - age * DAY))));
    const changes = await maintainMonthPartitions(t.db, now);
    const dropped = changes.find((c) => c.table === 'request_logs')!.dropped;
    // The months of the rows 200 and 125 days old ended more than 90 days ago (125 - 31 > 90).
    expect(dropped).toEqual(
      expect.arrayContaining([
        `request_logs_${monthName(new Date(now.getTime() - 200 * DAY))}`,
        `request_logs_${monthName(new Date(now.getTime() - 125 * DAY))}`,
      ]),
    );
    const names = await partitionsOf(t.db, 'request_logs');
    for (const name of dropped) expect(names).not.toContain(name);
    expect(names).toContain(`request_logs_${monthName(now)}`);
    expect(names).toContain(`request_logs_${monthName(new Date(now.getTime() - 89 * DAY))}`);
    const left = await rowsOf<{ request_id: string }>(
      t.db,
      sql`select request_id from request_logs where clinic_id = ${tenant.clinic.id}::uuid order by created_at`,
    );
    expect(left.map((r) => r.request_id)).toEqual(['r89', 'r0']);
  });

  it('keeps audit_events append-only on every partition: DELETE, UPDATE and TRUNCATE of a partition are refused', async () => {
    const { clinic } = await makeTenant(t.db);
    await appendAuditEvents(t.db, [auditEvent(clinic.id, 1)]);
    const [row] = await rowsOf<{ part: string }>(
      t.db,
      sql`select tableoid::regclass::text as part from audit_events where clinic_id = ${clinic.id}::uuid`,
    );
    const part = sql.identifier(row!.part);
    expect(await messageOf(t.db.execute(sql`delete from ${part} where clinic_id = ${clinic.id}::uuid`))).toMatch(/append-only: DELETE/);
    expect(await messageOf(t.db.execute(sql`update ${part} set action = 'x' where clinic_id = ${clinic.id}::uuid`))).toMatch(
      /append-only: UPDATE/,
    );
    expect(await messageOf(t.db.execute(sql`truncate ${part}`))).toMatch(/append-only: TRUNCATE/);
    expect(await messageOf(t.db.execute(sql`truncate audit_events_default`))).toMatch(/append-only: TRUNCATE/);
    // A partition the sweep makes later has the same guard.
    const later = new Date(Date.now() + 900 * DAY);
    await maintainMonthPartitions(t.db, later);
    expect(await messageOf(t.db.execute(sql`truncate ${sql.identifier(`audit_events_${monthName(later)}`)}`))).toMatch(
      /append-only: TRUNCATE/,
    );
    // And a fork of the chain within a month is refused by the partition's unique (clinic_id, seq).
    const fork = await messageOf(
      t.db.transaction(async (tx) => {
        await tx.execute(sql`alter table audit_events disable trigger audit_events_chain`);
        await tx.execute(
          sql`insert into audit_events (clinic_id, seq, actor_kind, actor_id, action, target_type) values (${clinic.id}::uuid, 1, 'system', 'x', 'x', 'x')`,
        );
      }),
    );
    expect(fork).toMatch(/duplicate key value violates unique constraint "audit_events_\d{4}_\d{2}_clinic_id_seq_key"/);
  });

  it('drops audit months older than six years and verifies each clinic from the anchor recorded with the drop', async () => {
    const { clinic } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const now = new Date();
    const yearsAgo = (years: number, days = 0) => new Date(now.getTime() - years * 365.25 * DAY - days * DAY);
    // The chain's order is not the months' order: seq 2 lies in an older month than seq 1, and seq 4
    // (kept) in an older month than seq 3 (kept), as transactions that start before another but take
    // the clinic's lock after it do near a month's end.
    await appendAuditEvents(t.db, [auditEvent(clinic.id, 1, yearsAgo(7))]);
    await appendAuditEvents(t.db, [auditEvent(clinic.id, 2, yearsAgo(8))]);
    await appendAuditEvents(t.db, [auditEvent(clinic.id, 3, yearsAgo(0, 1))]);
    await appendAuditEvents(t.db, [auditEvent(clinic.id, 4, yearsAgo(5))]);
    await appendAuditEvents(t.db, [auditEvent(clinic.id, 5)]);
    await appendAuditEvents(t.db, [auditEvent(other.clinic.id, 1)]);
    expect(await verifyAuditChain(t.db, clinic.id)).toEqual({ intact: true, checked: 5, brokenAt: null });

    const changes = await maintainMonthPartitions(t.db, now);
    expect(changes.find((c) => c.table === 'audit_events')!.dropped).toEqual([
      `audit_events_${monthName(yearsAgo(8))}`,
      `audit_events_${monthName(yearsAgo(7))}`,
    ]);
    const [anchor] = await rowsOf<{ seq: string }>(
      t.db,
      sql`select seq::text from audit_chain_anchors where clinic_id = ${clinic.id}::uuid`,
    );
    expect(anchor!.seq).toBe('2');
    expect(await verifyAuditChain(t.db, clinic.id)).toEqual({ intact: true, checked: 3, brokenAt: null });
    expect(await verifyAuditChain(t.db, other.clinic.id)).toEqual({ intact: true, checked: 1, brokenAt: null });

    // The first kept row removed behind the trail (trigger off, as the owner could) is still found.
    await t.db.transaction(async (tx) => {
      await tx.execute(sql`alter table audit_events disable trigger audit_events_no_change`);
      await tx.execute(sql`delete from audit_events where clinic_id = ${clinic.id}::uuid and seq = 3`);
      await tx.execute(sql`alter table audit_events enable trigger audit_events_no_change`);
    });
    expect(await verifyAuditChain(t.db, clinic.id)).toMatchObject({ intact: false, checked: 1, brokenAt: { seq: 4 } });
  });

  it("takes the last row from the clinic's chain head: a newest row removed behind the trail is found at the next one", async () => {
    const { clinic } = await makeTenant(t.db);
    await appendAuditEvents(t.db, [auditEvent(clinic.id, 1), auditEvent(clinic.id, 2)]);
    await t.db.transaction(async (tx) => {
      await tx.execute(sql`alter table audit_events disable trigger audit_events_no_change`);
      await tx.execute(sql`delete from audit_events where clinic_id = ${clinic.id}::uuid and seq = 2`);
      await tx.execute(sql`alter table audit_events enable trigger audit_events_no_change`);
    });
    // Searched by seq, the next row would have taken seq 2 over and the chain would look whole.
    await appendAuditEvents(t.db, [auditEvent(clinic.id, 3)]);
    expect(await verifyAuditChain(t.db, clinic.id)).toMatchObject({ intact: false, checked: 2, brokenAt: { seq: 3 } });
  });
});
