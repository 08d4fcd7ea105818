// Orders (spec: "Orders", "Customers", "Payouts and refunds", "Dashboard and analytics"): the clinic's
// orders and their lifecycle, customers, held titration schedules, the ledger with payouts and refunds,
// and the dashboard. A foundation area: it imports no other area; feature areas use what is exported below.
import type { Sweep } from '../../platform/sweep';

/** The area's routes, imported on its first request (docs/architecture.md, "Startup"). */
export const loadRoutes = () => import('./routes');

export const sweeps: Record<string, Sweep> = {};

export { listCustomers } from './customers/service';
export { dashboardMetrics, dashboardOverview, revenueChart } from './dashboard/service';
// Reporting windows, shared with the storefront's analytics.
export {
  at,
  bucketStarts,
  checkBuckets,
  checkWindow,
  GRANULARITIES,
  GRANULARITY_SQL,
  type ResolvedWindow,
  resolveWindow,
  type SeriesQuery,
  seriesQuery,
  type WindowQuery,
  windowFields,
  windowOut,
  windowQuery,
  windowSchema,
} from './dashboard/window';
export { appendLedgerEntries } from './ledger/entries';
// The order lifecycle: how the platform creates and moves an order (checkout and the demo seed use it).
export { applyPlatformEvent } from './orders/lifecycle/apply';
export { type CreateOrderItem, createOrder } from './orders/lifecycle/create';
export {
  computeFeeBreakdown,
  DEFAULT_DOCTOR_FEE_CENTS,
  PROCESSOR_FEE_FIXED_CENTS,
  PROCESSOR_FEE_RATE_PER_MILLE,
  roundHalfUpRatio,
} from './orders/lifecycle/fees';
export type { PlatformEvent } from './orders/lifecycle/platform-events';
export { needsAttention, orderStats, orderSummary } from './orders/reports';
// Reads the large-clinic measurements call directly (scripts/seed/large-clinic.ts).
export { listOrders } from './orders/service';
