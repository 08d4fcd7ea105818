// The access area's routes, in the order the app mounts them. Imported only through index.ts's
// loadRoutes, so a Worker builds them on the area's first request (docs/architecture.md, "Startup").
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import { apiKeyRoutes } from './api-keys/routes';
import { auditEventRoutes } from './audit-events/routes';
import { authRoutes } from './auth/routes';
import { healthRoutes } from './health/routes';
import { meRoutes } from './me/routes';
import { requestLogRoutes } from './request-logs/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', healthRoutes)
  .route('/', authRoutes)
  .route('/', apiKeyRoutes)
  .route('/', meRoutes)
  .route('/', requestLogRoutes)
  .route('/', auditEventRoutes);
