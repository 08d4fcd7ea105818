import { z } from '@hono/zod-openapi';
import {
  FULFILLMENT_TYPES,
  LAB_STAGES,
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  REFUND_REQUEST_STATUSES,
  VISIT_STATUSES,
} from '../../../../drizzle/schema';
import { pageQuery } from '../../../platform/http/pagination';
import { parseDateTime } from '../../../platform/values/dates';
import { safeString } from '../../../platform/values/strings';
import { ACTOR_TYPES, SHIPMENT_STATUSES } from './lifecycle/platform-events';

// Orders: the list row, the detail (the spec's field list), events, lab and visit status,
// needs-attention, stats and the anonymous summary. Money fields are dollars (49.99) unless named
// *Cents; see docs/orders.md.

const money = (description?: string) => z.number().openapi(description ? { description } : {});
const dateTimeOut = () => z.string().datetime();

/** The order lifecycle's states (docs/order-lifecycle.md), one enumeration wherever an order's status is shown. */
export const orderStatus = z.enum(ORDER_STATUSES).openapi('OrderStatus', {
  description: 'The lifecycle state of an order (docs/order-lifecycle.md).',
  example: 'paid',
});

export const feeBreakdown = z
  .object({
    subtotal: money('Sum of the items, before discount.'),
    discount: money('Coupon discount.'),
    tax: money(),
    shipping: money(),
    total: money('subtotal - discount + tax + shipping: what the patient paid.'),
    pharmacyCost: money('To the pharmacy.'),
    doctorFee: money('To the doctor network.'),
    processorFee: money('Payment processing.'),
    platformFee: money("The platform's fee."),
    brandAmount: money('What the brand keeps: total - pharmacyCost - doctorFee - processorFee - platformFee - tax - shipping.'),
  })
  .openapi('FeeBreakdown', {
    description:
      'The full fee waterfall of an order, in dollars. Its parts add up: total = pharmacyCost + doctorFee + processorFee + platformFee + tax + shipping + brandAmount.',
  });

const orderFields = {
  id: z.string().uuid(),
  orderNumber: z.string().openapi({ example: 'DEM-1000042' }),
  status: orderStatus,
  totalAmount: money('What the patient paid (dollars).'),
  subtotalAmount: money(),
  discountAmount: money(),
  taxAmount: money(),
  shippingAmount: money(),
  brandAmount: money("The brand's share after pharmacy, doctor, processor and platform."),
  billingInterval: z.number().int().openapi({ description: 'Months between charges (1 = monthly).', example: 1 }),
  createdAt: dateTimeOut(),
  shippedAt: dateTimeOut().nullable(),
  deliveredAt: dateTimeOut().nullable(),
  fulfillmentType: z
    .enum(FULFILLMENT_TYPES)
    .openapi({ description: 'shipping (the pharmacy ships to the patient) or pickup.', example: 'shipping' }),
  approvedByDoctor: z.boolean(),
  feeBreakdown,
};

export const orderListItem = z
  .object({
    ...orderFields,
    paidAt: dateTimeOut().nullable(),
    user: z
      .object({ id: z.string().uuid(), firstName: z.string(), lastName: z.string(), email: z.string() })
      .openapi({ description: 'The patient.' }),
    program: z.object({ id: z.string().uuid(), name: z.string() }).nullable(),
  })
  .openapi('OrderListItem', {
    description: 'A compact Order: the detail without items, payment, address and shipments, plus paidAt, the patient and the program.',
  });
export type OrderListItem = z.infer<typeof orderListItem>;

export const orderDetail = z
  .object({
    ...orderFields,
    user: z.object({
      id: z.string().uuid(),
      firstName: z.string(),
      lastName: z.string(),
      email: z.string(),
      phoneNumber: z.string().nullable(),
    }),
    orderItems: z.array(
      z.object({
        id: z.string().uuid(),
        quantity: z.number().int(),
        unitPrice: money(),
        totalPrice: money(),
        product: z.object({
          id: z.string().uuid().nullable().openapi({ description: 'The global product; null when it no longer exists.' }),
          name: z.string().openapi({ description: 'The name at the time of the order.' }),
        }),
      }),
    ),
    payment: z
      .object({
        status: z.enum(PAYMENT_STATUSES),
        paymentMethod: z.string().openapi({ description: 'Open set (card today).', example: 'card' }),
      })
      .nullable()
      .openapi({ description: 'The latest payment attempt; null before any.' }),
    shippingAddress: z
      .object({ address: z.string(), city: z.string(), state: z.string(), zipCode: z.string(), country: z.string() })
      .nullable(),
    shippingOrders: z.array(
      z.object({
        id: z.string().uuid(),
        status: z.enum(SHIPMENT_STATUSES),
        trackingNumber: z.string().nullable(),
        trackingUrl: z.string().nullable(),
      }),
    ),
  })
  .openapi('Order');
