// Storefront (spec: "Page builder", "Treatments", "Dashboard and analytics" (intake and likes), "Team,
// custom website, support, forms, intake, misc"): pages and navigation, the custom website, treatments,
// forms, intake requests, teleform removals and intake analytics.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import type { Sweep } from '../../platform/sweep';
import { abandonStaleFormSessionsSweep } from './analytics/intake-events';
import { analyticsRoutes } from './analytics/routes';
import { customWebsiteRoutes } from './custom-website/routes';
import { formRoutes } from './forms/routes';
import { intakeRequestRoutes } from './intake-requests/routes';
import { pageBuilderRoutes } from './page-builder/routes';
import { teleformRemovalRoutes } from './teleform-removals/routes';
import { teleformRemovalSweep } from './teleform-removals/service';
import { treatmentRoutes } from './treatments/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', pageBuilderRoutes)
  .route('/', customWebsiteRoutes)
  .route('/', treatmentRoutes)
  .route('/', formRoutes)
  .route('/', intakeRequestRoutes)
  .route('/', teleformRemovalRoutes)
  .route('/', analyticsRoutes);

export const sweeps: Record<string, Sweep> = {
  teleformRemovalSweep, // due scheduled removals complete and deactivate their form (docs/forms-and-intake.md)
  abandonStaleFormSessionsSweep, // intake sessions idle 24 h: abandoned + intake.abandoned (docs/analytics.md)
};
