// The order lifecycle's state machine: which platform event may move an order (and its visit and lab
// leg) from which state to which. The tables here are the documentation's tables
// (docs/order-lifecycle.md, "Transitions"); applyPlatformEvent (apply.ts) enforces them.
import type { LabStage, OrderStatus, VisitStatus } from '../../../../../drizzle/schema';
import { ApiError } from '../../../../platform/values/errors';
import type { ActorType, PlatformEventName } from './platform-events';

/** Orders whose visit may still be booked, moved or missed. */
export const VISIT_OPEN_STATUSES = [
  'pending_payment',
  'payment_failed',
  'paid',
  'awaiting_lab_results',
  'awaiting_doctor_review',
] as const satisfies readonly OrderStatus[];
/** Orders the platform may still cancel: nothing has gone to the pharmacy yet. */
export const CANCELLABLE_STATUSES = [...VISIT_OPEN_STATUSES, 'doctor_approved'] as const satisfies readonly OrderStatus[];
/** Orders whose lab leg may still advance: every status but the three ends that stop the order. */
export const LAB_OPEN_STATUSES = [
  'pending_payment',
  'payment_failed',
  'paid',
  'awaiting_lab_results',
  'awaiting_doctor_review',
  'doctor_approved',
  'sent_to_pharmacy',
  'shipped',
  'delivered',
] as const satisfies readonly OrderStatus[];

export interface OrderTransition {
  /** Order statuses the event is allowed in. */
  from: readonly OrderStatus[];
  /** The status it moves the order to; null: unchanged. Two are computed (see nextOrderStatus). */
  to: OrderStatus | null;
  /** Who causes it (order_events.actor_type). */
  actor: ActorType;
}

export const ORDER_TRANSITIONS: Record<PlatformEventName, OrderTransition> = {
  'payment.succeeded': { from: ['pending_payment', 'payment_failed'], to: 'paid', actor: 'processor' },
  'payment.failed': { from: ['pending_payment', 'payment_failed'], to: 'payment_failed', actor: 'processor' },
  'order.doctor_approved': { from: ['paid', 'awaiting_doctor_review'], to: 'doctor_approved', actor: 'doctor' },
  'order.doctor_denied': { from: ['paid', 'awaiting_doctor_review'], to: 'doctor_denied', actor: 'doctor' },
  'order.sent_to_pharmacy': { from: ['doctor_approved'], to: 'sent_to_pharmacy', actor: 'system' },
  'order.shipped': { from: ['sent_to_pharmacy'], to: 'shipped', actor: 'pharmacy' },
  'shipment.updated': { from: ['shipped'], to: null, actor: 'carrier' },
  'order.delivered': { from: ['shipped'], to: 'delivered', actor: 'carrier' },
  'order.cancelled': { from: CANCELLABLE_STATUSES, to: 'cancelled', actor: 'system' },
  'appointment.scheduled': { from: VISIT_OPEN_STATUSES, to: null, actor: 'patient' },
  'appointment.no_show': { from: VISIT_OPEN_STATUSES, to: null, actor: 'doctor' },
  'appointment.concluded': { from: VISIT_OPEN_STATUSES, to: null, actor: 'doctor' },
  'appointment.cancelled': { from: CANCELLABLE_STATUSES, to: 'cancelled', actor: 'patient' },
  'lab.kit_shipped': { from: LAB_OPEN_STATUSES, to: null, actor: 'lab' },
  'lab.kit_delivered': { from: LAB_OPEN_STATUSES, to: null, actor: 'carrier' },
  'lab.sample_shipped': { from: LAB_OPEN_STATUSES, to: null, actor: 'patient' },
  'lab.sample_received': { from: LAB_OPEN_STATUSES, to: null, actor: 'lab' },
  'lab.results_available': { from: LAB_OPEN_STATUSES, to: null, actor: 'lab' },
};

