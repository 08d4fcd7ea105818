import { describe, expect, it } from 'vitest';
import { LAB_STAGES, visits } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { makeLabLeg, makeOrder, makeVisit } from '../../helpers/order-fixtures';

const t = useTestApp();
const at = (iso: string) => new Date(iso);

describe('GET /api/v1/orders/{id}/lab-status', () => {
  it('lists all six stages in order, reached up to the current one, shipped_* never timed', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id, { status: 'awaiting_lab_results' });
    await makeLabLeg(t.db, clinic.id, order.id, {
      stage: 'shipped_to_lab',
      requisitionCreatedAt: at('2030-01-01T00:00:00Z'),
      deliveredToPatientAt: at('2030-01-03T00:00:00Z'),
      receivedByLabAt: at('2030-01-05T00:00:00Z'), // not reached: must not show
      kitToPatientCarrier: 'ups',
      kitToPatientTrackingNumber: 'K1',
      kitToLabCarrier: 'usps',
      kitToLabTrackingNumber: 'K2',
    });
    const res = await t.request(`/api/v1/orders/${order.id}/lab-status`, { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toEqual({
      orderId: order.id,
      isLabGated: true,
      orderStatus: 'awaiting_lab_results',
      stage: 'shipped_to_lab',
      timeline: [
        { stage: 'requisition_created', reached: true, occurredAt: '2030-01-01T00:00:00.000Z' },
        { stage: 'shipped_to_patient', reached: true, occurredAt: null },
        { stage: 'delivered_to_patient', reached: true, occurredAt: '2030-01-03T00:00:00.000Z' },
        { stage: 'shipped_to_lab', reached: true, occurredAt: null },
        { stage: 'received_by_lab', reached: false, occurredAt: null },
        { stage: 'results', reached: false, occurredAt: null },
      ],
      kitShipmentToPatient: { carrier: 'ups', trackingNumber: 'K1', deliveredAt: '2030-01-03T00:00:00.000Z' },
      kitShipmentToLab: { carrier: 'usps', trackingNumber: 'K2', receivedAt: null },
      resultsAvailableAt: null,
    });
  });

  it('answers results with resultsAvailableAt, and every stage for every value', async () => {
    const { clinic, key } = await makeTenant(t.db);
    for (const [i, stage] of LAB_STAGES.entries()) {
      const order = await makeOrder(t.db, clinic.id);
      await makeLabLeg(t.db, clinic.id, order.id, { stage, resultsAvailableAt: at('2030-01-09T00:00:00Z'), isLabGated: i % 2 === 0 });
      const { data } = await (await t.request(`/api/v1/orders/${order.id}/lab-status`, { key })).json();
      expect(data.stage).toBe(stage);
      expect(data.isLabGated).toBe(i % 2 === 0);
      expect(data.timeline.map((s: { reached: boolean }) => s.reached)).toEqual(LAB_STAGES.map((_, j) => j <= i));
      expect(data.resultsAvailableAt).toBe(stage === 'results' ? '2030-01-09T00:00:00.000Z' : null);
    }
  });

  it('answers 200 with stage null and nothing reached for an order without a lab leg', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const order = await makeOrder(t.db, clinic.id, { status: 'delivered' });
    const { data } = await (await t.request(`/api/v1/orders/${order.id}/lab-status`, { key })).json();
    expect(data).toMatchObject({ stage: null, isLabGated: false, orderStatus: 'delivered', resultsAvailableAt: null });
    expect(data.timeline).toHaveLength(6);
    expect(data.timeline.every((s: { reached: boolean; occurredAt: null }) => !s.reached && s.occurredAt === null)).toBe(true);
    expect(data.kitShipmentToPatient).toEqual({ carrier: null, trackingNumber: null, deliveredAt: null });
  });
});

describe('GET /api/v1/orders/{id}/visit-status', () => {
  it('answers each of the five values; scheduledAt kept after no_show', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const scheduledAt = at('2030-04-01T15:00:00Z');
    const expected = {
      not_booked: null,
      booked: '2030-04-01T15:00:00.000Z',
      no_show: '2030-04-01T15:00:00.000Z',
      concluded: '2030-04-01T15:00:00.000Z',
      cancelled: null,
    };
    for (const [status, shown] of Object.entries(expected)) {
      const order = await makeOrder(t.db, clinic.id);
      await makeVisit(t.db, clinic.id, order.id, { status: status as 'booked', scheduledAt, lastSyncedAt: at('2030-03-30T00:00:00Z') });
      const res = await t.request(`/api/v1/orders/${order.id}/visit-status`, { key });
      expect(res.status).toBe(200);
      expect((await res.json()).data).toEqual({
        orderId: order.id,
        visitStatus: status,
        bookingRequired: true,
        scheduledAt: shown,
        lastSyncedAt: '2030-03-30T00:00:00.000Z',
      });
    }
  });

  it('keeps bookingRequired null (unknown) and false (asynchronous); no visit row is not_booked with null', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const legacy = await makeOrder(t.db, clinic.id);
    await makeVisit(t.db, clinic.id, legacy.id, { bookingRequired: null });
    const asyncOrder = await makeOrder(t.db, clinic.id);
    await makeVisit(t.db, clinic.id, asyncOrder.id, { bookingRequired: false });
    const bare = await makeOrder(t.db, clinic.id);
    const read = async (id: string) => (await (await t.request(`/api/v1/orders/${id}/visit-status`, { key })).json()).data;
    expect((await read(legacy.id)).bookingRequired).toBeNull();
    expect((await read(asyncOrder.id)).bookingRequired).toBe(false);
    expect(await read(bare.id)).toEqual({
      orderId: bare.id,
      visitStatus: 'not_booked',
      bookingRequired: null,
      scheduledAt: null,
      lastSyncedAt: null,
    });
    void visits;
  });
});
