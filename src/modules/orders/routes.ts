// The orders area's routes, in the order the app mounts them. Imported only through index.ts's
// loadRoutes, so a Worker builds them on the area's first request (docs/architecture.md, "Startup").
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import { customerRoutes } from './customers/routes';
import { dashboardRoutes } from './dashboard/routes';
import { devSimulatorRoutes, platformOrderEventRoutes } from './orders/lifecycle/dev-routes';
import { orderRoutes } from './orders/routes';
import { payoutRoutes } from './payouts/routes';
import { refundRequestRoutes } from './refund-requests/routes';
import { refundRoutes } from './refunds/routes';
import { titrationScheduleRoutes } from './titration-schedule/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', orderRoutes)
  .route('/', customerRoutes)
  .route('/', titrationScheduleRoutes)
  .route('/', devSimulatorRoutes)
  .route('/', platformOrderEventRoutes)
  .route('/', payoutRoutes)
  .route('/', refundRoutes)
  .route('/', refundRequestRoutes)
  .route('/', dashboardRoutes);
