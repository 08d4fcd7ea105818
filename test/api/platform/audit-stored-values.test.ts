// The read-only report of audit rows written before the allowlist (issue 37; docs/audit-log.md, "Rows
// written before the allowlist"): which stored values the rule withholds now, counted by route and field,
// never printed.
import { describe, expect, it } from 'vitest';
import { storedValuesReport } from '../../../scripts/lib/recorded-values';
import { createApp } from '../../../src/app';
import { appendAuditEvents } from '../../../src/platform/audit/trail';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();
const app = createApp(async () => {
  throw new Error('declarations only');
});

describe('storedValuesReport', () => {
  it('counts the stored values the rule withholds now by route and field, and reads nothing else', async () => {
    const { clinic } = await makeTenant(t.db);
    const base = { clinicId: clinic.id, actorKind: 'key' as const, actorId: 'k1' };
    const ticket = '00000000-0000-4000-8000-000000000001';
    // As the name-fragment rule stored them before issue 37.
    await appendAuditEvents(t.db, [
      {
        ...base,
        action: 'support_ticket.updated',
        route: '/api/v1/support/tickets/{id}',
        targetType: 'support_ticket',
        targetId: ticket,
        changes: { title: { new: 'Patient Tess Dunn DOB 1980-02-03' }, status: { new: 'open' }, assignedUserId: { new: ticket } },
      },
      {
        ...base,
        action: 'coupon.updated',
        route: '/api/v1/coupons/{id}',
        targetType: 'coupon',
        changes: { code: { old: 'OLD10', new: 'NEW10' }, discountValue: { old: 10, new: 15 }, perCustomerLimit: { redacted: true } },
      },
      { ...base, action: 'retired.thing_done', route: '/api/v1/retired', targetType: 'retired', changes: { count: { new: 3 } } },
      { ...base, action: 'patient_data.read', route: '/api/v1/orders/{id}', targetType: 'order', targetId: ticket },
      { ...base, action: 'tag.created', route: '/api/v1/tags', targetType: 'tag', changes: { color: { new: '#112233' } } },
    ]);
    const report = await storedValuesReport(t.db, app);
    expect(report.read).toBeGreaterThanOrEqual(4);
    expect(report.rows).toBe(3);
    expect(report.clinics).toBe(1);
    expect(Object.fromEntries(report.fields)).toEqual({
      'support_ticket.updated /api/v1/support/tickets/{id} title': 1,
      'coupon.updated /api/v1/coupons/{id} code': 1,
      // A route that no longer exists declares nothing.
      'retired.thing_done /api/v1/retired count': 1,
    });
    expect(JSON.stringify([...report.fields])).not.toContain('Tess');
  });
});
