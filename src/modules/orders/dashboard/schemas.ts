import { z } from '@hono/zod-openapi';
import { GRANULARITIES, ignoredClinicId, windowSchema } from './window';

// The dashboard's payloads (the spec leaves them open; docs/dashboard.md). Money fields are US dollars
// with at most two decimals, as everywhere in the API; revenue means what GET /orders/stats calls
// grossSales (the totals of the paid orders), netSales and refundedAmount mean what they mean there.

const money = (description: string) => z.number().openapi({ description, example: 1249.5 });
const count = (description: string) => z.number().int().openapi({ description });

const window = z.object({ startDate: z.string().datetime(), endDate: z.string().datetime() });

export const overview = z
  .object({
    asOf: z.string().datetime().openapi({ description: 'The instant the figures were taken.' }),
    last30Days: window.openapi({ description: 'The window of the *Last30Days figures: the 30 days up to asOf, both ends inclusive.' }),
    revenue: z.object({
      grossSales: money('Totals of every paid order (as GET /orders/stats without a window).'),
      refundedAmount: money('Refunded to patients, of those orders.'),
      netSales: money('grossSales - refundedAmount.'),
      grossSalesLast30Days: money('grossSales of the orders created in the last 30 days.'),
    }),
    orders: z.object({
      total: count('Every order, any status.'),
      paid: count('Orders that were paid (paidAt set), refunded ones included.'),
      inProgress: count(
        'Paid orders on their way: paid, awaiting_lab_results, awaiting_doctor_review, doctor_approved, sent_to_pharmacy, shipped.',
      ),
      last30Days: count('Orders created in the last 30 days, any status.'),
    }),
    patients: z.object({
      total: count("The clinic's patients."),
      active: count('Distinct patients with an active enrollment.'),
      newLast30Days: count('Patients created in the last 30 days.'),
    }),
    balance: z.object({
      available: money('The ledger sum GET /payouts/balance calls available (may be negative); withdrawable is max(available, 0).'),
      reserveHeld: money('Reserve held now: holds - releases - forfeits.'),
    }),
    pendingActions: z.object({
      refundRequests: count('Refund requests waiting for a decision.'),
      failedPayments: count('Orders whose latest payment failed (the GET /orders/needs-attention count).'),
      disputesNeedingResponse: count('Disputes with status needs_response.'),
      openPriceAlerts: count('Pharmacy price-change alerts not yet acknowledged.'),
      heldTitrationSchedules: count('Titration schedules holding fulfilment for a revisit.'),
      total: count('The sum of the above.'),
    }),
  })
  .openapi('DashboardOverview');
export type Overview = z.infer<typeof overview>;

const metric = (description: string, isMoney = false) =>
  z
    .object({
      current: isMoney ? money('This window.') : count('This window.'),
      previous: isMoney ? money('The previous window.') : count('The previous window.'),
      change: isMoney ? money('current - previous.') : count('current - previous.'),
      changePercent: z
        .number()
        .nullable()
        .openapi({ description: '(current - previous) / previous x 100, one decimal; null when previous is 0.', example: 12.5 }),
    })
    .openapi({ description });

export const metrics = z
  .object({
    window: windowSchema,
    previousWindow: window.openapi({ description: 'The window of the same length just before (inclusive bounds, no overlap).' }),
    orders: metric('Orders created in the window, any status (totalOrders of GET /orders/stats).'),
    paidOrders: metric('Of those, the paid ones (paidOrders of GET /orders/stats).'),
    revenue: metric('grossSales of GET /orders/stats over the window (dollars).', true),
    netRevenue: metric('netSales of GET /orders/stats over the window (dollars).', true),
    averageOrderValue: metric('revenue / paidOrders, rounded to the cent; 0 without paid orders (dollars).', true),
    newPatients: metric('Patients created in the window.'),
    orderingPatients: metric('Distinct patients with an order created in the window.'),
  })
  .openapi('DashboardMetrics');
export type Metrics = z.infer<typeof metrics>;

const feeParts = z.object({
  pharmacyCost: money('Pharmacy cost, and shipping paid to the pharmacy (ledger type pharmacy_cost).'),
  doctorFee: money('Ledger type doctor_fee.'),
  processorFee: money('Ledger type processor_fee.'),
  platformFee: money("The platform's fee, and the sales tax it remits (ledger type platform_fee)."),
  total: money('The four together.'),
});

const earningsFigures = {
  gross: money('Charges: what patients paid (ledger type charge).'),
  fees: feeParts,
  refunds: money('Brand amounts taken back by refunds (ledger type refund), as a positive amount.'),
  disputes: money(
    'Disputed charges taken back less won disputes returned (dispute - dispute_reversal), as a positive amount when money was lost.',
  ),
  net: money('gross - fees.total - refunds - disputes: what the clinic earned.'),
  payouts: money('Paid out to the clinic (ledger type payout), as a positive amount.'),
};

