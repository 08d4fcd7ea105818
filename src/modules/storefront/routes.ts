// The storefront area's routes, in the order the app mounts them. Imported only through index.ts's
// loadRoutes, so a Worker builds them on the area's first request (docs/architecture.md, "Startup").
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import { analyticsRoutes } from './analytics/routes';
import { customWebsiteRoutes } from './custom-website/routes';
import { formRoutes } from './forms/routes';
import { intakeRequestRoutes } from './intake-requests/routes';
import { pageBuilderRoutes } from './page-builder/routes';
import { teleformRemovalRoutes } from './teleform-removals/routes';
import { treatmentRoutes } from './treatments/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', pageBuilderRoutes)
  .route('/', customWebsiteRoutes)
  .route('/', treatmentRoutes)
  .route('/', formRoutes)
  .route('/', intakeRequestRoutes)
  .route('/', teleformRemovalRoutes)
  .route('/', analyticsRoutes);
