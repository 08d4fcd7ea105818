import { sql } from 'drizzle-orm';
import { LAB_STAGES, type LabStage, type OrderStatus, VISIT_STATUSES, type VisitStatus } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { isoTimestamp as iso, rowsOf } from '../../../platform/db/sql';
import { notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import type { LabStatus, VisitStatusBody } from './schemas';

// Lab status and visit status of an order: one statement each, then pure rules (unit-tested rule by
// rule in test/unit/orders-status.test.ts). Both answer 200 for every order of the clinic.

/** The lab leg as stored (timestamps as ISO strings); null when the order has no lab leg. */
export interface LabLegRow {
  isLabGated: boolean;
  stage: string;
  requisitionCreatedAt: string | null;
  deliveredToPatientAt: string | null;
  receivedByLabAt: string | null;
  resultsAvailableAt: string | null;
  kitToPatientCarrier: string | null;
  kitToPatientTrackingNumber: string | null;
  kitToLabCarrier: string | null;
  kitToLabTrackingNumber: string | null;
}

/** Which stored timestamp is a stage's occurredAt; the shipped_* stages have none (always null). */
const OCCURRED_AT: Record<LabStage, keyof LabLegRow | null> = {
  requisition_created: 'requisitionCreatedAt',
  shipped_to_patient: null,
  delivered_to_patient: 'deliveredToPatientAt',
  shipped_to_lab: null,
  received_by_lab: 'receivedByLabAt',
  results: 'resultsAvailableAt',
};

const isLabStage = (value: string): value is LabStage => (LAB_STAGES as readonly string[]).includes(value);

/**
 * The lab status of an order. Every stage is listed in order; reached for the current stage and all
 * before it; occurredAt only for a reached stage with a timestamp of its own. Without a lab leg (or,
 * defensively, with a stage outside the set) stage is null and nothing is reached. Timestamps of
 * stages not reached are never shown, kit shipments and resultsAvailableAt included.
 */
export function buildLabStatus(orderId: string, orderStatus: OrderStatus | null, leg: LabLegRow | null): LabStatus {
  const stage = leg && isLabStage(leg.stage) ? leg.stage : null;
  const current = stage ? LAB_STAGES.indexOf(stage) : -1;
  const reached = (s: LabStage) => LAB_STAGES.indexOf(s) <= current;
  const at = (s: LabStage): string | null => {
    const column = OCCURRED_AT[s];
    return leg && column && reached(s) ? ((leg[column] as string | null) ?? null) : null;
  };
  return {
    orderId,
    isLabGated: leg?.isLabGated ?? false,
    orderStatus,
    stage,
    timeline: LAB_STAGES.map((s) => ({ stage: s, reached: reached(s), occurredAt: at(s) })),
    kitShipmentToPatient: {
      carrier: leg?.kitToPatientCarrier ?? null,
      trackingNumber: leg?.kitToPatientTrackingNumber ?? null,
      deliveredAt: at('delivered_to_patient'),
    },
    kitShipmentToLab: {
      carrier: leg?.kitToLabCarrier ?? null,
      trackingNumber: leg?.kitToLabTrackingNumber ?? null,
      receivedAt: at('received_by_lab'),
    },
    resultsAvailableAt: at('results'),
  };
}

export async function getLabStatus(ctx: HandlerContext, id: string): Promise<LabStatus> {
  const { db, clinicId } = ctx;
  if (!isUuid(id)) throw notFound('Order');
  const [row] = await rowsOf<{ orderStatus: OrderStatus | null; leg: LabLegRow | null }>(
    db,
    sql`
    select o.status as "orderStatus",
      case when l.id is null then null else json_build_object(
        'isLabGated', l.is_lab_gated, 'stage', l.stage,
        'requisitionCreatedAt', ${iso(sql`l.requisition_created_at`)}, 'deliveredToPatientAt', ${iso(sql`l.delivered_to_patient_at`)},
        'receivedByLabAt', ${iso(sql`l.received_by_lab_at`)}, 'resultsAvailableAt', ${iso(sql`l.results_available_at`)},
        'kitToPatientCarrier', l.kit_to_patient_carrier, 'kitToPatientTrackingNumber', l.kit_to_patient_tracking_number,
        'kitToLabCarrier', l.kit_to_lab_carrier, 'kitToLabTrackingNumber', l.kit_to_lab_tracking_number
      ) end as leg
    from orders o
    left join lab_legs l on l.order_id = o.id and l.clinic_id = o.clinic_id
    where o.clinic_id = ${clinicId} and o.id = ${id}`,
  );
  if (!row) throw notFound('Order');
  return buildLabStatus(id, row.orderStatus, row.leg);
}

export interface VisitRow {
  status: string;
  bookingRequired: boolean | null;
  scheduledAt: string | null;
  lastSyncedAt: string | null;
}

const isVisitStatus = (value: string): value is VisitStatus => (VISIT_STATUSES as readonly string[]).includes(value);

/**
 * The visit status of an order. No visit row: not_booked, bookingRequired null (unknown). A stored
 * value outside the five is answered as not_booked (nothing confirmed) rather than passed on.
 * scheduledAt is shown for booked, no_show (kept after the missed appointment) and concluded; for
 * not_booked and cancelled nothing is scheduled, so it is null.
 */
export function buildVisitStatus(orderId: string, visit: VisitRow | null): VisitStatusBody {
  if (!visit) return { orderId, visitStatus: 'not_booked', bookingRequired: null, scheduledAt: null, lastSyncedAt: null };
  const visitStatus: VisitStatus = isVisitStatus(visit.status) ? visit.status : 'not_booked';
  const showsSchedule = visitStatus === 'booked' || visitStatus === 'no_show' || visitStatus === 'concluded';
  return {
    orderId,
    visitStatus,
    bookingRequired: visit.bookingRequired,
    scheduledAt: showsSchedule ? visit.scheduledAt : null,
    lastSyncedAt: visit.lastSyncedAt,
  };
}

export async function getVisitStatus(ctx: HandlerContext, id: string): Promise<VisitStatusBody> {
  const { db, clinicId } = ctx;
  if (!isUuid(id)) throw notFound('Order');
  const [row] = await rowsOf<{ visit: VisitRow | null }>(
    db,
    sql`
    select case when v.id is null then null else json_build_object(
        'status', v.status, 'bookingRequired', v.booking_required,
        'scheduledAt', ${iso(sql`v.scheduled_at`)}, 'lastSyncedAt', ${iso(sql`v.last_synced_at`)}
      ) end as visit
    from orders o
    left join visits v on v.order_id = o.id and v.clinic_id = o.clinic_id
    where o.clinic_id = ${clinicId} and o.id = ${id}`,
  );
  if (!row) throw notFound('Order');
  return buildVisitStatus(id, row.visit);
}
