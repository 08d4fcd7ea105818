// The audit trail's storage (docs/audit-log.md): append-only for every role, the application's own
// connection included, and a per-clinic hash chain that concurrent writers cannot fork.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { appendAuditEvents, verifyAuditChain } from '../../../src/platform/audit/trail';
import { rowsOf } from '../../../src/platform/db/sql';
import { useTestApp } from '../../helpers/app';
import { messageOf, tamperAuditRow } from '../../helpers/audit-tamper';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();

const event = (clinicId: string, n: number) => ({
  clinicId,
  actorKind: 'key' as const,
  actorId: crypto.randomUUID(),
  actorLabel: 'sk_test_abc',
  action: 'coupon.updated',
  targetType: 'coupon',
  targetId: `c${n}`,
  changes: { discountValue: { old: n, new: n + 1 } },
});

describe('audit_events storage', () => {
  it('refuses UPDATE, DELETE and TRUNCATE through the application connection', async () => {
    const { clinic } = await makeTenant(t.db);
    await appendAuditEvents(t.db, [event(clinic.id, 1)]);
    expect(await messageOf(t.db.execute(sql`update audit_events set action = 'x' where clinic_id = ${clinic.id}::uuid`))).toMatch(
      /append-only: UPDATE/,
    );
    expect(await messageOf(t.db.execute(sql`delete from audit_events where clinic_id = ${clinic.id}::uuid`))).toMatch(
      /append-only: DELETE/,
    );
    expect(await messageOf(t.db.execute(sql`truncate audit_events`))).toMatch(/append-only: TRUNCATE/);
    const [row] = await rowsOf<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from audit_events where clinic_id = ${clinic.id}::uuid and action = 'coupon.updated'`,
    );
    expect(row!.n).toBe(1);
  });

  it('chains each clinic from seq 1, and concurrent writers append one after the other', async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    // 20 concurrent transactions per clinic (the pool has 4 connections), plus multi-row inserts.
    await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        t.db.transaction(async (tx) => {
          await appendAuditEvents(tx, [event(a.clinic.id, n), event(b.clinic.id, n)]);
          if (n % 3 === 0) await appendAuditEvents(tx, [event(a.clinic.id, 100 + n), event(a.clinic.id, 200 + n)]);
        }),
      ),
    );
    const seqs = await rowsOf<{ seq: string; prev_hash: string; hash: string }>(
      t.db,
      sql`select seq::text, prev_hash, hash from audit_events where clinic_id = ${a.clinic.id}::uuid order by audit_events.seq`,
    );
    expect(seqs.map((r) => Number(r.seq))).toEqual(Array.from({ length: 34 }, (_, i) => i + 1));
    expect(seqs[0]!.prev_hash).toBe('');
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]!.prev_hash).toBe(seqs[i - 1]!.hash);
    expect(await verifyAuditChain(t.db, a.clinic.id)).toEqual({ intact: true, checked: 34, brokenAt: null });
    expect(await verifyAuditChain(t.db, b.clinic.id)).toEqual({ intact: true, checked: 20, brokenAt: null });
  });

  it('finds the first row edited or removed behind the trail (triggers disabled, as a superuser could)', async () => {
    const { clinic } = await makeTenant(t.db);
    await appendAuditEvents(
      t.db,
      [1, 2, 3, 4].map((n) => event(clinic.id, n)),
    );
    const thirdId = await tamperAuditRow(t.db, clinic.id, 3, { discountValue: { old: 3, 'new': 99 } });
    expect(await verifyAuditChain(t.db, clinic.id)).toEqual({ intact: false, checked: 3, brokenAt: { id: thirdId, seq: 3 } });

    const other = await makeTenant(t.db);
    await appendAuditEvents(
      t.db,
      [1, 2, 3].map((n) => event(other.clinic.id, n)),
    );
    await t.db.transaction(async (tx) => {
      await tx.execute(sql`alter table audit_events disable trigger audit_events_no_change`);
      await tx.execute(sql`delete from audit_events where clinic_id = ${other.clinic.id}::uuid and seq = 2`);
      await tx.execute(sql`alter table audit_events enable trigger audit_events_no_change`);
    });
    const check = await verifyAuditChain(t.db, other.clinic.id);
    expect(check).toMatchObject({ intact: false, checked: 2, brokenAt: { seq: 3 } });
  });
});
