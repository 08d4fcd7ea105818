import { describe, expect, it } from 'vitest';
import { LAB_STAGES } from '../../drizzle/schema';
import { feeBreakdownToAmounts } from '../../src/modules/orders/orders/fee-breakdown';
import { parseDateOrDateTime, toRange, windowQuery } from '../../src/modules/orders/orders/schemas';
import { buildLabStatus, buildVisitStatus, type LabLegRow } from '../../src/modules/orders/orders/status';
import { daysOverdue } from '../../src/modules/orders/titration-schedule/service';
import { likePattern } from '../../src/platform/db/sql';

const leg = (values: Partial<LabLegRow>): LabLegRow => ({
  isLabGated: true,
  stage: 'requisition_created',
  requisitionCreatedAt: 'R',
  deliveredToPatientAt: 'D',
  receivedByLabAt: 'L',
  resultsAvailableAt: 'X',
  kitToPatientCarrier: null,
  kitToPatientTrackingNumber: null,
  kitToLabCarrier: null,
  kitToLabTrackingNumber: null,
  ...values,
});

describe('buildLabStatus', () => {
  it('reaches the current stage and every one before it', () => {
    for (const [i, stage] of LAB_STAGES.entries()) {
      const status = buildLabStatus('o', null, leg({ stage }));
      expect(status.timeline.map((s) => s.stage)).toEqual([...LAB_STAGES]);
      expect(status.timeline.map((s) => s.reached)).toEqual(LAB_STAGES.map((_, j) => j <= i));
    }
  });
  it('never times the shipped_* stages, nor a stage not reached', () => {
    const all = buildLabStatus('o', null, leg({ stage: 'results' }));
    expect(all.timeline.map((s) => s.occurredAt)).toEqual(['R', null, 'D', null, 'L', 'X']);
    expect(all.resultsAvailableAt).toBe('X');
    expect(all.kitShipmentToPatient.deliveredAt).toBe('D');
    expect(all.kitShipmentToLab.receivedAt).toBe('L');
    const early = buildLabStatus('o', null, leg({ stage: 'shipped_to_patient' }));
    expect(early.timeline.map((s) => s.occurredAt)).toEqual(['R', null, null, null, null, null]);
    expect(early.resultsAvailableAt).toBeNull();
    expect(early.kitShipmentToPatient.deliveredAt).toBeNull();
  });
  it('without a lab leg, or with an unknown stage: stage null and nothing reached', () => {
    for (const status of [buildLabStatus('o', 'paid', null), buildLabStatus('o', 'paid', leg({ stage: 'mystery' }))]) {
      expect(status.stage).toBeNull();
      expect(status.timeline.every((s) => !s.reached && s.occurredAt === null)).toBe(true);
      expect(status.resultsAvailableAt).toBeNull();
    }
    expect(buildLabStatus('o', 'paid', null).isLabGated).toBe(false);
  });
});

describe('buildVisitStatus', () => {
  const visit = { bookingRequired: true, scheduledAt: 'S', lastSyncedAt: 'Y' };
  it('no row: not_booked with bookingRequired null', () => {
    expect(buildVisitStatus('o', null)).toEqual({
      orderId: 'o',
      visitStatus: 'not_booked',
      bookingRequired: null,
      scheduledAt: null,
      lastSyncedAt: null,
    });
  });
  it('shows scheduledAt for booked, no_show and concluded only', () => {
    expect(buildVisitStatus('o', { ...visit, status: 'booked' }).scheduledAt).toBe('S');
    expect(buildVisitStatus('o', { ...visit, status: 'no_show' }).scheduledAt).toBe('S');
    expect(buildVisitStatus('o', { ...visit, status: 'concluded' }).scheduledAt).toBe('S');
    expect(buildVisitStatus('o', { ...visit, status: 'cancelled' }).scheduledAt).toBeNull();
    expect(buildVisitStatus('o', { ...visit, status: 'not_booked' }).scheduledAt).toBeNull();
  });
  it('answers an unknown stored value as not_booked', () => {
    expect(buildVisitStatus('o', { ...visit, status: 'rescheduled' })).toMatchObject({
      visitStatus: 'not_booked',
      scheduledAt: null,
      lastSyncedAt: 'Y',
    });
  });
});

describe('order windows', () => {
  it('accepts real dates and date-times only', () => {
    expect(parseDateOrDateTime('2030-02-28')?.kind).toBe('date');
    expect(parseDateOrDateTime('2030-01-01T05:00:00+05:00')?.date.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    for (const bad of ['2030-02-30', '1969-12-31', '2030-1-1', '20300101', 'yesterday', '2030-01-01T00:00:00', ''])
      expect(parseDateOrDateTime(bad), bad).toBeNull();
  });
  it('makes a date end inclusive through the end of its day', () => {
    expect(toRange({ startDate: '2030-01-01', endDate: '2030-01-31' })).toEqual({
      from: new Date('2030-01-01T00:00:00.000Z'),
      to: new Date('2030-01-31T23:59:59.999Z'),
    });
    expect(toRange({})).toEqual({ from: null, to: null });
  });
  it('refuses an end before the start', () => {
    expect(windowQuery.safeParse({ startDate: '2030-02-01', endDate: '2030-01-31' }).success).toBe(false);
    expect(windowQuery.safeParse({ startDate: '2030-01-31', endDate: '2030-01-31' }).success).toBe(true);
  });
});

describe('small helpers', () => {
  it('converts every fee key to dollars, missing ones to 0', () => {
    expect(feeBreakdownToAmounts({ total: 12_345 })).toMatchObject({ total: 123.45, subtotal: 0, brandAmount: 0 });
  });
  it('escapes LIKE wildcards', () => {
    expect(likePattern('50%_a\\b')).toBe('%50\\%\\_a\\\\b%');
  });
  it('counts whole days overdue, 0 before due, null without a date', () => {
    const now = new Date('2030-01-10T12:00:00Z');
    expect(daysOverdue('2030-01-01T13:00:00.000Z', now)).toBe(8);
    expect(daysOverdue('2030-01-11T00:00:00.000Z', now)).toBe(0);
    expect(daysOverdue(null, now)).toBeNull();
  });
});
