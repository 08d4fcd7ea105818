// The fee waterfall and the state machine's tables, rule by rule (docs/order-lifecycle.md).
import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES } from '../../drizzle/schema';
import { orderNumberPrefix } from '../../src/modules/orders/orders/lifecycle/create';
import {
  chargeLedgerMovements,
  computeFeeBreakdown,
  DEFAULT_DOCTOR_FEE_CENTS,
  feeBreakdownAddsUp,
  processorFeeCents,
  roundHalfUpRatio,
} from '../../src/modules/orders/orders/lifecycle/fees';
import { nextLabStage, nextOrderStatus, nextVisitStatus, ORDER_TRANSITIONS } from '../../src/modules/orders/orders/lifecycle/machine';
import { PLATFORM_EVENT, PLATFORM_EVENT_NAMES } from '../../src/modules/orders/orders/lifecycle/platform-events';

const item = (unitPriceCents: number, quantity = 1, pharmacyCostCents = 0, facilitationFeeCents = 0) => ({
  unitPriceCents,
  quantity,
  pharmacyCostCents,
  facilitationFeeCents,
});

describe('computeFeeBreakdown', () => {
  it('rule 1: subtotal is the sum of unit price x quantity', () => {
    expect(computeFeeBreakdown({ items: [item(1_000, 3), item(250, 2)], doctorFeeCents: 0 }).subtotal).toBe(3_500);
  });

  it('rule 2: the discount may not exceed the subtotal', () => {
    expect(computeFeeBreakdown({ items: [item(1_000)], discountCents: 1_000, doctorFeeCents: 0 }).discount).toBe(1_000);
    expect(() => computeFeeBreakdown({ items: [item(1_000)], discountCents: 1_001 })).toThrow(/exceeds the subtotal/);
  });

  it('rule 3: total = subtotal - discount + tax + shipping', () => {
    const b = computeFeeBreakdown({ items: [item(10_000)], discountCents: 1_000, taxCents: 720, shippingCents: 500 });
    expect(b.total).toBe(10_000 - 1_000 + 720 + 500);
  });

  it('rule 4: pharmacy cost is per unit x quantity', () => {
    expect(computeFeeBreakdown({ items: [item(10_000, 2, 3_000), item(500, 1, 0)] }).pharmacyCost).toBe(6_000);
  });

  it('rule 5: doctor fee defaults to $15 and can be named (0 included)', () => {
    expect(computeFeeBreakdown({ items: [item(10_000)] }).doctorFee).toBe(DEFAULT_DOCTOR_FEE_CENTS);
    expect(DEFAULT_DOCTOR_FEE_CENTS).toBe(1_500);
    expect(computeFeeBreakdown({ items: [item(10_000)], doctorFeeCents: 0 }).doctorFee).toBe(0);
  });

  it('rule 6: processor fee is 2.9% of the total rounded half up, plus 30 cents; 0 when nothing is charged', () => {
    expect(processorFeeCents(10_000)).toBe(290 + 30);
    expect(processorFeeCents(50)).toBe(1 + 30); // 1.45 -> 1
    expect(processorFeeCents(1_950)).toBe(57 + 30); // 56.55 -> 57 (half up)
    expect(processorFeeCents(1_948)).toBe(56 + 30); // 56.492 -> 56
    expect(processorFeeCents(0)).toBe(0);
    expect(computeFeeBreakdown({ items: [item(1_000)], discountCents: 1_000, doctorFeeCents: 0 }).processorFee).toBe(0);
    // On the total, tax and shipping included.
    expect(computeFeeBreakdown({ items: [item(9_000)], taxCents: 500, shippingCents: 500 }).processorFee).toBe(processorFeeCents(10_000));
  });

  it('rule 7: platform fee = facilitation fees x quantity + basis points of (subtotal - discount), half up', () => {
    expect(computeFeeBreakdown({ items: [item(10_000, 2, 3_000, 1_000)] }).platformFee).toBe(2_000);
    // 2.5% of 99.90 = 2.4975 -> 2.50
    expect(computeFeeBreakdown({ items: [item(10_000)], discountCents: 10, platformFeeBasisPoints: 250 }).platformFee).toBe(250);
    // 1% of 1.50 = 0.015 -> 0.02 (half up), of 1.49 -> 0.01
    expect(computeFeeBreakdown({ items: [item(150)], platformFeeBasisPoints: 100, doctorFeeCents: 0 }).platformFee).toBe(2);
    expect(computeFeeBreakdown({ items: [item(149)], platformFeeBasisPoints: 100, doctorFeeCents: 0 }).platformFee).toBe(1);
  });

  it('rule 8: brandAmount is what is left, the discount coming out of it; both identities hold', () => {
    const b = computeFeeBreakdown({
      items: [item(19_900, 1, 8_000, 1_000)],
      discountCents: 1_990,
      taxCents: 1_234,
      shippingCents: 999,
      platformFeeBasisPoints: 125,
    });
    expect(b.brandAmount).toBe(19_900 - 1_990 - 8_000 - 1_500 - b.processorFee - b.platformFee);
    expect(feeBreakdownAddsUp(b)).toBe(true);
    expect(b.subtotal - b.discount + b.tax + b.shipping).toBe(b.total);
    expect(b.pharmacyCost + b.doctorFee + b.processorFee + b.platformFee + b.tax + b.shipping + b.brandAmount).toBe(b.total);
  });

  it('adds up for many amounts (every rounding case)', () => {
    for (let price = 1; price < 40_000; price += 97) {
      const b = computeFeeBreakdown({
        items: [item(price, 1 + (price % 3), Math.floor(price / 3))],
        discountCents: price % 500 > price ? 0 : price % 500,
        taxCents: price % 77,
        shippingCents: price % 2 ? 500 : 0,
        platformFeeBasisPoints: price % 300,
      });
      expect(feeBreakdownAddsUp(b), String(price)).toBe(true);
      for (const value of Object.values(b)) expect(Number.isInteger(value)).toBe(true);
    }
  });

  it('brandAmount may be negative when the fees exceed the rest (checkout refuses such orders)', () => {
    expect(computeFeeBreakdown({ items: [item(1_000, 1, 900)] }).brandAmount).toBeLessThan(0);
  });

  it('refuses non-integer, negative and empty input', () => {
    expect(() => computeFeeBreakdown({ items: [] })).toThrow(RangeError);
    expect(() => computeFeeBreakdown({ items: [item(10.5)] })).toThrow(RangeError);
    expect(() => computeFeeBreakdown({ items: [item(100, 0)] })).toThrow(RangeError);
    expect(() => computeFeeBreakdown({ items: [item(100)], taxCents: -1 })).toThrow(RangeError);
    expect(() => computeFeeBreakdown({ items: [item(100)], platformFeeBasisPoints: 10_001 })).toThrow(RangeError);
  });

  it('roundHalfUpRatio rounds exactly half up', () => {
    expect(roundHalfUpRatio(5, 1, 10)).toBe(1);
    expect(roundHalfUpRatio(4, 1, 10)).toBe(0);
    expect(roundHalfUpRatio(15, 1, 10)).toBe(2);
  });
});