export type OrderDetail = z.infer<typeof orderDetail>;

export const orderEvents = z
  .object({
    events: z.array(
      z.object({
        id: z.string().uuid(),
        eventType: z.string().openapi({
          description:
            'What happened (order.created, order.paid, order.shipped, lab.kit_shipped, ...): an open set that grows with the lifecycle.',
          example: 'order.shipped',
        }),
        actorType: z.enum(ACTOR_TYPES).openapi({ example: 'pharmacy' }),
        createdAt: dateTimeOut(),
        metadata: z.record(z.string(), z.unknown()),
      }),
    ),
    hasPrescriptionPdf: z.boolean(),
  })
  .openapi('OrderEvents');

export const labStatus = z
  .object({
    orderId: z.string().uuid(),
    isLabGated: z.boolean(),
    orderStatus: z
      .union([orderStatus, z.null()])
      .openapi({ description: 'The specification allows null; an order always has a status today.' }),
    stage: z.enum(LAB_STAGES).nullable(),
    timeline: z.array(z.object({ stage: z.enum(LAB_STAGES), reached: z.boolean(), occurredAt: dateTimeOut().nullable() })),
    kitShipmentToPatient: z.object({
      carrier: z.string().nullable(),
      trackingNumber: z.string().nullable(),
      deliveredAt: dateTimeOut().nullable(),
    }),
    kitShipmentToLab: z.object({
      carrier: z.string().nullable(),
      trackingNumber: z.string().nullable(),
      receivedAt: dateTimeOut().nullable(),
    }),
    resultsAvailableAt: dateTimeOut().nullable(),
  })
  .openapi('LabStatus');
export type LabStatus = z.infer<typeof labStatus>;

export const visitStatus = z
  .object({
    orderId: z.string().uuid(),
    visitStatus: z.enum(VISIT_STATUSES),
    bookingRequired: z.boolean().nullable(),
    scheduledAt: dateTimeOut().nullable(),
    lastSyncedAt: dateTimeOut().nullable(),
  })
  .openapi('VisitStatus');
export type VisitStatusBody = z.infer<typeof visitStatus>;

export const needsAttention = z
  .object({
    count: z.number().int().openapi({ description: 'Orders in the queue (items holds at most 200, newest failure first).' }),
    items: z.array(
      z.object({
        orderId: z.string().uuid(),
        orderNumber: z.string(),
        patientName: z.string().nullable(),
        programName: z.string().nullable(),
        paymentFailedAt: dateTimeOut().nullable(),
        lastPaymentError: z.string().nullable(),
        enrichment: z.object({
          orderStatus,
          amount: money('Amount of the failed attempt (dollars).'),
          totalAmount: money("The order's total (dollars)."),
          paymentMethod: z.string(),
          failedAttempts: z.number().int().openapi({ description: 'Failed payment attempts of the order so far.' }),
          totalAttempts: z.number().int().openapi({ description: 'Payment attempts of the order so far.' }),
        }),
      }),
    ),
  })
  .openapi('NeedsAttention');
export type NeedsAttention = z.infer<typeof needsAttention>;

