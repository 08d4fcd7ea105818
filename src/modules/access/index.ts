// Access (spec: "Auth and key management", "Authentication"): brand-admin sign-in, API keys, the key's
// own view (GET /api/v1/me), the clinic's request logs and the health check. A foundation area: it imports no other area.
import type { Sweep } from '../../platform/sweep';

/** The area's routes, imported on its first request (docs/architecture.md, "Startup"). */
export const loadRoutes = () => import('./routes');

export const sweeps: Record<string, Sweep> = {};

// For the measurements of the request log and the audit trail (scripts/bench/partitions.ts).
export { listAuditEvents } from './audit-events/service';
export { getRequestLog, listRequestLogs } from './request-logs/service';
