// applyPlatformEvent: one platform event applied to one order, inside the caller's transaction.
import { and, desc, eq } from 'drizzle-orm';
import {
  type LabStage,
  labLegs,
  type OrderStatus,
  orderEvents,
  orders,
  payments,
  shipments,
  type VisitStatus,
  visits,
} from '../../../../../drizzle/schema';
import type { Queryable } from '../../../../platform/db/client';
import { notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { appendLedgerEntries } from '../../ledger/entries';
import { chargeLedgerMovements } from './fees';
import {
  illegalTransition,
  LAB_TRANSITIONS,
  nextLabStage,
  nextOrderStatus,
  nextVisitStatus,
  ORDER_TRANSITIONS,
  VISIT_SIDE_EFFECTS,
  VISIT_TRANSITIONS,
} from './machine';
import { writeLifecycleOutboxEvent } from './outbox';
import type { ActorType, PlatformEvent } from './platform-events';

export interface ApplyOptions {
  /** When the event happened (default: now); the seeder back-dates its demo histories with it. */
  now?: Date;
  /** Overrides the event's default actor (ORDER_TRANSITIONS[event].actor). */
  actorType?: ActorType;
}

export interface AppliedEvent {
  orderEventId: string;
  eventType: PlatformEvent['event'];
  fromStatus: OrderStatus;
  toStatus: OrderStatus;
}

/** The storage key a doctor's prescription PDF is filed under (hasPrescriptionPdf reads its presence). */
export const prescriptionPdfKey = (clinicId: string, orderId: string) => `prescriptions/${clinicId}/${orderId}.pdf`;

/** The order row, locked for this transaction (select ... for update); 404 for unknown, malformed and other-clinic ids. */
export async function lockOrder(tx: Queryable, clinicId: string, orderId: string) {
  if (!isUuid(orderId)) throw notFound('Order');
  const [order] = await tx
    .select()
    .from(orders)
    .where(and(eq(orders.clinicId, clinicId), eq(orders.id, orderId)))
    .for('update');
  if (!order) throw notFound('Order');
  return order;
}

/**
 * Applies one platform event to one order in the caller's transaction: locks the order, checks the
 * transition (409 ILLEGAL_TRANSITION), updates the order and the parts the event touches (payments
 * and the ledger, shipments, visit, lab leg), appends an order_events row and hands the event to the
 * outbox hook. Throws 404 for an order that is not the clinic's.
 */
export async function applyPlatformEvent(
  tx: Queryable,
  clinicId: string,
  orderId: string,
  event: PlatformEvent,
  options: ApplyOptions = {},
): Promise<AppliedEvent> {
  const now = options.now ?? new Date();
  const order = await lockOrder(tx, clinicId, orderId);
  const type = event.event;
  const touchesLab = type === 'payment.succeeded' || type in LAB_TRANSITIONS;
  const touchesVisit = type in VISIT_TRANSITIONS || type in VISIT_SIDE_EFFECTS;
  const [lab] = touchesLab
    ? await tx
        .select()
        .from(labLegs)
        .where(and(eq(labLegs.clinicId, clinicId), eq(labLegs.orderId, orderId)))
    : [];
  const [visit] = touchesVisit
    ? await tx
        .select()
        .from(visits)
        .where(and(eq(visits.clinicId, clinicId), eq(visits.orderId, orderId)))
    : [];

  // Every check before any write.
  const fromStatus = order.status;
  const toStatus = nextOrderStatus(type, fromStatus, { labPending: !!lab && lab.isLabGated && lab.stage !== 'results' });
  const visitTo = nextVisitStatus(type, visit?.status ?? null);
  const labTo = nextLabStage(type, lab?.stage ?? null);
  const latestShipment =
    type === 'shipment.updated' || type === 'order.delivered'
      ? (
          await tx
            .select()
            .from(shipments)
            .where(and(eq(shipments.clinicId, clinicId), eq(shipments.orderId, orderId)))
            .orderBy(desc(shipments.createdAt), desc(shipments.id))
            .limit(1)
        )[0]
      : undefined;
  if (type === 'shipment.updated' && !latestShipment)
    throw illegalTransition('shipment.updated needs an order with a shipment; this order has none');

  const metadata: Record<string, unknown> = { fromStatus, toStatus };
  const orderChanges: Partial<typeof orders.$inferInsert> = { status: toStatus, updatedAt: now };

  switch (event.event) {
    case 'payment.succeeded': {
      const latest = await latestPayment(tx, clinicId, orderId);
      const values = {
        status: 'succeeded' as const,
        succeededAt: now,
        processorPaymentId: event.processorPaymentId ?? `pi_dev_${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`,
      };
      if (latest?.status === 'pending') await tx.update(payments).set(values).where(eq(payments.id, latest.id));
      else await tx.insert(payments).values({ ...values, clinicId, orderId, amountCents: order.totalCents, createdAt: now });
      await appendLedgerEntries(tx, clinicId, chargeLedgerMovements(orderId, order.feeBreakdown, now));
      orderChanges.paidAt = now;
      metadata.amountCents = order.totalCents;
      break;
    }
    case 'payment.failed': {
      const latest = await latestPayment(tx, clinicId, orderId);
      const values = { status: 'failed' as const, failureReason: event.failureReason, failedAt: now };
      if (latest?.status === 'pending') await tx.update(payments).set(values).where(eq(payments.id, latest.id));
      else await tx.insert(payments).values({ ...values, clinicId, orderId, amountCents: order.totalCents, createdAt: now });
      metadata.failureReason = event.failureReason;
      break;
    }
    case 'order.doctor_approved':
      orderChanges.approvedByDoctor = true;
      orderChanges.prescriptionPdfKey = prescriptionPdfKey(clinicId, orderId);
      break;
    case 'order.doctor_denied':
    case 'order.cancelled':
      if (event.reason) metadata.reason = event.reason;
      if (event.event === 'order.cancelled') orderChanges.cancelledAt = now;
      break;
    case 'order.shipped':
      await tx.insert(shipments).values({
        clinicId,
        orderId,
        status: 'in_transit',
        carrier: event.carrier,
        trackingNumber: event.trackingNumber,
        trackingUrl: event.trackingUrl ?? null,
        shippedAt: now,
        createdAt: now,
        updatedAt: now,
      });
      orderChanges.shippedAt = now;
      Object.assign(metadata, { carrier: event.carrier, trackingNumber: event.trackingNumber });
      break;
    case 'shipment.updated': {
      const changes = {
        status: event.status,
        ...(event.carrier !== undefined ? { carrier: event.carrier } : {}),
        ...(event.trackingNumber !== undefined ? { trackingNumber: event.trackingNumber } : {}),
        ...(event.trackingUrl !== undefined ? { trackingUrl: event.trackingUrl } : {}),
        updatedAt: now,
      };
      await tx.update(shipments).set(changes).where(eq(shipments.id, latestShipment!.id));
      Object.assign(metadata, { shipmentId: latestShipment!.id, shipmentStatus: event.status });
      break;
    }
    case 'order.delivered':
      orderChanges.deliveredAt = now;
      if (latestShipment)
        await tx
          .update(shipments)
          .set({ status: 'delivered', deliveredAt: now, updatedAt: now })
          .where(eq(shipments.id, latestShipment.id));
      break;
    case 'appointment.cancelled':
      orderChanges.cancelledAt = now;
      break;
    case 'appointment.scheduled':
      metadata.scheduledAt = new Date(event.scheduledAt).toISOString();
      break;
    case 'lab.kit_shipped':
    case 'lab.sample_shipped':
      Object.assign(metadata, { carrier: event.carrier, trackingNumber: event.trackingNumber });
      break;
    default:
      break;
  }

  if (toStatus !== fromStatus || Object.keys(orderChanges).length > 2) {
    await tx.update(orders).set(orderChanges).where(eq(orders.id, orderId));
  }
  if (visit && visitTo !== visit.status) {
    await tx
      .update(visits)
      .set(visitChanges(event, visitTo!, now))
      .where(eq(visits.id, visit.id));
    Object.assign(metadata, { visitFrom: visit.status, visitTo });
  }
  if (lab && labTo !== lab.stage) {
    await tx
      .update(labLegs)
      .set(labChanges(event, labTo!, now))
      .where(eq(labLegs.id, lab.id));
    Object.assign(metadata, { labStageFrom: lab.stage, labStageTo: labTo });
  }

  const [written] = await tx
    .insert(orderEvents)
    .values({
      clinicId,
      orderId,
      eventType: type,
      actorType: options.actorType ?? ORDER_TRANSITIONS[type].actor,
      metadata,
      createdAt: now,
    })
    .returning({ id: orderEvents.id });
  await writeLifecycleOutboxEvent(tx, clinicId, { name: type, orderId, orderEventId: written!.id, occurredAt: now });
  return { orderEventId: written!.id, eventType: type, fromStatus, toStatus };
}

async function latestPayment(tx: Queryable, clinicId: string, orderId: string) {
  const [row] = await tx
    .select({ id: payments.id, status: payments.status })
    .from(payments)
    .where(and(eq(payments.clinicId, clinicId), eq(payments.orderId, orderId)))
    .orderBy(desc(payments.createdAt), desc(payments.id))
    .limit(1);
  return row;
}

/** Booked keeps the new scheduledAt; no_show and concluded keep the one they had; cancelled clears it (nothing is scheduled). */
function visitChanges(event: PlatformEvent, to: VisitStatus, now: Date): Partial<typeof visits.$inferInsert> {
  const changes: Partial<typeof visits.$inferInsert> = { status: to, lastSyncedAt: now, updatedAt: now };
  if (event.event === 'appointment.scheduled') changes.scheduledAt = new Date(event.scheduledAt);
  if (to === 'cancelled') changes.scheduledAt = null;
  return changes;
}

/** The stage and the timestamp or shipment of the stage reached (shipped_* stages carry carrier and tracking, no time). */
function labChanges(event: PlatformEvent, to: LabStage, now: Date): Partial<typeof labLegs.$inferInsert> {
  const changes: Partial<typeof labLegs.$inferInsert> = { stage: to, updatedAt: now };
  if (event.event === 'lab.kit_shipped')
    Object.assign(changes, { kitToPatientCarrier: event.carrier, kitToPatientTrackingNumber: event.trackingNumber });
  if (event.event === 'lab.sample_shipped')
    Object.assign(changes, { kitToLabCarrier: event.carrier, kitToLabTrackingNumber: event.trackingNumber });
  if (to === 'delivered_to_patient') changes.deliveredToPatientAt = now;
  if (to === 'received_by_lab') changes.receivedByLabAt = now;
  if (to === 'results') changes.resultsAvailableAt = now;
  return changes;
}
