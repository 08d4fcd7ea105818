// The order's lifecycle state as the development simulator answers it: the order, its latest payment
// and shipment, its lab leg and visit (null when it has none). Money in dollars, like the API.
import { sql } from 'drizzle-orm';
import type { Queryable } from '../../../../platform/db/client';
import { rowsOf } from '../../../../platform/db/sql';
import { centsToAmount } from '../../../../platform/values/money';
import type { LabLegRow } from '../status';

const iso = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());

interface Row {
  id: string;
  orderNumber: string;
  status: string;
  approvedByDoctor: boolean;
  totalCents: number;
  brandAmountCents: number;
  paidAt: string | null;
  shippedAt: string | null;
  deliveredAt: string | null;
  cancelledAt: string | null;
  payment: {
    id: string;
    status: string;
    amountCents: number;
    failureReason: string | null;
    failedAt: string | null;
    succeededAt: string | null;
  } | null;
  shipment: {
    id: string;
    status: string;
    carrier: string | null;
    trackingNumber: string | null;
    trackingUrl: string | null;
    shippedAt: string | null;
    deliveredAt: string | null;
  } | null;
  labLeg: LabLegRow | null;
  visit: { status: string; bookingRequired: boolean | null; scheduledAt: string | null; lastSyncedAt: string | null } | null;
}

/** One query (the order and its parts as json objects); null when the order is not the clinic's. */
export async function readLifecycleState(db: Queryable, clinicId: string, orderId: string) {
  const [row] = await rowsOf<Row>(
    db,
    sql`
    select o.id, o.order_number as "orderNumber", o.status, o.approved_by_doctor as "approvedByDoctor",
      o.total_cents as "totalCents", o.brand_amount_cents as "brandAmountCents",
      o.paid_at as "paidAt", o.shipped_at as "shippedAt", o.delivered_at as "deliveredAt", o.cancelled_at as "cancelledAt",
      (select json_build_object('id', p.id, 'status', p.status, 'amountCents', p.amount_cents, 'failureReason', p.failure_reason,
                                'failedAt', p.failed_at, 'succeededAt', p.succeeded_at)
         from payments p where p.order_id = o.id and p.clinic_id = o.clinic_id order by p.created_at desc, p.id desc limit 1) as payment,
      (select json_build_object('id', s.id, 'status', s.status, 'carrier', s.carrier, 'trackingNumber', s.tracking_number,
                                'trackingUrl', s.tracking_url, 'shippedAt', s.shipped_at, 'deliveredAt', s.delivered_at)
         from shipments s where s.order_id = o.id and s.clinic_id = o.clinic_id order by s.created_at desc, s.id desc limit 1) as shipment,
      (select json_build_object('stage', l.stage, 'isLabGated', l.is_lab_gated, 'requisitionCreatedAt', l.requisition_created_at,
                                'deliveredToPatientAt', l.delivered_to_patient_at, 'receivedByLabAt', l.received_by_lab_at,
                                'resultsAvailableAt', l.results_available_at, 'kitToPatientCarrier', l.kit_to_patient_carrier,
                                'kitToPatientTrackingNumber', l.kit_to_patient_tracking_number, 'kitToLabCarrier', l.kit_to_lab_carrier,
                                'kitToLabTrackingNumber', l.kit_to_lab_tracking_number)
         from lab_legs l where l.order_id = o.id and l.clinic_id = o.clinic_id) as "labLeg",
      (select json_build_object('status', v.status, 'bookingRequired', v.booking_required, 'scheduledAt', v.scheduled_at, 'lastSyncedAt', v.last_synced_at)
         from visits v where v.order_id = o.id and v.clinic_id = o.clinic_id) as visit
    from orders o where o.id = ${orderId} and o.clinic_id = ${clinicId}`,
  );
  if (!row) return null;
  const { payment, shipment, labLeg, visit } = row;
  return {
    id: row.id,
    orderNumber: row.orderNumber,
    status: row.status,
    approvedByDoctor: row.approvedByDoctor,
    totalAmount: centsToAmount(row.totalCents),
    brandAmount: centsToAmount(row.brandAmountCents),
    paidAt: iso(row.paidAt),
    shippedAt: iso(row.shippedAt),
    deliveredAt: iso(row.deliveredAt),
    cancelledAt: iso(row.cancelledAt),
    payment: payment && {
      id: payment.id,
      status: payment.status,
      amount: centsToAmount(payment.amountCents),
      failureReason: payment.failureReason,
      failedAt: iso(payment.failedAt),
      succeededAt: iso(payment.succeededAt),
    },
    shipment: shipment && {
      id: shipment.id,
      status: shipment.status,
      carrier: shipment.carrier,
      trackingNumber: shipment.trackingNumber,
      trackingUrl: shipment.trackingUrl,
      shippedAt: iso(shipment.shippedAt),
      deliveredAt: iso(shipment.deliveredAt),
    },
    labLeg: labLeg && {
      stage: labLeg.stage,
      isLabGated: labLeg.isLabGated,
      requisitionCreatedAt: iso(labLeg.requisitionCreatedAt),
      deliveredToPatientAt: iso(labLeg.deliveredToPatientAt),
      receivedByLabAt: iso(labLeg.receivedByLabAt),
      resultsAvailableAt: iso(labLeg.resultsAvailableAt),
      kitShipmentToPatient: { carrier: labLeg.kitToPatientCarrier, trackingNumber: labLeg.kitToPatientTrackingNumber },
      kitShipmentToLab: { carrier: labLeg.kitToLabCarrier, trackingNumber: labLeg.kitToLabTrackingNumber },
    },
    visit: visit && {
      status: visit.status,
      bookingRequired: visit.bookingRequired,
      scheduledAt: iso(visit.scheduledAt),
      lastSyncedAt: iso(visit.lastSyncedAt),
    },
  };
}