export const earningsReport = z
  .object({
    window: windowSchema,
    ...earningsFigures,
    reserve: z.object({
      held: money('Moved into the reserve in the window (reserve_hold).'),
      released: money('Returned from the reserve (reserve_release).'),
      forfeited: money('Kept by the platform from the reserve (reserve_forfeit).'),
    }),
    entries: count('Ledger entries in the window.'),
    byMonth: z
      .array(z.object({ month: z.string().openapi({ example: '2030-01', description: 'Calendar month (UTC).' }), ...earningsFigures }))
      .openapi({ description: 'The same figures per calendar month (UTC) that has entries in the window, oldest first.' }),
  })
  .openapi('DashboardEarningsReport', {
    description: 'Sums over the clinic\'s ledger entries created in the window (docs/payouts-and-refunds.md, "The ledger").',
  });
export type EarningsReport = z.infer<typeof earningsReport>;

export const ACTIVITY_SOURCES = ['order_event', 'payment', 'refund', 'payout'] as const;
export type ActivitySource = (typeof ACTIVITY_SOURCES)[number];

export const activityItem = z
  .object({
    id: z.string().openapi({ description: 'Id of the source row (order event, payment, refund or payout).' }),
    source: z.enum(ACTIVITY_SOURCES),
    type: z.string().openapi({
      description:
        'order_event: the event name (order.created, order.shipped...); payment: payment.succeeded or payment.failed; refund: refund.<status>; payout: payout.<type> (payout.order_transfer, payout.withdrawal).',
      example: 'order.shipped',
    }),
    status: z.string().nullable().openapi({ description: 'The payment, refund or payout status now; null for order events.' }),
    orderId: z.string().uuid().nullable(),
    orderNumber: z.string().nullable(),
    amount: z
      .number()
      .nullable()
      .openapi({ description: 'Dollars: the payment attempt, the refund (to the patient) or the payout; null for order events.' }),
    occurredAt: z.string().datetime(),
  })
  .openapi('DashboardActivityItem', {
    description: 'Ids, types, amounts and times only: never a patient name, email, address or event metadata.',
  });
export type ActivityItem = z.infer<typeof activityItem>;

export const recentActivity = z.object({ items: z.array(activityItem) }).openapi('DashboardRecentActivity');

export const RECENT_ACTIVITY_MAX = 100;
export const recentActivityQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(RECENT_ACTIVITY_MAX)
    .default(25)
    .openapi({ description: `Items, newest first: 1-${RECENT_ACTIVITY_MAX}, default 25.`, example: 25 }),
  clinicId: ignoredClinicId,
});

export const revenueChart = z
  .object({
    window: windowSchema,
    granularity: z.enum(GRANULARITIES),
    series: z
      .array(
        z.object({
          bucket: z
            .string()
            .openapi({ description: 'The bucket: its first day (YYYY-MM-DD, UTC); months and weeks too.', example: '2030-01-06' }),
          orders: count('Orders created in the bucket (inside the window), any status.'),
          paidOrders: count('Of those, the paid ones.'),
          revenue: money('grossSales of those orders.'),
          refundedAmount: money('Refunded of those orders.'),
          netRevenue: money('revenue - refundedAmount.'),
        }),
      )
      .openapi({
        description:
          'Every bucket the window touches, oldest first, empty ones with zeros. The first and last may be partial (only the window counts).',
      }),
    totals: z.object({
      orders: count('All buckets: GET /orders/stats totalOrders over the window.'),
      paidOrders: count('All buckets: paidOrders.'),
      revenue: money('All buckets: grossSales.'),
      refundedAmount: money('All buckets: refundedAmount.'),
      netRevenue: money('All buckets: netSales.'),
    }),
  })
  .openapi('DashboardRevenueChart');
export type RevenueChart = z.infer<typeof revenueChart>;

export const PROJECTION_MAX_MONTHS = 12;
export const projectedRevenueQuery = z.object({
  months: z.coerce
    .number()
    .int()
    .min(1)
    .max(PROJECTION_MAX_MONTHS)
    .default(3)
    .openapi({ description: `Calendar months to project, the current one first: 1-${PROJECTION_MAX_MONTHS}, default 3.`, example: 3 }),
  clinicId: ignoredClinicId,
});

const projectionFigures = {
  charges: count('Charges expected.'),
  billed: money('What those charges bill patients (enrollment chargeAmount).'),
  net: money('What the clinic keeps of them (enrollment netAmount).'),
};

export const projectedRevenue = z
  .object({
    asOf: z.string().datetime(),
    months: z.number().int(),
    horizon: window.openapi({ description: 'From asOf to the end of the last month projected (UTC), inclusive.' }),
    activeEnrollments: count('Active enrollments.'),
    unscheduledEnrollments: count('Of those, enrollments without a next charge date (not projected).'),
    totals: z.object(projectionFigures),
    byMonth: z
      .array(
        z.object({
          month: z.string().openapi({ example: '2030-02', description: 'Calendar month (UTC).' }),
          ...projectionFigures,
          patients: count('Distinct patients charged in the month.'),
        }),
      )
      .openapi({ description: 'Every month of the horizon, oldest first (zeros included).' }),
    byProgram: z
      .array(
        z.object({
          programId: z.string().uuid(),
          programName: z.string(),
          ...projectionFigures,
        }),
      )
      .openapi({ description: 'Programs with expected charges, highest billing first.' }),
  })
  .openapi('DashboardProjectedRevenue', {
    description: 'Next charges of the active enrollments over the coming months (docs/dashboard.md).',
  });
export type ProjectedRevenue = z.infer<typeof projectedRevenue>;

export const overviewQuery = z.object({ clinicId: ignoredClinicId });
