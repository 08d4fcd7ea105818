// Storefront (spec: "Page builder", "Treatments", "Dashboard and analytics" (intake and likes), "Team,
// custom website, support, forms, intake, misc"): pages and navigation, the custom website, treatments,
// forms, intake requests, teleform removals and intake analytics.
import type { Sweep } from '../../platform/sweep';
import { abandonStaleFormSessionsSweep } from './analytics/intake-events';
import { teleformRemovalSweep } from './teleform-removals/service';

/** The area's routes, imported on its first request (docs/architecture.md, "Startup"). */
export const loadRoutes = () => import('./routes');

export const sweeps: Record<string, Sweep> = {
  teleformRemovalSweep, // due scheduled removals complete and deactivate their form (docs/forms-and-intake.md)
  abandonStaleFormSessionsSweep, // intake sessions idle 24 h: abandoned + intake.abandoned (docs/analytics.md)
};