describe('chargeLedgerMovements', () => {
  it('credits the total, debits every part that is not the brand’s, and sums to brandAmount', () => {
    const b = computeFeeBreakdown({ items: [item(19_900, 1, 8_000, 1_000)], taxCents: 1_234, shippingCents: 999 });
    const movements = chargeLedgerMovements('00000000-0000-4000-8000-000000000001', b);
    expect(movements[0]).toMatchObject({ type: 'charge', amountCents: b.total });
    expect(movements.reduce((sum, m) => sum + m.amountCents, 0)).toBe(b.brandAmount);
    expect(movements.map((m) => m.type)).toEqual([
      'charge',
      'pharmacy_cost',
      'pharmacy_cost',
      'doctor_fee',
      'processor_fee',
      'platform_fee',
      'platform_fee',
    ]);
  });

  it('skips zero parts', () => {
    const b = computeFeeBreakdown({ items: [item(5_000)], doctorFeeCents: 0 });
    expect(chargeLedgerMovements('x', b).map((m) => m.type)).toEqual(['charge', 'processor_fee']);
  });
});

describe('state machine', () => {
  it('has a transition for every event, from known statuses only', () => {
    expect(Object.keys(ORDER_TRANSITIONS).sort()).toEqual([...PLATFORM_EVENT_NAMES].sort());
    for (const t of Object.values(ORDER_TRANSITIONS)) for (const s of t.from) expect(ORDER_STATUSES).toContain(s);
  });

  it('the happy path: pending -> paid -> approved -> pharmacy -> shipped -> delivered', () => {
    const none = { labPending: false };
    expect(nextOrderStatus('payment.succeeded', 'pending_payment', none)).toBe('paid');
    expect(nextOrderStatus('order.doctor_approved', 'paid', none)).toBe('doctor_approved');
    expect(nextOrderStatus('order.sent_to_pharmacy', 'doctor_approved', none)).toBe('sent_to_pharmacy');
    expect(nextOrderStatus('order.shipped', 'sent_to_pharmacy', none)).toBe('shipped');
    expect(nextOrderStatus('shipment.updated', 'shipped', none)).toBe('shipped');
    expect(nextOrderStatus('order.delivered', 'shipped', none)).toBe('delivered');
  });

  it('lab-gated orders wait for results, then for the doctor', () => {
    expect(nextOrderStatus('payment.succeeded', 'payment_failed', { labPending: true })).toBe('awaiting_lab_results');
    expect(nextOrderStatus('lab.results_available', 'awaiting_lab_results', { labPending: true })).toBe('awaiting_doctor_review');
    expect(nextOrderStatus('lab.results_available', 'pending_payment', { labPending: true })).toBe('pending_payment');
    expect(nextOrderStatus('order.doctor_denied', 'awaiting_doctor_review', { labPending: false })).toBe('doctor_denied');
  });

  it('refuses illegal transitions with 409 ILLEGAL_TRANSITION naming the allowed statuses', () => {
    const attempt = () => nextOrderStatus('order.shipped', 'paid', { labPending: false });
    expect(attempt).toThrow(/order.shipped is not allowed for an order in status paid \(allowed from: sent_to_pharmacy\)/);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ status: 409, code: 'ILLEGAL_TRANSITION' });
    }
    expect(() => nextOrderStatus('order.cancelled', 'shipped', { labPending: false })).toThrow(/not allowed/);
    expect(() => nextOrderStatus('payment.succeeded', 'paid', { labPending: false })).toThrow(/not allowed/);
  });

  it('visits: booked, no_show (rebookable), concluded, cancelled; doctor decisions conclude a booked visit', () => {
    expect(nextVisitStatus('appointment.scheduled', 'not_booked')).toBe('booked');
    expect(nextVisitStatus('appointment.no_show', 'booked')).toBe('no_show');
    expect(nextVisitStatus('appointment.scheduled', 'no_show')).toBe('booked');
    expect(nextVisitStatus('appointment.concluded', 'booked')).toBe('concluded');
    expect(nextVisitStatus('appointment.cancelled', 'booked')).toBe('cancelled');
    expect(() => nextVisitStatus('appointment.no_show', 'not_booked')).toThrow(/not allowed for a visit/);
    expect(() => nextVisitStatus('appointment.scheduled', null)).toThrow(/has none/);
    expect(nextVisitStatus('order.doctor_approved', 'booked')).toBe('concluded');
    expect(nextVisitStatus('order.doctor_approved', 'not_booked')).toBe('not_booked');
    expect(nextVisitStatus('order.cancelled', 'concluded')).toBe('concluded');
    expect(nextVisitStatus('order.shipped', null)).toBeNull();
  });

  it('lab stages move forward one at a time only', () => {
    expect(nextLabStage('lab.kit_shipped', 'requisition_created')).toBe('shipped_to_patient');
    expect(nextLabStage('lab.results_available', 'received_by_lab')).toBe('results');
    expect(() => nextLabStage('lab.sample_received', 'requisition_created')).toThrow(/this one is at requisition_created/);
    expect(() => nextLabStage('lab.kit_shipped', 'results')).toThrow(ILLEGAL());
    expect(() => nextLabStage('lab.kit_shipped', null)).toThrow(/has none/);
  });

  it('event bodies: each event names its fields, strictly', () => {
    expect(PLATFORM_EVENT.safeParse({ event: 'payment.failed', failureReason: 'card_declined' }).success).toBe(true);
    expect(PLATFORM_EVENT.safeParse({ event: 'payment.failed' }).success).toBe(false);
    expect(PLATFORM_EVENT.safeParse({ event: 'order.delivered', extra: 1 }).success).toBe(false);
    expect(PLATFORM_EVENT.safeParse({ event: 'order.refunded' }).success).toBe(false);
    expect(PLATFORM_EVENT.safeParse({ event: 'appointment.scheduled', scheduledAt: 'tomorrow' }).success).toBe(false);
  });

  it('order number prefixes come from the clinic slug', () => {
    expect(orderNumberPrefix('demo-clinic')).toBe('DEM');
    expect(orderNumberPrefix('h4-rb')).toBe('HRB');
    expect(orderNumberPrefix('42')).toBe('ORD');
  });
});

function ILLEGAL() {
  return /moves a lab leg/;
}