// --- date windows (stats, summary) ---

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date YYYY-MM-DD from 1970-01-01 to 9999-12-31, or an accepted date-time; null when neither. */
export function parseDateOrDateTime(value: string): { kind: 'date'; date: Date } | { kind: 'dateTime'; date: Date } | null {
  const m = DATE.exec(value);
  if (m) {
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const date = new Date(Date.UTC(year, month - 1, day));
    if (year < 1970 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
    return { kind: 'date', date };
  }
  const parsed = parseDateTime(value);
  return 'date' in parsed ? { kind: 'dateTime', date: parsed.date } : null;
}

/** An optional window bound: a date (YYYY-MM-DD) or a date-time with a zone (date-times normalised to UTC). */
export const windowBound = (example: string, description: string) =>
  safeString()
    .max(64)
    .superRefine((value, ctx) => {
      if (!parseDateOrDateTime(value))
        ctx.addIssue({ code: 'custom', message: 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a zone' });
    })
    .overwrite((value) => {
      const parsed = parseDateOrDateTime(value);
      return parsed?.kind === 'dateTime' ? parsed.date.toISOString() : value;
    })
    .optional()
    .openapi({ description, example });

export const windowQuery = z
  .object({
    startDate: windowBound('2030-01-01', 'Orders created at or after: a date (YYYY-MM-DD, from 00:00 UTC) or a date-time.'),
    endDate: windowBound('2030-01-31', 'Orders created at or before: a date (YYYY-MM-DD, through 23:59:59.999 UTC) or a date-time.'),
  })
  .superRefine((q, ctx) => {
    const range = toRange(q);
    if (range.from && range.to && range.from > range.to)
      ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before startDate' });
  });
export type WindowQuery = z.infer<typeof windowQuery>;

/** Inclusive instants of a window: a date start is its 00:00 UTC, a date end its 23:59:59.999 UTC. */
export function toRange(q: { startDate?: string; endDate?: string }): { from: Date | null; to: Date | null } {
  const start = q.startDate ? parseDateOrDateTime(q.startDate) : null;
  const end = q.endDate ? parseDateOrDateTime(q.endDate) : null;
  return {
    from: start?.date ?? null,
    to: end ? (end.kind === 'date' ? new Date(end.date.getTime() + 86_400_000 - 1) : end.date) : null,
  };
}

const window = z
  .object({ startDate: z.string().nullable(), endDate: z.string().nullable() })
  .openapi({ description: 'The window as asked (dates as given, date-times in UTC); null: open.' });

export const orderStats = z
  .object({
    window,
    totalOrders: z.number().int().openapi({ description: 'Orders created in the window, any status.' }),
    paidOrders: z.number().int().openapi({ description: 'Of those, orders that were paid (paidAt set), refunded ones included.' }),
    refundedOrders: z.number().int(),
    grossSales: money('Total of the paid orders (dollars).'),
    refundedAmount: money('Refunded to patients, of these orders (dollars).'),
    netSales: money('grossSales - refundedAmount.'),
    brandEarnings: money("The brand's share (brandAmount) of the paid orders that were not refunded."),
    averageOrderValue: money('grossSales / paidOrders, rounded to the cent; 0 without paid orders.'),
    fees: z
      .object({
        pharmacyCost: money(),
        doctorFee: money(),
        processorFee: money(),
        platformFee: money(),
        tax: money(),
        shipping: money(),
      })
      .openapi({ description: 'Sums over the paid orders that were not refunded.' }),
  })
  .openapi('OrderStats');
export type OrderStats = z.infer<typeof orderStats>;

export const orderSummary = z
  .object({
    window,
    totalOrders: z.number().int(),
    byStatus: z.array(z.object({ status: orderStatus, orders: z.number().int() })),
    byProgram: z.array(
      z.object({
        programId: z.string().uuid().nullable(),
        programName: z.string().nullable(),
        orders: z.number().int(),
        paidSales: money('Total of the paid orders (dollars).'),
      }),
    ),
    byState: z
      .array(z.object({ state: z.string(), orders: z.number().int() }))
      .openapi({ description: 'Only shipping states with 5 or more orders.' }),
    otherStates: z
      .object({ states: z.number().int(), orders: z.number().int() })
      .nullable()
      .openapi({ description: 'Shipping states with fewer than 5 orders, unnamed, together; null when there are none.' }),
    refunds: z.object({
      byStatus: z.array(z.object({ status: z.enum(REFUND_REQUEST_STATUSES), requests: z.number().int() })),
      approvedAmount: money('Refunded (dollars).'),
    }),
  })
  .openapi('OrdersSummary', { description: 'Counts and sums only: never an order id, number, date, patient or medication.' });
export type OrderSummary = z.infer<typeof orderSummary>;

/** One value or several: `?status=a&status=b` or `?status=a,b` (the validator hands a repeated parameter as an array). */
const oneOrMore = <T extends z.ZodType<unknown, string>>(item: T, max: number) =>
  z
    .union([z.string(), z.array(z.string()).max(max)])
    .transform((value) => [...new Set((Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).map((v) => v.trim()))])
    .pipe(z.array(item).min(1).max(max));

export const listOrdersQuery = pageQuery.extend({
  status: oneOrMore(z.enum(ORDER_STATUSES), ORDER_STATUSES.length)
    .optional()
    .openapi({
      param: { style: 'form', explode: true },
      type: 'array',
      items: { type: 'string', enum: [...ORDER_STATUSES] },
      maxItems: ORDER_STATUSES.length,
      description: 'Only orders in one of these statuses: repeat the parameter (`status=paid&status=shipped`) or separate them by commas.',
      example: ['pending_payment'],
    }),
  programId: z.string().uuid().optional().openapi({
    description: "Only the program's orders. An unknown program, or another clinic's, matches nothing.",
    example: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10',
  }),
  createdGte: windowBound('2030-01-01', 'Orders created at or after: a date (YYYY-MM-DD, from 00:00 UTC) or a date-time.'),
  createdLte: windowBound('2030-01-31', 'Orders created at or before: a date (YYYY-MM-DD, through 23:59:59.999 UTC) or a date-time.'),
  q: safeString().trim().max(200).optional().openapi({
    description:
      "Case-insensitive substring of the order number or of the patient's email (blank: no filter; `%`, `_` and `\\` match themselves).",
    example: 'ORD-1042',
  }),
});
export type ListOrdersQuery = z.infer<typeof listOrdersQuery>;