/** Visit moves: only these events touch the visit, and only from these visit statuses. */
export const VISIT_TRANSITIONS: Partial<Record<PlatformEventName, { from: readonly VisitStatus[]; to: VisitStatus }>> = {
  'appointment.scheduled': { from: ['not_booked', 'booked', 'no_show'], to: 'booked' },
  'appointment.no_show': { from: ['booked'], to: 'no_show' },
  'appointment.concluded': { from: ['booked'], to: 'concluded' },
  'appointment.cancelled': { from: ['not_booked', 'booked', 'no_show'], to: 'cancelled' },
};

/** Side effects on the visit, never refused: the doctor's decision concludes a booked visit; a cancelled order cancels an open one. */
export const VISIT_SIDE_EFFECTS: Partial<Record<PlatformEventName, { from: readonly VisitStatus[]; to: VisitStatus }>> = {
  'order.doctor_approved': { from: ['booked'], to: 'concluded' },
  'order.doctor_denied': { from: ['booked'], to: 'concluded' },
  'order.cancelled': { from: ['not_booked', 'booked', 'no_show'], to: 'cancelled' },
};

/** Lab-stage advances: forward only, one stage at a time. */
export const LAB_TRANSITIONS: Partial<Record<PlatformEventName, { from: LabStage; to: LabStage }>> = {
  'lab.kit_shipped': { from: 'requisition_created', to: 'shipped_to_patient' },
  'lab.kit_delivered': { from: 'shipped_to_patient', to: 'delivered_to_patient' },
  'lab.sample_shipped': { from: 'delivered_to_patient', to: 'shipped_to_lab' },
  'lab.sample_received': { from: 'shipped_to_lab', to: 'received_by_lab' },
  'lab.results_available': { from: 'received_by_lab', to: 'results' },
};

export const illegalTransition = (message: string) => new ApiError(409, 'ILLEGAL_TRANSITION', message);

/** What the order's lab leg says about the order's status: a lab-gated leg whose results are not in yet holds it. */
export interface LabContext {
  labPending: boolean;
}

/**
 * The order status after `event`, or a 409 ILLEGAL_TRANSITION naming the allowed statuses.
 * payment.succeeded goes to awaiting_lab_results instead of paid while a lab-gated leg awaits its
 * results; lab.results_available moves awaiting_lab_results on to awaiting_doctor_review.
 */
export function nextOrderStatus(event: PlatformEventName, current: OrderStatus, lab: LabContext): OrderStatus {
  const transition = ORDER_TRANSITIONS[event];
  if (!transition.from.includes(current)) {
    throw illegalTransition(`${event} is not allowed for an order in status ${current} (allowed from: ${transition.from.join(', ')})`);
  }
  if (event === 'payment.succeeded' && lab.labPending) return 'awaiting_lab_results';
  if (event === 'lab.results_available') return current === 'awaiting_lab_results' ? 'awaiting_doctor_review' : current;
  return transition.to ?? current;
}

/** The visit status after an appointment event, or 409 (no visit, or a visit status the event does not leave from). */
export function nextVisitStatus(event: PlatformEventName, current: VisitStatus | null): VisitStatus | null {
  const transition = VISIT_TRANSITIONS[event];
  if (transition) {
    if (current === null) throw illegalTransition(`${event} needs an order with a visit; this order has none`);
    if (!transition.from.includes(current)) {
      throw illegalTransition(`${event} is not allowed for a visit in status ${current} (allowed from: ${transition.from.join(', ')})`);
    }
    return transition.to;
  }
  const effect = VISIT_SIDE_EFFECTS[event];
  if (effect && current !== null && effect.from.includes(current)) return effect.to;
  return current;
}

/** The lab stage after a lab event, or 409 (no lab leg, or not the next stage). */
export function nextLabStage(event: PlatformEventName, current: LabStage | null): LabStage | null {
  const transition = LAB_TRANSITIONS[event];
  if (!transition) return current;
  if (current === null) throw illegalTransition(`${event} needs an order with a lab leg; this order has none`);
  if (current !== transition.from) {
    throw illegalTransition(`${event} moves a lab leg from ${transition.from} to ${transition.to}; this one is at ${current}`);
  }
  return transition.to;
}
