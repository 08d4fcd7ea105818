import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { makeClinic, makeKey, makeTenant } from '../../helpers/factories';
import { makeOrder, makeTitrationSchedule } from '../../helpers/order-fixtures';
import { makeProgram, makeTitrationProtocol } from '../../helpers/program-fixtures';

const t = useTestApp();
const DAY = 86_400_000;

describe('GET /api/v1/titration-schedule/fulfillment-held', () => {
  it("lists the clinic's held schedules, longest held first, with order, patient, program, protocol and daysOverdue", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const protocol = await makeTitrationProtocol(t.db);
    const program = await makeProgram(t.db, clinic.id, { name: 'GLP-1' });
    const order = await makeOrder(t.db, clinic.id, { programId: program.id });
    const now = Date.now();
    const older = await makeTitrationSchedule(t.db, clinic.id, order, protocol.id, {
      currentLevel: 1,
      heldSince: new Date(now - 10 * DAY),
      nextRevisitDueAt: new Date(now - 3 * DAY - 60_000),
      lastRevisitAt: new Date(now - 40 * DAY),
    });
    const bareOrder = await makeOrder(t.db, clinic.id);
    const newer = await makeTitrationSchedule(t.db, clinic.id, bareOrder, protocol.id, {
      heldSince: new Date(now - DAY),
      nextRevisitDueAt: new Date(now + DAY),
    });
    await makeTitrationSchedule(t.db, clinic.id, order, protocol.id, { status: 'active', heldSince: null });
    const other = await makeTenant(t.db);
    await makeTitrationSchedule(t.db, other.clinic.id, await makeOrder(t.db, other.clinic.id), protocol.id);

    const res = await t.request('/api/v1/titration-schedule/fulfillment-held', { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 });
    expect(body.data.map((s: { id: string }) => s.id)).toEqual([older.id, newer.id]);
    expect(body.data[0]).toEqual({
      id: older.id,
      currentLevel: 1,
      maxLevel: 2,
      status: 'held',
      nextRevisitDueAt: older.nextRevisitDueAt!.toISOString(),
      lastRevisitAt: older.lastRevisitAt!.toISOString(),
      heldSince: older.heldSince!.toISOString(),
      daysOverdue: 3,
      order: { id: order.id, orderNumber: order.orderNumber, status: 'paid' },
      user: { id: order.patientId, firstName: 'Pat', lastName: expect.any(String) },
      program: { id: program.id, name: 'GLP-1' },
      titrationProtocol: { id: protocol.id, name: protocol.name, maxLevel: 2 },
    });
    expect(body.data[1]).toMatchObject({ daysOverdue: 0, program: null });

    const page2 = await (await t.request('/api/v1/titration-schedule/fulfillment-held?limit=1&page=2', { key })).json();
    expect(page2.data.map((s: { id: string }) => s.id)).toEqual([newer.id]);
    expect((await t.request('/api/v1/titration-schedule/fulfillment-held?limit=500', { key })).status).toBe(400);
  });

  it('is open to sandbox keys, which see only their own (empty) clinic', async () => {
    const sandbox = await makeClinic(t.db, { mode: 'sandbox' });
    const { raw } = await makeKey(t.db, sandbox.id, { isSandbox: true });
    const res = await t.request('/api/v1/titration-schedule/fulfillment-held', { key: raw });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual([]);
  });
});
